// Cards: the data (mirrors src/blink/cards.py), the match rule and the SVG art.
// A card is written "4YS": count, colour letter, shape letter.

// The display colours live in style.css (--card-red, ...), which mirrors cards.py.
export const COLORS = ["red", "orange", "yellow", "green", "blue", "purple"].map((key) => ({
  key,
  letter: key[0].toUpperCase(),
  get hex() { return cssColor(key); },
}));

const FALLBACK = "#808080";
const cssCache = new Map();
/** The card colour `key` as style.css defines it (--card-<key>). */
function cssColor(key) {
  if (!cssCache.has(key)) {
    const value = typeof document === "undefined" ? ""
      : getComputedStyle(document.documentElement).getPropertyValue(`--card-${key}`).trim();
    if (!value) return FALLBACK;
    cssCache.set(key, value);
  }
  return cssCache.get(key);
}
export const SHAPES = [
  { key: "moon", letter: "M" },
  { key: "pyramid", letter: "P" },
  { key: "star", letter: "S" },
  { key: "water", letter: "W" },
  { key: "flower", letter: "F" },
  { key: "lightning", letter: "L" },
];
const COLOR_BY_LETTER = Object.fromEntries(COLORS.map((c) => [c.letter, c]));
const SHAPE_BY_LETTER = Object.fromEntries(SHAPES.map((s) => [s.letter, s]));

/** Parse "4YS" into {code, count, color, shape}; throws on a bad code. */
export function parseCard(code) {
  const s = String(code || "").trim().toUpperCase();
  const count = Number(s[0]);
  const color = COLOR_BY_LETTER[s[1]];
  const shape = SHAPE_BY_LETTER[s[2]];
  if (s.length !== 3 || !(count >= 1 && count <= 5) || !color || !shape) {
    throw new Error(`not a card: ${code}`);
  }
  return { code: s, count, color: color.key, shape: shape.key, hex: color.hex, letter: color.letter };
}

// --- art -------------------------------------------------------------------------------------
// Each symbol is drawn in a 22x22 box centred on 0,0, then placed and scaled on the card.

function starPath() {
  const pts = [];
  for (let i = 0; i < 10; i++) {
    const r = i % 2 ? 4.6 : 11;
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    pts.push(`${(r * Math.cos(a)).toFixed(2)},${(r * Math.sin(a) + 0.8).toFixed(2)}`);
  }
  return `M${pts.join("L")}Z`;
}

const OUTLINE = 'stroke="#1f1f24" stroke-width="1.1" stroke-linejoin="round"';
const SYMBOLS = {
  moon: (fill) => `<path d="M4,-9.8A10.5 10.5 0 1 0 4 9.8A11.5 11.5 0 0 1 4 -9.8Z" fill="${fill}" ${OUTLINE}/>`,
  pyramid: (fill) =>
    `<path d="M0,-10.5L11,9L-11,9Z" fill="${fill}" ${OUTLINE}/>` +
    `<path d="M0,-10.5L11,9L3,9Z" fill="#000" fill-opacity=".22"/>`,
  star: (fill) => `<path d="${starPath()}" fill="${fill}" ${OUTLINE}/>`,
  water: (fill) =>
    `<path d="M0,-11.5C3,-5.5 8.5,-1.5 8.5,3.5A8.5 8.5 0 0 1 -8.5 3.5C-8.5,-1.5 -3,-5.5 0,-11.5Z" fill="${fill}" ${OUTLINE}/>` +
    `<path d="M-4.5,3C-4.5,6 -2.5,7.5 0,8" fill="none" stroke="#fff" stroke-opacity=".7" stroke-width="1.6" stroke-linecap="round"/>`,
  flower: (fill) => {
    let petals = "";
    for (let i = 0; i < 5; i++) {
      const a = -Math.PI / 2 + (i * 2 * Math.PI) / 5;
      petals += `<circle cx="${(6 * Math.cos(a)).toFixed(2)}" cy="${(6 * Math.sin(a) + 0.5).toFixed(2)}" r="4.9"/>`;
    }
    return `<g fill="${fill}" ${OUTLINE}>${petals}</g><circle cy=".5" r="3.4" fill="#fff8e0" ${OUTLINE}/>`;
  },
  lightning: (fill) =>
    `<path d="M-0.5,-11.5L7,-11.5L1.5,-2.5L8,-2.5L-5,11.5L-1.5,1.5L-7.5,1.5Z" fill="${fill}" ${OUTLINE}/>`,
};

