// Sounds generated with WebAudio (no files). Muted state persists in localStorage. Browsers
// let a page start audio only after the person has interacted with it: the AudioContext is made
// (and resumed) in the first click, tap or key press, and until then no sound is attempted, so a
// spectator who never touches the page gets silence, not a warning per sound.

let ctx = null;
let unlocked = false;
let muted = false;
try { muted = localStorage.getItem("blink.muted") === "1"; } catch { /* ignore */ }

export function isMuted() {
  return muted;
}

export function setMuted(m) {
  muted = m;
  try { localStorage.setItem("blink.muted", m ? "1" : "0"); } catch { /* ignore */ }
}

const GESTURES = ["pointerdown", "keydown", "touchend"];

function unlock(e) {
  if (e && e.isTrusted === false) return;
  unlocked = true;
  for (const g of GESTURES) window.removeEventListener(g, unlock, true);
  if (!muted) audio();
}
for (const g of GESTURES) window.addEventListener(g, unlock, true);

function audio() {
  if (muted || !unlocked) return null;
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!AC) return null;
  if (!ctx) ctx = new AC();
  if (ctx.state === "suspended") ctx.resume().catch(() => {});
  return ctx;
}

function tone(freq, dur, { type = "sine", gain = 0.12, at = 0, slide = 0 } = {}) {
  const a = audio();
  if (!a) return;
  const t0 = a.currentTime + at;
  const osc = a.createOscillator();
  const g = a.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  if (slide) osc.frequency.exponentialRampToValueAtTime(freq * slide, t0 + dur);
  g.gain.setValueAtTime(0.0001, t0);
  g.gain.exponentialRampToValueAtTime(gain, t0 + 0.01);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  osc.connect(g).connect(a.destination);
  osc.start(t0);
  osc.stop(t0 + dur + 0.02);
}

/** Named sound effects. */
export const sfx = {
  play: () => tone(660, 0.08, { type: "triangle", slide: 1.5 }),
  other: () => tone(330, 0.06, { type: "triangle", gain: 0.06 }),
  refused: () => tone(140, 0.18, { type: "sawtooth", gain: 0.07, slide: 0.8 }),
  tick: () => tone(880, 0.05, { gain: 0.08 }),
  reveal: () => { tone(523, 0.1, { type: "square", gain: 0.06 }); tone(784, 0.16, { type: "square", gain: 0.06, at: 0.08 }); },
  stall: () => { tone(392, 0.12, { gain: 0.08 }); tone(311, 0.18, { gain: 0.08, at: 0.12 }); },
  win: () => [523, 659, 784, 1047].forEach((f, i) => tone(f, 0.18, { type: "triangle", at: i * 0.09 })),
  lose: () => [392, 330, 262].forEach((f, i) => tone(f, 0.2, { type: "sine", gain: 0.08, at: i * 0.12 })),
};
