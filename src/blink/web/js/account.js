// Accounts in the browser (docs/protocol.md, "Accounts"): the top bar's account button and its
// dialog: sign up (a new profile, or this browser's own profile kept with its games and
// rating), log in, log in with a recovery code, "forgot your password?" (a reset mail, when
// the server sends mail), and once logged in the sessions, "log out everywhere else", the
// mail address, the account's data, logging out and deleting the account. A reset mail's link
// (/#reset=TOKEN) opens the dialog on a new password form.
//
// The session itself is an HttpOnly cookie no script reads. What the pages play with is the
// profile kept in localStorage ("blink.profile": {id, name, secret}, as before accounts): a
// login writes the account's profile there, and "blink.account" (the profile's id) says this
// browser logged in, so that only then is GET /api/me asked (a guest's pages ask nothing). A
// session ended elsewhere takes the account's profile off this browser at the next page.
// Its words are strings-account.js's.

import { t } from "./i18n.js";

const PROFILE = "blink.profile";
const ACCOUNT = "blink.account";

let me = null; // GET /api/me's answer while logged in

function read(key) {
  try { return JSON.parse(localStorage.getItem(key) || "null"); } catch { return null; }
}

function write(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify(value));
  } catch { /* ignore */ }
}

/** A JSON request with the session's cookie; a refusal throws an Error with its `code`. */
async function call(method, path, body) {
  const res = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body ? { "content-type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = res.status === 204 ? {} : await res.json().catch(() => ({}));
  if (!res.ok) {
    const err = new Error((data.error && data.error.message) || res.statusText);
    err.code = data.error && data.error.code;
    throw err;
  }
  return data;
}

function errorWords(e) {
  const key = e.code ? `e_${e.code}` : "";
  const said = key ? t(key) : "";
  return said && said !== key ? said : e.message;
}

/** The account's profile becomes this browser's (a login, a sign-up, a new secret). */
function keep(profile) {
  write(PROFILE, profile);
  write(ACCOUNT, profile.id);
  try { localStorage.setItem("blink.name", profile.name); } catch { /* ignore */ }
}

/** Logged out (here or elsewhere): the account's profile leaves this browser. */
function forget() {
  const id = read(ACCOUNT);
  const p = read(PROFILE);
  if (p && p.id === id) write(PROFILE, null);
  write(ACCOUNT, null);
  me = null;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  node.append(...children);
  return node;
}

function field(name, label, type = "text", auto = null) {
  const input = el("input", { name, type, required: true, autocomplete: auto, id: `acc-${name}` });
  return el("p", {}, el("label", { for: `acc-${name}`, text: label }), " ", input);
}

function dialog() {
  let dlg = document.getElementById("account-dialog");
  if (!dlg) {
    dlg = el("dialog", { id: "account-dialog", class: "keys-dialog panel", "aria-labelledby": "acc-title" });
    document.body.appendChild(dlg);
  }
  return dlg;
}

/** A form whose submit calls `act(FormData)`; a refusal is said in its status line. */
function form(id, children, submit, act, kind = "primary") {
  const status = el("p", { class: "error-msg", role: "status" });
  const f = el("form", { id }, ...children, status, el("button", { type: "submit", class: kind, text: submit }));
  f.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    status.textContent = "";
    try {
      await act(new FormData(f));
    } catch (e) {
      status.textContent = t("acc_failed", { msg: errorWords(e) });
    }
  });
  return f;
}

function signUpForm() {
  const mine = read(PROFILE);
  const claimable = mine && typeof mine.secret === "string" ? mine : null;
  const name = field("name", t("acc_name"), "text", "username");
  const claim = claimable
    ? el("p", {}, el("label", {}, el("input", { type: "checkbox", name: "claim", checked: true, id: "acc-claim" }), " ", t("acc_claim", { name: claimable.name })))
    : null;
  const showName = () => {
    const on = !(claim && claim.querySelector("input").checked);
    name.hidden = !on;
    name.querySelector("input").required = on;
  };
  if (claim) claim.querySelector("input").addEventListener("change", showName);
  showName();
  return form("acc-signup", [claim || "", name, field("password", t("acc_password"), "password", "new-password")], t("acc_make"), async (data) => {
    const body = { password: data.get("password") };
    if (claimable && data.get("claim")) body.profile_secret = claimable.secret;
    else body.name = data.get("name");
    const made = await call("POST", "/api/accounts", body);
    keep(made.profile);
    showCodes(made.recovery_codes);
  });
}

