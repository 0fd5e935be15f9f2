// The server's protocol (docs/protocol.md, version 1): REST helpers and a WebSocket connection
// that reconnects by itself, resumes with game/last_seq, drops duplicate updates, asks for a
// resync on a gap, and measures latency with ping/pong.
//
// Assumptions beyond the written protocol (none needed for play):
// - "too slow" is not a server code: a play refused with no_common_attribute or
//   card_not_in_hand when the pile's top changed since the play was sent is shown as too slow.

export const PROTOCOL = 1;

/** An error answered by the REST API: `code` is machine-readable, `message` for people. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Requests that take a seat: they carry this browser's profile (if any) so the game is rated. */
const SEATING = /^\/api\/(quick|rooms|rooms\/[A-Za-z0-9]+\/join)$/;

function profileSecret() {
  try {
    const p = JSON.parse(localStorage.getItem("blink.profile") || "null");
    return p && typeof p.secret === "string" ? p.secret : null;
  } catch {
    return null;
  }
}

/**
 * Call the REST API; returns the parsed JSON body or throws ApiError. Seat-taking requests add
 * the browser's profile secret; if the server refuses the profile (unknown, or already seated in
 * that room, e.g. a second tab), the request is made again without it, as an anonymous seat.
 */
export async function api(path, body) {
  const secret = body && SEATING.test(path) && !("profile_secret" in body) ? profileSecret() : null;
  if (secret) {
    try {
      return await rawApi(path, { ...body, profile_secret: secret });
    } catch (e) {
      if (!(e instanceof ApiError) || !["no_such_profile", "profile_seated"].includes(e.code)) throw e;
    }
  }
  return rawApi(path, body);
}

async function rawApi(path, body) {
  const opts = body === undefined ? {} : {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  };
  let res;
  try {
    res = await fetch(path, opts);
  } catch (e) {
    throw new ApiError(0, "network", e.message || "network error");
  }
  let data = null;
  try { data = await res.json(); } catch { /* not JSON */ }
  if (!res.ok) {
    const err = (data && data.error) || {};
    throw new ApiError(res.status, err.code || `http_${res.status}`, err.message || res.statusText);
  }
  return data;
}

const FATAL = new Set([1000, 4000, 4003, 4004]);

/**
 * A WebSocket session for one room. `handlers.message(msg)` gets every in-order message;
 * `handlers.status({state, rtt, code})` hears about connecting/open/reconnecting/closed/latency.
 */
export class Connection {
  constructor({ room, token = null, spectate = false }, handlers) {
    this.room = room;
    this.token = token;
    this.spectate = spectate;
    this.h = handlers;
    this.game = null;
    this.seq = -1;
    this.ws = null;
    this.stopped = false;
    this.attempt = 0;
    this.rtt = null;
    this.pingTimer = null;
    this.retryTimer = null;
    this.outbox = [];
    this.counter = 0;
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}/ws`;
  }

  start() {
    this.stopped = false;
    this.open();
  }

  open() {
    clearTimeout(this.retryTimer);
    this.h.status({ state: this.attempt ? "reconnecting" : "connecting" });
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      const hello = { type: "hello", protocol: PROTOCOL, room: this.room };
      if (this.token) hello.token = this.token;
      else hello.spectate = true;
      if (this.game !== null && this.seq >= 0) {
        hello.game = this.game;
        hello.last_seq = this.seq;
      }
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      this.receive(msg);
    };
    ws.onclose = (ev) => {
      clearInterval(this.pingTimer);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      if (FATAL.has(ev.code)) {
        this.h.status({ state: "closed", code: ev.code });
        return;
      }
      this.retry();
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  retry() {
    if (this.stopped) return;
    this.attempt += 1;
    this.h.status({ state: "reconnecting" });
    const wait = Math.min(4000, 250 * 2 ** Math.min(this.attempt - 1, 4));
    this.retryTimer = setTimeout(() => this.open(), wait);
  }

  receive(msg) {
    switch (msg.type) {
      case "welcome":
        this.attempt = 0;
        this.h.status({ state: "open" });
        this.ping();
        clearInterval(this.pingTimer);
        this.pingTimer = setInterval(() => this.ping(), 2000);
        for (const m of this.outbox.splice(0)) this.send(m);
        break;
      case "snapshot":
        this.game = msg.game;
        this.seq = msg.seq;
        break;
      case "countdown":
        if (msg.game !== this.game) {
          this.game = msg.game;
          this.seq = msg.seq ?? 0;
        }
        break;
      case "update":
        if (msg.game !== this.game) {
          // An update of a game we hold no snapshot of: ask for one.
          this.send({ type: "resync" });
          return;
        }
        if (msg.seq <= this.seq) return; // already applied (resume overlap)
        if (msg.seq > this.seq + 1) {
          this.send({ type: "resync" });
          return;
        }
        this.seq = msg.seq;
        break;
      case "pong":
        if (typeof msg.t === "number") {
          this.rtt = Math.round(performance.now() - msg.t);
          this.h.status({ state: "open", rtt: this.rtt });
        }
        return;
      default:
        break;
    }
    this.h.message(msg);
  }

  ping() {
    this.send({ type: "ping", t: performance.now() }, false);
  }

  /** Send a message; queued while disconnected when `queue` is true. */
  send(msg, queue = true) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    if (queue && msg.type !== "ping") this.outbox.push(msg);
    return false;
  }

  nextId() {
    this.counter += 1;
    return `${Date.now().toString(36)}-${this.counter}`;
  }

  /** Drop the connection as if the network failed (used by tests and the reconnect path). */
  drop() {
    if (this.ws) this.ws.close(4999, "drop");
  }

  stop() {
    this.stopped = true;
    clearInterval(this.pingTimer);
    clearTimeout(this.retryTimer);
    if (this.ws) this.ws.close(1000);
    this.ws = null;
  }
}

// --- seats and history kept in the browser ---------------------------------------------------

/** The seat token for a room: per tab (sessionStorage), so two tabs can be two players. */
export function savedSeat(code) {
  try {
    const raw = sessionStorage.getItem(`blink.seat.${code}`);
    return raw ? JSON.parse(raw) : null;
  } catch {
    return null;
  }
}

export function saveSeat(code, seat) {
  try {
    sessionStorage.setItem(`blink.seat.${code}`, JSON.stringify(seat));
  } catch { /* ignore */ }
  remember({ code, kind: "seat", token: seat.token, seat: seat.seat });
}

export function forgetSeat(code) {
  try {
    sessionStorage.removeItem(`blink.seat.${code}`);
  } catch { /* ignore */ }
}

/** Recently played or watched rooms and games (localStorage), newest first. */
export function recent() {
  try {
    return JSON.parse(localStorage.getItem("blink.recent") || "[]");
  } catch {
    return [];
  }
}

export function remember(entry) {
  const list = recent().filter((e) => !(e.code === entry.code && e.game === entry.game));
  list.unshift({ ...entry, at: Date.now() });
  try {
    localStorage.setItem("blink.recent", JSON.stringify(list.slice(0, 30)));
  } catch { /* ignore */ }
}

/** A room code from a code, a /play/CODE or /watch/CODE link, or a ?join=CODE link. */
export function extractCode(text) {
  const s = String(text || "").trim();
  const m = s.match(/(?:\/play\/|\/watch\/|[?&](?:join|watch)=)([A-Za-z0-9]{4,12})/) || s.match(/^([A-Za-z0-9]{4,12})$/);
  return m ? m[1].toUpperCase() : null;
}
