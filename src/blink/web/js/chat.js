// Quick chat at a table (docs/protocol.md, "Quick chat"): one small button that opens the
// fixed phrases, sent by id, and each phrase heard shown in a bubble by the speaker's name for a
// few seconds. No free text. Any table can use it: it only needs where each seat's name is.
import { escapeXml } from "./cards.js";
import { t } from "./i18n.js";

export const PHRASES = ["good_game", "rematch", "well_played", "oops"];
const BUBBLE_MS = 4000;
// A speech bubble drawn in the text's colour: an emoji would need an emoji font, and without
// one it shows as an empty box.
const CHAT_ICON = '<svg class="qc-icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round"><path d="M2.5 3.5h11v7h-6l-3.5 3v-3h-1.5z"/><path d="M5 6.2h6M5 8.3h4" stroke-linecap="round"/></svg>';

/** One table's quick chat: `send(type, fields)` sends a frame. */
export function quickChat(send) {
  const said = new Map(); // seat -> { phrase, until }
  let open = false; // whether the phrases are shown
  return {
    /** The phrases, behind one small button (players only: spectators read the phrases). It
     * takes no room on the table: the phrases open over it, and stay open across redraws until
     * one is said or the button is pressed again. */
    barHTML(canSay) {
      if (!canSay) return "";
      const buttons = PHRASES.map((p) => `<button type="button" class="chip" data-chat="${p}">${escapeXml(t(`chat_${p}`))}</button>`);
      return `<details class="quickchat"${open ? " open" : ""}><summary class="chip" data-focus="chat">${CHAT_ICON}<span class="sr-only">${escapeXml(t("chat"))}</span></summary>` +
        `<div class="qc-menu" role="group" aria-label="${escapeXml(t("chat"))}">${buttons.join("")}</div></details>`;
    },
    /** A click on the table: true when it was a phrase (then sent). */
    click(target) {
      const summary = target.closest(".quickchat summary");
      if (summary) {
        open = !summary.parentElement.open; // the browser toggles it after this click
        return false;
      }
      const b = target.closest("[data-chat]");
      if (!b) return false;
      open = false;
      const menu = b.closest("details");
      if (menu) menu.open = false;
      send("chat", { phrase: b.dataset.chat });
      return true;
    },
    /** A `chat` frame: remember the phrase for a few seconds; its words for a screen reader. */
    heard(msg) {
      said.set(msg.seat, { phrase: msg.phrase, until: performance.now() + BUBBLE_MS });
      return t(`chat_${msg.phrase}`);
    },
    /** Put the bubbles after the names (`nameEl(seat)`: that seat's name element, or null). */
    place(root, nameEl) {
      for (const el of root.querySelectorAll(".chat-bubble")) el.remove();
      const now = performance.now();
      for (const [seat, s] of said) {
        const el = now < s.until ? nameEl(seat) : null;
        if (!el) continue;
        const bubble = document.createElement("span");
        bubble.className = "chat-bubble";
        bubble.dataset.seat = String(seat);
        bubble.textContent = t(`chat_${s.phrase}`);
        el.after(bubble);
      }
    },
    /** True once a shown bubble's time is over (the table draws itself again). */
    expired() {
      const now = performance.now();
      let gone = false;
      for (const [seat, s] of said) if (s.until <= now) { said.delete(seat); gone = true; }
      return gone;
    },
  };
}
