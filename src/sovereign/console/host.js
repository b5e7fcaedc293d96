// The address the Console was opened at. Cookies are not kept apart by port, so
// at an address the device's other services share (127.0.0.1, localhost, a bare
// LAN address) their pages would receive the sign-in cookie. The page says so.

import { byId, el } from "./dom.js";

const CONSOLE_HOST = "sovereign.localhost";
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * The warning for a page opened at `hostname` (as in location.hostname) and
 * `port` (location.port): {text, url} where url is the Console's own address to
 * open instead (null when there is none to suggest), or null when the name is the
 * Console's own.
 */
export function sharedAddressWarning(hostname, port) {
  const shared = LOOPBACK.has(hostname) || IPV4.test(hostname) || hostname.startsWith("[");
  if (!shared) return null;
  const intro = `You opened the Console at ${hostname}, an address other services on this ` +
    "device share: their pages would receive the Console's sign-in cookie.";
  if (!LOOPBACK.has(hostname) && !hostname.startsWith("127.")) {
    return {
      text: `${intro} Give the appliance a name of its own for the Console ` +
        "(sovereign serve --allowed-host; see the README, \"Host names\").",
      url: null,
    };
  }
  const url = `http://${CONSOLE_HOST}${port ? `:${port}` : ""}/`;
  return { text: `${intro} Open it at its own address instead:`, url };
}

/** Show the warning for this page's own address in #host-notice, if there is one. */
export function showAddressWarning(location) {
  const warning = sharedAddressWarning(location.hostname, location.port);
  if (!warning) return;
  const notice = byId("host-notice");
  notice.replaceChildren(warning.text);
  if (warning.url) notice.append(" ", el("a", { href: warning.url }, warning.url));
  notice.hidden = false;
}
