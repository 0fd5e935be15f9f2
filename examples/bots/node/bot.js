// A Blink bot in JavaScript on Node, with nothing but a WebSocket (docs/bot-api.md).
//
//   node --experimental-websocket bot.js http://localhost:8000 TOKEN [GAMES] [OPPONENT]
//
// (Node 22 and later have WebSocket without the flag.) It makes a room against a house bot
// with its bot account's token, then plays GAMES games in it over protocol 1: it plays the
// first hand card that fits a pile (the view's "fits" says which), chooses its first card in
// a choosing stall, asks for a rematch after each series, and resumes after a drop.
"use strict";

const [server, token, gamesArg, opponent = "inhuman:first"] = process.argv.slice(2);
if (!server || !token) {
  console.error("usage: node bot.js SERVER TOKEN [GAMES] [OPPONENT]");
  process.exit(2);
}
if (typeof WebSocket !== "function") {
  console.error("this Node has no WebSocket: run it with --experimental-websocket (Node 20)");
  process.exit(2);
}
const games = Number(gamesArg || 1);
let ended = 0, game = null, seq = 0, ids = 0, drops = 0;

async function makeRoom() {
  const r = await fetch(`${server}/api/quick`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ bot: opponent }),
  });
  const body = await r.json();
  if (!r.ok) throw new Error(`${body.error.message} (${body.error.code})`);
  return body.code;
}

function act(ws, view) {
  const send = (m) => ws.send(JSON.stringify({ ...m, id: `js${++ids}` }));
  if (view.phase === "choosing" && view.my_choice === null && view.hand.length) {
    send({ type: "choose", card: view.hand[0] });
  } else if (view.phase === "playing") {
    const i = view.fits.findIndex((piles) => piles.length > 0);
    if (i >= 0) {
      const pile = view.fits[i][0];
      send({ type: "play", card: view.hand[i], pile, version: view.versions[pile] });
    }
  }
}

function connect(code) {
  const ws = new WebSocket(`${server.replace(/^http/, "ws")}/ws/${code}`);
  ws.onopen = () => {
    // The bot's token is its seat's token too (a browser's WebSocket cannot set headers).
    const hello = { type: "hello", protocol: 1, room: code, token };
    if (game !== null) Object.assign(hello, { game, last_seq: seq });
    ws.send(JSON.stringify(hello));
  };
  ws.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    drops = 0;
    if (msg.type === "error" && msg.code === "bad_bot_token") {
      console.error(msg.message);
      process.exit(1);
    }
    if (msg.type === "snapshot" || msg.type === "update") {
      game = msg.game;
      seq = msg.seq;
      if (msg.view && msg.view.seat !== null) act(ws, msg.view);
    } else if (msg.type === "game_end" && !msg.again) {
      ended += 1;
      if (ended >= games) {
        console.log(`played ${ended} games`);
        process.exit(0);
      }
      if (msg.series && msg.series.winner !== null) {
        ws.send(JSON.stringify({ type: "rematch", id: `js${++ids}` }));
      }
    }
  };
  ws.onclose = () => {
    if (++drops > 5) process.exit(1);
    setTimeout(() => connect(code), 200 * drops); // resume: hello with game and last_seq
  };
}

makeRoom().then(connect, (err) => {
  console.error(err.message);
  process.exit(2);
});
