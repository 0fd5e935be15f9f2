// The page the service worker shows when the server cannot be reached (sw.js): in the
// reader's language, with a button to try again, and it tries by itself once back online.
import { applyI18n, getLang } from "./i18n.js";

document.documentElement.lang = getLang();
applyI18n(document.body);
const retry = () => location.reload();
document.getElementById("offline-retry").addEventListener("click", retry);
window.addEventListener("online", retry);