// Dice-like layouts (card is 100 x 140): the count reads at a glance.
const LAYOUTS = {
  1: [[50, 70]],
  2: [[50, 42], [50, 98]],
  3: [[50, 28], [50, 70], [50, 112]],
  4: [[29, 42], [71, 42], [29, 98], [71, 98]],
  5: [[28, 30], [72, 30], [50, 70], [28, 110], [72, 110]],
};
const SCALES = { 1: 2.3, 2: 1.75, 3: 1.5, 4: 1.5, 5: 1.3 };
// Where the colour letters go: two opposite corners, except on a five, whose symbols fill the
// corners; there the letters sit at the sides of the middle symbol.
const LETTERS = { 5: [[4, 76, "start"], [96, 76, "end"]] };
const CORNERS = [[9, 20, "start"], [91, 131, "end"]];

/**
 * SVG markup for a card. `opts.letter` adds a colour letter (colour-blind mode);
 * `opts.label` is the accessible name.
 */
export function cardSVG(code, opts = {}) {
  const c = parseCard(code);
  const scale = SCALES[c.count];
  const draw = SYMBOLS[c.shape](c.hex);
  let body = "";
  for (const [x, y] of LAYOUTS[c.count]) {
    body += `<g transform="translate(${x} ${y}) scale(${scale})">${draw}</g>`;
  }
  let letter = "";
  if (opts.letter) {
    const l = escapeXml(opts.letter);
    letter =
      `<g class="cb-letter" font-family="system-ui,sans-serif" font-weight="800" font-size="17" fill="#1f1f24">` +
      (LETTERS[c.count] || CORNERS).map(([x, y, a]) => `<text x="${x}" y="${y}" text-anchor="${a}">${l}</text>`).join("") + `</g>`;
  }
  const label = opts.label ? ` role="img" aria-label="${escapeXml(opts.label)}"` : ' aria-hidden="true"';
  return (
    `<svg class="card-svg" viewBox="0 0 100 140" xmlns="http://www.w3.org/2000/svg"${label} data-card="${c.code}">` +
    `<rect x="1.5" y="1.5" width="97" height="137" rx="10" fill="#fffdf6" stroke="#c9c3b4" stroke-width="1.5"/>` +
    `<rect x="6" y="6" width="88" height="128" rx="7" fill="none" stroke="${c.hex}" stroke-opacity=".55" stroke-width="2"/>` +
    body +
    letter +
    `</svg>`
  );
}

/** The back of a card (face down), optionally with a label. */
export function backSVG(label) {
  const aria = label ? ` role="img" aria-label="${escapeXml(label)}"` : ' aria-hidden="true"';
  return (
    `<svg class="card-svg back" viewBox="0 0 100 140" xmlns="http://www.w3.org/2000/svg"${aria}>` +
    `<rect x="1.5" y="1.5" width="97" height="137" rx="10" fill="#26305e" stroke="#141a36" stroke-width="1.5"/>` +
    `<rect x="8" y="8" width="84" height="124" rx="6" fill="none" stroke="#f0e442" stroke-opacity=".6" stroke-width="2" stroke-dasharray="4 4"/>` +
    `<text x="50" y="78" text-anchor="middle" font-family="system-ui,sans-serif" font-weight="900" font-size="22" fill="#f0e442" transform="rotate(-30 50 70)">BLINK</text>` +
    `</svg>`
  );
}

export function escapeXml(s) {
  return String(s).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]);
}
