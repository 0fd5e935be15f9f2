// Links to players' pages (/@/NAME, player.html): the leaderboard, a room's seats, tournament
// brackets and replays name a profile's player with one; a guest or a house bot has no page, so
// those name them as text.

/** The address of the page of the player called `name`. */
export function playerHref(name) {
  return `/@/${encodeURIComponent(name)}`;
}

/** A link to `name`'s page, reading `text` (the name itself by default). */
export function playerLink(name, text = name) {
  const a = document.createElement("a");
  a.href = playerHref(name);
  a.className = "player-link";
  a.textContent = text;
  return a;
}