function logInForm() {
  return form("acc-login", [field("name", t("acc_name"), "text", "username"), field("password", t("acc_password"), "password", "current-password")], t("acc_enter"), async (data) => {
    const got = await call("POST", "/api/session", { name: data.get("name"), password: data.get("password") });
    keep(got.profile);
    location.reload();
  });
}

function recoverForm() {
  return form("acc-recover", [field("name", t("acc_name"), "text", "username"), field("code", t("acc_code"), "text", "off"), field("password", t("acc_new_password"), "password", "new-password")], t("acc_use_code"), async (data) => {
    const got = await call("POST", "/api/session/recover", { name: data.get("name"), code: data.get("code"), password: data.get("password") });
    keep(got.profile);
    location.reload();
  });
}

function forgotForm() {
  const sent = el("p", { role: "status", id: "acc-reset-sent" });
  const f = form("acc-forgot", [el("p", { class: "muted", text: t("acc_forgot_help") }), field("who", t("acc_name_or_email"), "text", "username")], t("acc_send_reset"), async (data) => {
    const who = String(data.get("who") || "").trim();
    sent.textContent = "";
    await call("POST", "/api/password-reset", who.includes("@") ? { email: who } : { name: who });
    sent.textContent = t("acc_reset_sent");
  });
  f.append(sent);
  return f;
}

/** The page a reset mail's link opens (/#reset=TOKEN): a new password, then the new codes. */
function showReset(token) {
  const dlg = dialog();
  if (!dlg.open) dlg.showModal();
  const f = form("acc-reset", [el("p", { class: "muted", text: t("acc_reset_help") }), field("password", t("acc_new_password"), "password", "new-password")], t("acc_set_password"), async (data) => {
    const done = await call("POST", "/api/password-reset/confirm", { token, password: data.get("password") });
    forget();
    showCodes(done.recovery_codes, t("acc_reset_done"));
  });
  dlg.replaceChildren(el("h2", { id: "acc-title", text: t("acc_reset_title") }), f, el("div", { class: "row" }, closeButton(dlg)));
  f.querySelector("input").focus();
}

function emailForm() {
  const saved = el("p", { role: "status", id: "acc-email-saved" });
  const input = field("email", t("acc_email"), "email", "email");
  input.querySelector("input").required = false;
  input.querySelector("input").value = me.email || "";
  const f = form("acc-email", [input, el("p", { class: "muted", text: t("acc_email_help") }), field("password", t("acc_password"), "password", "current-password")], t("acc_save_email"), async (data) => {
    saved.textContent = "";
    const got = await call("PUT", "/api/me/email", { email: data.get("email") || "", password: data.get("password") });
    me.email = got.email;
    f.querySelector("input[name=password]").value = "";
    saved.textContent = t("acc_email_saved");
  });
  f.append(saved);
  return f;
}

function closeButton(dlg) {
  const b = el("button", { type: "button", id: "acc-close", text: t("acc_close") });
  b.addEventListener("click", () => dlg.close());
  return b;
}

function showLoggedOut(which = "signup") {
  const dlg = dialog();
  const tabs = [["signup", "acc_sign_up", signUpForm], ["login", "acc_log_in", logInForm], ["recover", "acc_recover", recoverForm], ["forgot", "acc_forgot", forgotForm]];
  const bar = el("div", { class: "row", role: "group" });
  for (const [id, label] of tabs) {
    const b = el("button", { type: "button", id: `acc-tab-${id}`, "aria-pressed": String(id === which), text: t(label) });
    b.addEventListener("click", () => showLoggedOut(id));
    bar.append(b);
  }
  const current = tabs.find(([id]) => id === which)[2]();
  dlg.replaceChildren(el("h2", { id: "acc-title", text: t("acc_title") }), el("p", { class: "muted", text: t("acc_intro") }), bar, current, el("div", { class: "row" }, closeButton(dlg)));
  const first = current.querySelector("input:not([type=checkbox]):not([hidden])");
  if (first && !first.closest("[hidden]")) first.focus();
}

