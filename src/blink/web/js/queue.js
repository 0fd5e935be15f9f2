// Quick play against people: wait in the server's queue (the /api/queue WebSocket,
// docs/protocol.md) to be paired with someone near this browser's rating. The server sends
// the time waited and the counts ("queue"), offers a bot once after its wait ("bot_offer"),
// and names the room and seat once paired ("paired"); closing the socket leaves the queue.
// A lobby rebuilt at once (a change of language) takes the wait over (handOver, takeOver).
// The server speaks every second while one waits: a socket silent for LOST_MS (a network that
// dropped every packet, with no close) is dropped and the wait joined again.

import { LOST_MS, profileSecret } from "./net.js";

// Silent sockets in a row after which the wait fails (the server cannot be reached).
const MOST_LOST = 3;

const PROFILE_REFUSED = new Set(["no_such_profile", "already_queued"]);

/**
 * Wait in the queue for a game of `players` seats under `name`. Calls `status({waited,
 * online, waiting})`, `offer({waited})` once, `paired({code, seat, token, opponents})`,
 * `failed({code, message})`. Returns a function that stops waiting.
 */
let current = null; // the wait in progress: {handlers, state, stop, timer}

export function waitInQueue({ players, name, ...handlers }) {
  let ws = null;
  let stopped = false;
  let done = false;
  let lost = 0; // silent sockets in a row
  let watchdog = null;
  const wait = { handlers, state: { waited: 0, offered: false }, stop: null, timer: null };
  const h = (kind, msg) => { if (wait.handlers) wait.handlers[kind](msg); };

  function watch(socket, secret) {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => {
      if (stopped || done || ws !== socket) return;
      ws = null;
      socket.close();
      lost += 1;
      if (lost >= MOST_LOST) {
        done = true;
        current = null;
        h("failed", { code: "unreachable", message: "" });
        return;
      }
      open(secret);
    }, LOST_MS);
  }

  function open(secret) {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${proto}//${location.host}/api/queue`);
    ws = socket;
    watch(socket, secret);
    socket.onopen = () => {
      const join = { type: "join", players };
      if (name) join.name = name;
      if (secret) join.profile_secret = secret;
      socket.send(JSON.stringify(join));
    };
    socket.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      if (stopped || ws !== socket) return;
      lost = 0;
      watch(socket, secret);
      if (msg.type === "queue") {
        wait.state.waited = msg.waited;
        h("status", msg);
      } else if (msg.type === "bot_offer") {
        wait.state.offered = true;
        h("offer", msg);
      } else if (msg.type === "paired") {
        done = true;
        current = null;
        h("paired", msg);
      } else if (msg.type === "error") {
        done = true;
        // The profile cannot wait here (unknown, or waiting in another tab): wait as a guest.
        if (secret && PROFILE_REFUSED.has(msg.code)) {
          done = false;
          ws = null;
          socket.close();
          open(null);
          return;
        }
        current = null;
        h("failed", msg);
      }
    };
    socket.onclose = () => {
      if (stopped || done || ws !== socket) return;
      done = true;
      current = null;
      h("failed", { code: "unreachable", message: "" });
    };
  }

  open(profileSecret());
  wait.stop = () => {
    stopped = true;
    clearTimeout(watchdog);
    if (current === wait) current = null;
    if (ws && ws.readyState <= WebSocket.OPEN) ws.close(1000);
    ws = null;
  };
  current = wait;
  return wait.stop;
}

/** The lobby goes: its wait goes on only if another lobby takes it over at once. */
export function handOver() {
  const wait = current;
  if (!wait) return;
  wait.handlers = null;
  wait.timer = setTimeout(() => { if (!wait.handlers) wait.stop(); }, 0);
}

/**
 * A new lobby takes the wait in progress over with its own `handlers`: the wait's state
 * (`{waited, offered}`) and the function that stops it, or null when nothing waits.
 */
export function takeOver(handlers) {
  const wait = current;
  if (!wait || wait.handlers) return null;
  clearTimeout(wait.timer);
  wait.handlers = handlers;
  return { state: wait.state, stop: wait.stop };
}
