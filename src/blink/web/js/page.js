// What every view shares with the page around it: going to another path without a reload, the
// screen-reader live regions, the connection status in the top bar. It imports no module, so
// any view may use it; app.js gives it the router.

let router = () => {};

/** Set the function that draws the view for the current URL (app.js does, once). */
export function setRouter(fn) {
  router = fn;
}

/** Go to a path inside the app without reloading. */
export function navigate(url) {
  history.pushState(null, "", url);
  router();
}

/** Announce a sentence to screen readers (polite or assertive). */
export function announce(text, assertive = false) {
  const el = document.getElementById(assertive ? "alert" : "live");
  el.textContent = "";
  requestAnimationFrame(() => { el.textContent = text; });
}

/** Show the connection status and latency, discreetly. */
export function netStatus(text, bad = false, title = "") {
  const el = document.getElementById("net");
  el.textContent = text;
  el.title = title;
  el.classList.toggle("bad", bad);
}