function showCodes(codes, help = t("acc_codes_help")) {
  const dlg = dialog();
  const done = el("button", { type: "button", class: "primary", id: "acc-codes-done", text: t("acc_codes_done") });
  done.addEventListener("click", () => location.reload());
  dlg.replaceChildren(
    el("h2", { id: "acc-title", text: t("acc_codes_title") }),
    el("p", { text: help }),
    el("ul", { id: "acc-codes", class: "codes" }, ...codes.map((c) => el("li", {}, el("code", { text: c })))),
    el("div", { class: "row" }, done),
  );
  done.focus();
}

function when(seconds) {
  return new Date(seconds * 1000).toLocaleString(document.documentElement.lang || undefined);
}

async function showLoggedIn() {
  const dlg = dialog();
  const note = el("p", { role: "status", id: "acc-note" });
  const list = el("ul", { id: "acc-sessions" });
  const { sessions } = await call("GET", "/api/me/sessions");
  for (const s of sessions) {
    const line = el("li", { "data-id": s.id }, `${s.agent || "?"} · ${t("acc_seen", { when: when(s.seen_at) })}`);
    if (s.current) line.append(` · ${t("acc_this_device")}`);
    else {
      const end = el("button", { type: "button", class: "acc-end", text: t("acc_end_session") });
      end.addEventListener("click", async () => { await call("DELETE", `/api/me/sessions/${encodeURIComponent(s.id)}`); line.remove(); });
      line.append(" ", end);
    }
    list.append(line);
  }
  const others = el("button", { type: "button", id: "acc-end-others", text: t("acc_end_others") });
  others.addEventListener("click", async () => {
    const got = await call("POST", "/api/me/sessions/end-others");
    keep(got.profile);
    for (const li of [...list.children]) if (li.querySelector(".acc-end")) li.remove();
    note.textContent = t("acc_ended_others");
  });
  const out = el("button", { type: "button", id: "acc-logout", text: t("acc_log_out") });
  out.addEventListener("click", async () => { await call("DELETE", "/api/session"); forget(); location.reload(); });
  const remove = form("acc-delete", [el("p", { class: "muted", text: t("acc_delete_help") }), field("password", t("acc_password"), "password", "current-password")], t("acc_delete"), async (data) => {
    await call("DELETE", "/api/me", { password: data.get("password") });
    forget();
    location.reload();
  }, "danger");
  dlg.replaceChildren(
    el("h2", { id: "acc-title", text: t("acc_title") }),
    el("p", { id: "acc-who", text: t("acc_logged_in", { name: me.name }) }),
    el("p", { class: "muted", text: t("acc_codes_left", { n: me.recovery_codes_left }) }),
    el("h3", { text: t("acc_sessions") }), list, note,
    el("div", { class: "row" }, others, el("a", { class: "btn", href: "/api/me/export", download: "blink-account.json", id: "acc-export", text: t("acc_export") }), out),
    emailForm(),
    remove,
    el("div", { class: "row" }, closeButton(dlg)),
  );
}

async function open() {
  const dlg = dialog();
  if (!dlg.open) dlg.showModal();
  if (me) await showLoggedIn();
  else showLoggedOut();
}

function label(button) {
  button.textContent = me ? me.name : t("acc_button");
  button.title = me ? t("acc_logged_in", { name: me.name }) : t("acc_title");
}

/** Add the account button to the top bar, and find out whether this browser is logged in. */
export async function setupAccount() {
  const settings = document.querySelector(".topbar .settings");
  if (!settings || document.getElementById("btn-account")) return;
  const button = el("button", { type: "button", id: "btn-account", class: "ghost" });
  button.addEventListener("click", () => { open().catch(() => {}); });
  settings.prepend(button);
  label(button);
  if (read(ACCOUNT)) {
    try {
      me = await call("GET", "/api/me");
      keep(me.profile); // a new secret (logged out everywhere else from another device)
    } catch (e) {
      if (e.code === "not_logged_in") forget();
    }
  }
  label(button);
  button.dataset.ready = "1";
  openReset();
  window.addEventListener("hashchange", openReset);
}

/** A reset mail's link (/#reset=TOKEN) opens the new password form. */
function openReset() {
  const reset = /^#reset=([A-Za-z0-9_-]{1,100})$/.exec(location.hash);
  if (!reset) return;
  history.replaceState(null, "", location.pathname + location.search); // the token leaves the address bar
  showReset(reset[1]);
}

/** The top bar's account button after a change of language. */
export function relabelAccount() {
  const button = document.getElementById("btn-account");
  if (button) label(button);
}
