// Shared by the tournament and leaderboard pages: JSON requests and the player's profile kept
// by this browser (localStorage "blink.profile": {id, name, secret}; the secret is the seat
// token in rooms and tournaments, see docs/protocol.md).

/** The player's profile kept by this browser: {id, name, secret} or null. */
export function myProfile() {
  try {
    const raw = localStorage.getItem("blink.profile");
    return raw ? JSON.parse(raw) : null;
  } catch {
    return null;
  }
}

export async function ensureProfile(name) {
  const have = myProfile();
  if (have) return have;
  const p = await api("POST", "/api/profiles", { name });
  try { localStorage.setItem("blink.profile", JSON.stringify(p)); } catch { /* ignore */ }
  return p;
}

export async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body ? { "content-type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const msg = (data.error && data.error.message) || res.statusText;
    throw new Error(msg);
  }
  return data;
}

