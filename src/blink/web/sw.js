// The service worker: the app shell (the pages, styles, scripts and icons) kept in a cache
// named by its version key, so the site opens at once and installs on a phone's home screen;
// an offline page when the server cannot be reached. The server serves this file at /sw.js
// with VERSION and SHELL filled in (blink.server.routes.web). API calls and the game's
// WebSocket are never cached: they always go to the network.
const VERSION = "__VERSION__";
const SHELL = __SHELL__;
const CACHE = `blink-shell-${VERSION}`;
const OFFLINE = "/offline.html";

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith("blink-shell-") && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

/** Never from the cache: the API, the event streams, the WebSocket, the docs and records. */
function live(url) {
  return url.origin !== self.location.origin || /^\/(api|ws|docs|redoc|openapi\.json|sw\.js)(\/|$)/.test(url.pathname);
}

self.addEventListener("fetch", (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== "GET" || live(url)) return; // the network's, untouched
  if (req.mode === "navigate") {
    // A page: the network first (a room's link must reach the server), the offline page
    // when it cannot be reached.
    event.respondWith(fetch(req).catch(() => caches.match(OFFLINE, { cacheName: CACHE })));
    return;
  }
  // The shell's files: from the cache, else the network.
  event.respondWith(caches.match(req, { cacheName: CACHE }).then((hit) => hit || fetch(req)));
});
