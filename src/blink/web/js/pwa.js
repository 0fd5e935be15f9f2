// Installing the site as an app: registers the service worker (/sw.js, served by the server
// with the app shell's version key; see docs/architecture.md "The installable app"). Every page
// imports this module; a browser without service workers (or a page not served over HTTPS or
// from localhost) simply goes on without one.
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => { /* no offline page then */ });
}
