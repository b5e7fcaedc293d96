// The address the Console was opened at. Cookies are not kept apart by port, so
// at an address the device's other services share (127.0.0.1, localhost, a bare
// LAN address) their pages would receive the sign-in cookie. The page says so, in the
// browser's language: the page asks GET /auth/words before it shows anything else
// (console.js), the one place where the service negotiates Accept-Language with Babel
// against the product's six languages; a second table of translations in the page
// (chosen by navigator.languages) would be a second catalog to keep in step.

import { say, wordsLanguage } from "./console-words.js";
import { byId, el } from "./dom.js";

const CONSOLE_HOST = "sovereign.localhost";
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * The warning for a page opened at `hostname` (as in location.hostname) and
 * `port` (location.port), in the Console's language: {text, url} where url is the
 * Console's own address to open instead (null when there is none to suggest), or
 * null when the name is the Console's own.
 */
export function sharedAddressWarning(hostname, port) {
  const shared = LOOPBACK.has(hostname) || IPV4.test(hostname) || hostname.startsWith("[");
  if (!shared) return null;
  const intro = say("address_shared", { host: hostname });
  if (!LOOPBACK.has(hostname) && !hostname.startsWith("127.")) {
    return { text: `${intro} ${say("address_own_name")}`, url: null };
  }
  const url = `http://${CONSOLE_HOST}${port ? `:${port}` : ""}/`;
  return { text: `${intro} ${say("address_open_instead")}`, url };
}

/** Show the warning for this page's own address in #host-notice, if there is one. */
export function showAddressWarning(location) {
  const warning = sharedAddressWarning(location.hostname, location.port);
  if (!warning) return;
  const notice = byId("host-notice");
  notice.replaceChildren(warning.text);
  notice.lang = wordsLanguage();
  if (warning.url) notice.append(" ", el("a", { href: warning.url }, warning.url));
  notice.hidden = false;
}
