// The server's protocol (docs/protocol.md, version 1): REST helpers; a WebSocket connection to
// the room's own address (/ws/CODE) that reconnects by itself, resumes with game/last_seq, drops duplicate updates, asks for a
// resync on a gap, and measures latency with ping/pong; and a table's session (TableSession),
// which takes a seat by the room's code or watches, for both games' tables. Every frame sent
// is built by frame() or helloFrame().
//
// Assumptions beyond the written protocol: none needed for play ("too slow" is the server's
// own code, too_slow, for a play that names an older version of its pile).

export const PROTOCOL = 1;

/** A frame to send: `{type, ...fields}`. */
export function frame(type, fields = {}) {
  return { type, ...fields };
}

/** The first frame on a connection: a seat's token or a watcher, and where to resume. */
function helloFrame({ room, token, game, seq }) {
  const hello = frame("hello", { protocol: PROTOCOL, room });
  if (token) hello.token = token;
  else hello.spectate = true;
  if (game !== null && seq >= 0) {
    hello.game = game;
    hello.last_seq = seq;
  }
  return hello;
}

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

/** This browser's profile secret, or null (none kept). */
export function profileSecret() {
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

/**
 * One REST call. A room served by another node of a cluster right now (503 room_elsewhere,
 * while the room moves) changed nothing: the call is made again a few times, with backoff.
 */
async function rawApi(path, body) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await rawApiOnce(path, body);
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== "room_elsewhere" || attempt >= 5) throw e;
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
    }
  }
}

