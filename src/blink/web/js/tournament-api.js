// Shared by the tournament and leaderboard pages: JSON requests and the player's profile kept
// by this browser (localStorage "blink.profile": {id, name, secret}; the secret is the seat
// token in rooms and tournaments, see docs/protocol.md).
import { hasT, t } from "./i18n.js";

/** The player's profile kept by this browser: {id, name, secret} or null. */
export function myProfile() {
  try {
    const raw = localStorage.getItem("blink.profile");
    return raw ? JSON.parse(raw) : null;
  } catch {
    return null;
  }
}

/** A refusal in the page's language: its code's sentence, else the server's, as an error. */
export function errorText(err) {
  const key = err && err.code ? `e_${String(err.code).replace(/-/g, "_")}` : "";
  return key && hasT(key) ? t(key) : t("error", { msg: (err && err.message) || String(err) });
}

/** This browser's profile, made (POST /api/profiles) with `name` if it has none yet. */
export async function ensureProfile(name) {
  const have = myProfile();
  if (have) return have;
  const p = await api("POST", "/api/profiles", { name });
  try {
    localStorage.setItem("blink.profile", JSON.stringify(p));
    // The name the lobby and a room's link seat the player with, unless one was typed there.
    if (!localStorage.getItem("blink.name")) localStorage.setItem("blink.name", p.name);
  } catch { /* ignore */ }
  return p;
}

/** A JSON request; a refusal throws an Error with the server's `code` and message. */
export async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body ? { "content-type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const msg = (data.error && data.error.message) || res.statusText;
    const err = new Error(msg);
    err.code = data.error && data.error.code;
    throw err;
  }
  return data;
}

