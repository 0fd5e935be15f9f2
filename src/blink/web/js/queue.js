// Quick play against people: wait in the server's queue (the /api/queue WebSocket,
// docs/protocol.md) to be paired with someone near this browser's rating. The server sends
// the time waited and the counts ("queue"), offers a bot once after its wait ("bot_offer"),
// and names the room and seat once paired ("paired"); closing the socket leaves the queue.

import { profileSecret } from "./net.js";

const PROFILE_REFUSED = new Set(["no_such_profile", "already_queued"]);

/**
 * Wait in the queue for a game of `players` seats under `name`. Calls `status({waited,
 * online, waiting})`, `offer({waited})` once, `paired({code, seat, token, opponents})`,
 * `failed({code, message})`. Returns a function that stops waiting.
 */
export function waitInQueue({ players, name, status, offer, paired, failed }) {
  let ws = null;
  let stopped = false;
  let done = false;

  function open(secret) {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${proto}//${location.host}/api/queue`);
    ws = socket;
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
      if (msg.type === "queue") status(msg);
      else if (msg.type === "bot_offer") offer(msg);
      else if (msg.type === "paired") {
        done = true;
        paired(msg);
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
        failed(msg);
      }
    };
    socket.onclose = () => {
      if (stopped || done || ws !== socket) return;
      done = true;
      failed({ code: "unreachable", message: "" });
    };
  }

  open(profileSecret());
  return () => {
    stopped = true;
    if (ws && ws.readyState <= WebSocket.OPEN) ws.close(1000);
    ws = null;
  };
}