async function rawApiOnce(path, body) {
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

/**
 * The offset of the server's clock from this page's (performance.now), NTP-style: a pong says
 * the server's clock when it read the ping, which is taken as the middle of the round trip;
 * the sample with the shortest round trip of the last eight is kept (docs/protocol.md, "Ping").
 */
export class ClockOffset {
  constructor() {
    this.samples = [];
  }

  sample(sent, serverMs, received) {
    if (received < sent) return;
    this.samples.push({ rtt: received - sent, offset: serverMs - (sent + received) / 2 });
    if (this.samples.length > 8) this.samples.shift();
  }

  /** server - local in ms, or null before any pong. */
  get offset() {
    if (!this.samples.length) return null;
    return this.samples.reduce((a, b) => (b.rtt < a.rtt ? b : a)).offset;
  }

  /**
   * The local time (performance.now) of a moment the server announced: `at` on its clock when
   * known, else `inMs` from now.
   */
  deadline(at, inMs) {
    const offset = this.offset;
    if (typeof at === "number" && offset !== null) return at - offset;
    return performance.now() + (inMs || 0);
  }
}

// Closes that end the session; any other (a drop, 1013 "try again" while the room moves to
// another node of a cluster, 1012 a restart) reconnects with backoff.
const FATAL = new Set([1000, 4000, 4003, 4004, 4010]);

/** The heartbeat: a ping every PING_MS; a connection that has answered nothing for LOST_MS
 * after a frame that the server answers (its hello, a ping) is lost, though no close came (a
 * network gone silent, a server that stopped answering): it is dropped and made again. */
export const PING_MS = 2000;
export const LOST_MS = 8000;

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
    this.lag = null;
    this.clock = new ClockOffset();
    this.pingTimer = null;
    this.retryTimer = null;
    this.welcomed = false;
    this.unansweredSince = null; // when a frame the server answers went unanswered, else null
    this.outbox = [];
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}/ws/${encodeURIComponent(String(this.room).toUpperCase())}`;
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
      ws.send(JSON.stringify(helloFrame({ room: this.room, token: this.token, game: this.game, seq: this.seq })));
      this.welcomed = false;
      this.unansweredSince = performance.now();
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.beat(), PING_MS);
    };
    ws.onmessage = (ev) => {
      if (this.ws !== ws) return;
      this.unansweredSince = null;
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      this.receive(msg);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      clearInterval(this.pingTimer);
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

  /** One heartbeat: a lost connection is dropped; an open one is pinged. */
  beat() {
    if (this.unansweredSince !== null && performance.now() - this.unansweredSince >= LOST_MS) {
      this.lost();
      return;
    }
    if (this.welcomed) this.ping();
  }

  /** The connection answered nothing for LOST_MS: stop listening to it, close it (its close
   * may never come) and connect again, as after a drop. */
  lost() {
    const ws = this.ws;
    clearInterval(this.pingTimer);
    this.ws = null;
    this.unansweredSince = null;
    if (ws) {
      ws.onmessage = null;
      ws.onclose = null;
      try { ws.close(4998, "no answer"); } catch { /* closing already */ }
    }
    this.retry();
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
        this.welcomed = true;
        this.h.status({ state: "open" });
        this.ping();
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
          this.send(frame("resync"));
          return;
        }
        if (msg.seq <= this.seq) return; // already applied (resume overlap)
        if (msg.seq > this.seq + 1) {
          this.send(frame("resync"));
          return;
        }
        this.seq = msg.seq;
        break;
      case "pong": {
        const now = performance.now();
        if (typeof msg.probe === "number") {
          // The server measures the round trip itself: send its probe back at once.
          this.send(frame("ping", { t: performance.now(), echo: msg.probe }), false);
        }
        if (Array.isArray(msg.lag)) this.lag = msg.lag;
        if (typeof msg.t === "number" && typeof msg.server_ms === "number") {
          this.clock.sample(msg.t, msg.server_ms, now);
          this.rtt = Math.round(now - msg.t);
          this.h.status({ state: "open", rtt: this.rtt, lag: this.lag });
        }
        return;
      }
      default:
        break;
    }
    this.h.message(msg);
  }

  ping() {
    if (this.send(frame("ping", { t: performance.now() }), false) && this.unansweredSince === null) {
      this.unansweredSince = performance.now();
    }
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

// --- a table's session ---------------------------------------------------------------------

/**
 * A table's session with room `code`: a seat (this tab's saved token, else one taken with the
 * room's code) or a watcher, over a Connection that resumes after every drop. A saved token the
 * server refuses (bad_token, closed 4003) is forgotten and a seat asked for again, once.
 *
 * Handlers, all called by the session:
 * - message(msg): every in-order message (as Connection's);
 * - status({state, rtt, lag, code}): connecting, open (again with `rtt` and the server-measured
 *   `lag` of every seat on each pong), reconnecting,
 *   closed;
 * - reconnected(): open again after a drop, before its status: send again what is in flight,
 *   with the same ids (the server applies each id once and repeats its first answer);
 * - watching(err): no seat to take (the room is full or closed): watching instead;
 * - gone(): the room does not exist; a "closed" status follows.
 * `state` is what a table shows: "connecting" until first open, then open/reconnecting/closed.
 */
export class TableSession {
  constructor({ code, spectate }, handlers) {
    this.code = code;
    this.spectate = spectate;
    this.h = handlers;
    this.conn = null;
    this.state = "connecting";
    this.retried = false;
    this.stopped = false;
    this.counter = 0;
  }

  /** Whether a connection was made (frames sent now are sent or queued). */
  get live() {
    return this.conn !== null;
  }

  async start() {
    let token = null;
    if (!this.spectate) {
      try {
        token = await this.seatToken();
      } catch (e) {
        if (e.code === "no_such_room") {
          this.roomGone({ state: "closed" });
          return;
        }
        this.h.watching(e);
      }
    }
    if (this.stopped) return;
    this.conn = new Connection({ room: this.code, token, spectate: !token }, {
      message: (msg) => this.h.message(msg),
      status: (st) => this.onStatus(st, token),
    });
    window.blinkConnection = this.conn; // for tests and debugging
    this.conn.start();
  }

  async seatToken() {
    const saved = savedSeat(this.code);
    if (saved && saved.token) return saved.token;
    return (await joinByCode(this.code)).token;
  }

  onStatus(st, token) {
    if (st.state === "closed" && st.code === 4003 && token && !this.retried) {
      this.retried = true;
      this.state = "closed";
      forgetSeat(this.code);
      this.conn = null;
      this.start();
      return;
    }
    const wasReconnecting = this.state === "reconnecting";
    if (st.state !== "connecting") this.state = st.state;
    if (st.state === "closed" && (st.code === 4003 || st.code === 4004)) {
      this.roomGone(st);
      return;
    }
    if (st.state === "open" && wasReconnecting) this.h.reconnected();
    this.h.status(st);
  }

  roomGone(st) {
    this.state = "closed";
    this.h.gone();
    this.h.status(st);
  }

  /** The local time (performance.now) of a moment the server announced (see ClockOffset). */
  deadline(at, inMs) {
    if (!this.conn) return performance.now() + (inMs || 0);
    return this.conn.clock.deadline(at, inMs);
  }

  /** Send frame(type, fields); queued while the connection is down. */
  send(type, fields = {}) {
    if (!this.conn) return false;
    return this.conn.send(frame(type, fields));
  }

  /** A new id for a move (play, choose, ask, ...): unique in this tab. */
  nextId() {
    this.counter += 1;
    return `${Date.now().toString(36)}-${this.counter}`;
  }

  stop() {
    this.stopped = true;
    if (this.conn) this.conn.stop();
    if (window.blinkConnection === this.conn) window.blinkConnection = null;
  }
}

/** Take a seat in room `code` with its code, under this browser's last name, and keep it. */
export async function joinByCode(code) {
  let name = "";
  try { name = localStorage.getItem("blink.name") || ""; } catch { /* ignore */ }
  const res = await api(`/api/rooms/${code}/join`, name ? { name } : {});
  keepSeat(code, res);
  return res;
}

/** Keep the seat that a REST answer (join, quick game, new room) gave this tab in `code`. */
export function keepSeat(code, res) {
  saveSeat(code, { token: res.token, seat: res.seat });
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

/**
 * The file name a game's record downloads as: blink-CODE-N.json (its room's code and the game's
 * number), else blink-game-ID.json from its record URL, else blink-record.json.
 */
export function recordFileName(url, code, number) {
  const safe = (x) => String(x ?? "").replace(/[^A-Za-z0-9]+/g, "");
  const m = String(url || "").match(/^\/api\/games\/(\d+)\/record\/?(?:\?room=([A-Za-z0-9]+))?/);
  const room = safe(code) || (m && m[2] ? safe(m[2]) : "");
  if (room && safe(number)) return `blink-${room.toUpperCase()}-${safe(number)}.json`;
  if (m) return `blink-game-${m[1]}.json`;
  return "blink-record.json";
}

/** A room code from a code, a /play/CODE or /watch/CODE link, or a ?join=CODE link. */
export function extractCode(text) {
  const s = String(text || "").trim();
  const m = s.match(/(?:\/play\/|\/watch\/|[?&](?:join|watch)=)([A-Za-z0-9]{4,12})/) || s.match(/^([A-Za-z0-9]{4,12})$/);
  return m ? m[1].toUpperCase() : null;
}
