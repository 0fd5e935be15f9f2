// The table's motion: a played card flies from where it was played (your hand, or the
// opponent's seat) onto its pile, and a refused card springs back into the hand. Each runs on
// a clone above the page (the table redraws itself on every message), never holds up input
// and never hides the pile's state: the pile shows its new top at once, under the clone.
// Under prefers-reduced-motion only opacity changes.

export const FLIGHT_MS = 180;
export const SPRING_MS = 260;

const reduced = () => typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;

/** Whether the page asks for fades instead of movement. */
export function reducedMotion() {
  return reduced();
}

/**
 * Where a play by `seat` starts from in the table `root` as drawn now: the hand card at `slot`
 * for the viewer's own play, the seat's small hand (or its name) for an opponent's. A DOMRect,
 * or null when nothing of it is drawn.
 */
export function sourceRect(root, { mine, seat, slot }) {
  let el = null;
  if (mine && slot != null) el = root.querySelector(`.hcard[data-slot="${slot}"] .card-svg`);
  if (mine && !el) el = root.querySelector(".me .mine");
  if (!mine) {
    const opp = root.querySelector(`.opp[data-seat="${seat}"]`);
    el = opp && (opp.querySelector(".minihand .card-svg") || opp);
  }
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return r.width && r.height ? r : null;
}

/**
 * Move a copy of `cardHTML` (a card's SVG markup) from `from` (a DOMRect) onto the pile
 * element `pile`. `tag` names the flight for people reading the page's markup ("hand" or
 * "seat-N"). Returns the animation (or null when there was nothing to move).
 */
export function fly(cardHTML, from, pile, tag) {
  const target = pile && (pile.querySelector(".stack") || pile);
  if (!target) return null;
  const to = target.getBoundingClientRect();
  if (!to.width) return null;
  if (reduced() || !from) {
    // The new top fades in where it lies; nothing moves.
    return target.animate([{ opacity: 0.25 }, { opacity: 1 }], { duration: FLIGHT_MS, easing: "ease-out" });
  }
  const clone = document.createElement("div");
  clone.className = "flying-card";
  clone.dataset.from = tag;
  clone.setAttribute("aria-hidden", "true");
  clone.innerHTML = cardHTML;
  Object.assign(clone.style, { left: `${to.left}px`, top: `${to.top}px`, width: `${to.width}px` });
  document.body.appendChild(clone);
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  const s = Math.max(0.3, Math.min(2, from.width / to.width));
  const anim = clone.animate(
    [
      { transform: `translate(${dx}px, ${dy}px) scale(${s}) rotate(${dx > 0 ? 6 : -6}deg)`, opacity: 0.95 },
      { transform: "none", opacity: 1 },
    ],
    { duration: FLIGHT_MS, easing: "cubic-bezier(.2, .8, .2, 1)" },
  );
  const done = () => clone.remove();
  anim.onfinish = done;
  anim.oncancel = done;
  return anim;
}

/**
 * A refused card springs back into its place in the hand: a short lift towards the piles and
 * a shake on the way back (a dimming and back under reduced motion).
 */
export function springBack(card) {
  if (!card) return null;
  const el = card.querySelector(".card-svg") || card;
  card.classList.add("springback");
  const frames = reduced()
    ? [{ opacity: 1 }, { opacity: 0.35 }, { opacity: 1 }]
    : [
      { transform: "translateY(-22px) scale(1.04)" },
      { transform: "translate(-6px, 0)", offset: 0.55 },
      { transform: "translate(5px, 0)", offset: 0.78 },
      { transform: "none" },
    ];
  const anim = el.animate(frames, { duration: SPRING_MS, easing: "ease-out" });
  const done = () => card.classList.remove("springback");
  anim.onfinish = done;
  anim.oncancel = done;
  return anim;
}
