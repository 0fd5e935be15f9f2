// The table's keys, which the player may rebind: each action (play the card in slot 1, 2
// or 3; the left or right pile) has its keys, kept in localStorage ("blink.keys"). A key
// already bound to another action is refused with a sentence saying which; a reset brings the
// defaults back. The settings panel is a <dialog> of its own (outside the table, which redraws
// itself), opened from the table's key hint.
import { t } from "./i18n.js";
import { escapeXml } from "./cards.js";

const STORE = "blink.keys";
export const ACTIONS = ["slot0", "slot1", "slot2", "left", "right"];
const DEFAULTS = { slot0: ["1", "j"], slot1: ["2", "k"], slot2: ["3", "l"], left: ["ArrowLeft", "a"], right: ["ArrowRight", "d"] };
const ARROWS = { ArrowLeft: "←", ArrowRight: "→", ArrowUp: "↑", ArrowDown: "↓" };

/** A key event's name as bindings store it (a letter in lower case; arrows by name). */
export function keyName(e) {
  return e.key.length === 1 ? e.key.toLowerCase() : e.key;
}

function usable(k) {
  return (k.length === 1 && /[\p{L}\p{N}\p{P}\p{S}]/u.test(k)) || k in ARROWS;
}

/** The bindings now: each action's keys (the defaults unless the player rebound it). */
export function bindings() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(STORE) || "{}") || {}; } catch { saved = {}; }
  const out = {};
  for (const a of ACTIONS) {
    const keys = Array.isArray(saved[a]) ? saved[a].filter((k) => typeof k === "string" && usable(k)) : [];
    out[a] = keys.length ? keys : DEFAULTS[a];
  }
  return out;
}

export function isDefault() {
  const b = bindings();
  return ACTIONS.every((a) => b[a].join() === DEFAULTS[a].join());
}

/** The action bound to key name `k` (null: none). */
export function actionOf(k) {
  const b = bindings();
  return ACTIONS.find((a) => b[a].includes(k)) || null;
}

/** A key's name for people. */
export function keyLabel(k) {
  return ARROWS[k] || (k.length === 1 ? k.toUpperCase() : k);
}

export function actionLabel(a) {
  if (a === "left") return t("key_left");
  if (a === "right") return t("key_right");
  return t("key_slot", { n: Number(a.slice(4)) + 1 });
}

/** Bind `k` to `action` alone; the refusal's sentence when it cannot be, else null. */
export function rebind(action, k) {
  if (!usable(k)) return t("key_bad");
  const other = actionOf(k);
  if (other && other !== action) return t("key_taken", { key: keyLabel(k), what: actionLabel(other) });
  const b = bindings();
  b[action] = [k];
  try { localStorage.setItem(STORE, JSON.stringify(b)); } catch { /* kept for this page only */ }
  return null;
}

export function resetKeys() {
  try { localStorage.removeItem(STORE); } catch { /* ignore */ }
}

/** The key hint under the table, in the reader's language, from the bindings. */
export function keyHint() {
  if (isDefault()) return t("key_hint");
  const b = bindings();
  const names = (a) => b[a].map(keyLabel).join("/");
  return t("key_hint_custom", { slots: ["slot0", "slot1", "slot2"].map(names).join(" "), left: names("left"), right: names("right") });
}

/** Open the key settings (a modal dialog); `changed()` is called after each change. */
export function openKeys(changed) {
  let dlg = document.getElementById("keys-dialog");
  if (!dlg) {
    dlg = document.createElement("dialog");
    dlg.id = "keys-dialog";
    dlg.className = "keys-dialog panel";
    dlg.setAttribute("aria-labelledby", "keys-title");
    document.body.appendChild(dlg);
  }
  let waiting = null; // the action waiting for its new key
  let note = "";
  let noteKind = "";
  const draw = () => {
    const b = bindings();
    dlg.innerHTML = `<h2 id="keys-title">${escapeXml(t("keys_title"))}</h2>
      <p class="muted">${escapeXml(t("keys_help"))}</p>
      <table class="keys-table"><tbody>${ACTIONS.map((a) => `<tr><th scope="row">${escapeXml(actionLabel(a))}</th>
        <td><button type="button" class="key-bind" data-action="${a}"${waiting === a ? ' aria-pressed="true"' : ""}>${escapeXml(waiting === a ? t("key_press") : b[a].map(keyLabel).join(" · "))}</button></td></tr>`).join("")}</tbody></table>
      <p id="keys-note" class="${noteKind}" role="status">${escapeXml(note)}</p>
      <div class="row"><button type="button" id="keys-reset">${escapeXml(t("keys_reset"))}</button>
      <button type="button" class="primary" id="keys-close">${escapeXml(t("keys_close"))}</button></div>`;
    if (waiting) dlg.querySelector(`[data-action="${waiting}"]`).focus();
  };
  dlg.onclick = (e) => {
    const bind = e.target.closest(".key-bind");
    if (bind) {
      waiting = bind.dataset.action;
      note = "";
      draw();
    } else if (e.target.closest("#keys-reset")) {
      resetKeys();
      waiting = null;
      note = "";
      draw();
      changed();
    } else if (e.target.closest("#keys-close")) {
      dlg.close();
    }
  };
  dlg.onkeydown = (e) => {
    if (!waiting || e.key === "Tab" || e.key === "Shift" || e.ctrlKey || e.metaKey || e.altKey) return;
    e.preventDefault();
    e.stopPropagation();
    if (e.key === "Escape") {
      waiting = null;
      note = "";
      draw();
      return;
    }
    const refused = rebind(waiting, keyName(e));
    if (refused) {
      note = refused;
      noteKind = "error-msg";
    } else {
      note = t("keys_saved");
      noteKind = "muted";
      waiting = null;
      changed();
    }
    draw();
  };
  // A key bound on the dialog must not reach the table (its listener is on the document).
  dlg.onclose = () => { waiting = null; changed(); };
  draw();
  if (!dlg.open) dlg.showModal();
}
