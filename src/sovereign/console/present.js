// What the Console says about a response: receipts, citations, the confirmation
// card's sentence and arguments, countdowns, errors and the activity table.
// Pure functions of plain data (no DOM, no network), so they are unit-tested
// on their own. Every string here is later put on the page with textContent. The
// Console's own sentences come from console-words.js, said in its language.

import { say } from "./console-words.js";

const SEARCH_ENGINES = "the search engines";
const PAGE_READ = "page read";
const REDIRECT_NOT_FOLLOWED = "redirect, not followed";
const REDIRECT_NOT_ALLOWED = "redirect to a site the household does not allow, not followed";
const SEARCH_SNIPPET = "search result snippet";
const SAFE_LINK_SCHEMES = new Set(["http:", "https:"]);

/** The host[:port] of an http(s) URL, or null for anything else or garbage. */
export function hostOf(url) {
  try {
    const parsed = new URL(url);
    return SAFE_LINK_SCHEMES.has(parsed.protocol) ? parsed.host : null;
  } catch {
    return null;
  }
}

/** The URL itself when it may be a link (http or https only), else null. */
export function safeLink(url) {
  return hostOf(url) === null ? null : url;
}

/**
 * Where an external capability sends data, in words.
 * web.search -> "the search engines"; web.fetch -> the host it connects to
 * (from its `url` argument), or "a web server" when the host is unknown.
 */
export function destinationOf(capability, args) {
  if (capability === "web.search") return SEARCH_ENGINES;
  if (capability === "web.fetch") return hostOf(args && args.url) || "a web server";
  return "a service outside this device";
}

/** What a card asks, in household words, and which arguments it shows in the open
 * (the rest, with the capability's own name, sit behind "Details"). */
const CARD_WORDS = {
  "web.search": { heading: "Search the web for", shown: ["query", "time_range"] },
  "web.fetch": { heading: "Read this page", shown: ["url", "start_index"] },
};

/**
 * The card's heading and the arguments it shows in the open, for `capability`:
 * {heading, shown: [name]}; a capability without household words shows every argument
 * under "Run this request".
 */
export function cardWords(capability, args) {
  const words = CARD_WORDS[capability];
  const names = Object.keys(args || {});
  if (!words) return { heading: "Run this request", shown: names };
  return { heading: words.heading, shown: names.filter((name) => words.shown.includes(name)) };
}

/**
 * The arguments as [name, literal text] pairs, in the order given. Strings are
 * shown verbatim (never trimmed or paraphrased); anything else as JSON.
 */
export function argumentEntries(args) {
  return Object.entries(args || {}).map(([name, value]) => [
    name,
    typeof value === "string" ? value : JSON.stringify(value),
  ]);
}

/** Whole seconds left as "m:ss" (never negative): 125 -> "2:05". */
export function formatCountdown(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  const minutes = Math.floor(whole / 60);
  return `${minutes}:${String(whole % 60).padStart(2, "0")}`;
}

const LEFT_OUTCOMES = new Set(["executed", "failed"]);
const NOTHING_SENT = {
  denied: "denied by you; nothing was sent",
  expired: "approval expired; nothing was sent",
  refused: "refused; nothing was sent",
  confirmation_required: "waiting for your approval; nothing sent yet",
};
const REFUSAL_REASONS = {
  POLICY_DISABLED: "switched off in the web search setting",
  FETCH_TARGET_REJECTED: "that address is not allowed",
  INVALID_ARGUMENTS: "the request was malformed",
  INVOCATION_LIMIT_REACHED: "too many calls in one answer",
  UNKNOWN_CAPABILITY: "no such capability",
  INVALID_CONFIRMATION: "the approval was not valid",
  NOT_ASKED: "not asked, since you denied the request before it",
  AUDIT_UNAVAILABLE: "the device could not keep its record of it",
  SITE_NOT_ALLOWED: "the household's site list does not allow that site",
};

/**
 * What the household calls each capability at the start of a receipt's line, in English
 * (the service's CAPABILITY_NAMES in conversation/voice/receipts.py, which says them in
 * the answer's language); a capability not named here is shown by its identifier.
 */
const CAPABILITY_NAMES = {
  "system.health": "This device's health",
  "web.search": "Web search",
  "web.fetch": "Reading a web page",
  "pihole.summary": "Ad blocker (Pi-hole)",
  "home_assistant.list_entities": "Device list (Home Assistant)",
  "home_assistant.get_state": "Device state (Home Assistant)",
};

/** The household's name for `capability` in English, or its identifier when it has none. */
function capabilityName(capability) {
  return Object.hasOwn(CAPABILITY_NAMES, capability) ? CAPABILITY_NAMES[capability] : capability;
}

/** Why a call failed before anything left (receipt `sent: false`), by capability. */
const NOT_SENT_WHY = {
  "web.search": "the device's search service is not running",
};
const NOT_SENT_OTHERWISE = "the connection failed before anything was sent";

/**
 * Receipts in words, in English: what the Console shows for an answer that carries no
 * receipt said by the product (see shownReceipt).
 *
 * receipts: [{capability, locality, outcome, error_code?, sent?}] from a response;
 *   `sent: false` on a failed call: it failed before anything left (the connection
 *   to the device's own service was refused), so it is no destination.
 * calls: [{capability, arguments}] the household approved in this turn, and
 *   citations from the response, used to name the host web.fetch reached.
 * Returns {stayedLocal, headline, lines}: stayedLocal is true only when no
 * external capability ran (or tried to run) in this answer; headline is
 * "Stayed on this device.", "Left this device: <destinations>." when a call
 * ran, or "May have left this device: <destinations>." when every call that
 * tried failed (a failure cannot tell whether the request got out before it
 * broke), or "Nothing left this device: <why>." when the only external calls
 * failed before anything was sent; lines has one sentence per receipt.
 */
export function receiptSummary(receipts, calls = [], citations = []) {
  const destinations = [];
  const notSent = [];
  let anyExecuted = false;
  const lines = (receipts || []).map((receipt) => {
    const { capability, outcome } = receipt;
    const called = capabilityName(capability);
    if (receipt.locality !== "external") {
      return `${called}: ${outcome === "executed" ? "ran on this device" : outcome}`;
    }
    if (outcome === "failed" && receipt.sent === false) {
      const why = NOT_SENT_WHY[capability] || NOT_SENT_OTHERWISE;
      if (!notSent.includes(why)) notSent.push(why);
      return `${called}: failed before anything left this device (${why})`;
    }
    if (outcome === "refused" && REFUSAL_REASONS[receipt.error_code]) {
      return `${called}: refused (${REFUSAL_REASONS[receipt.error_code]}); nothing was sent`;
    }
    if (!LEFT_OUTCOMES.has(outcome)) {
      return `${called}: ${NOTHING_SENT[outcome] || `${outcome}; nothing was sent`}`;
    }
    const where = destinationOf(capability, argumentsFor(capability, calls, citations));
    if (!destinations.includes(where)) destinations.push(where);
    if (outcome === "executed") anyExecuted = true;
    return outcome === "executed"
      ? `${called}: sent to ${where}`
      : `${called}: tried to reach ${where} and failed`;
  });
  const stayedLocal = destinations.length === 0;
  const left = anyExecuted ? "Left this device" : "May have left this device";
  const headline = !stayedLocal ? `${left}: ${destinations.join(", ")}.`
    : notSent.length ? `Nothing left this device: ${notSent.join("; ")}.`
      : "Stayed on this device.";
  return { stayedLocal, headline, lines };
}

/** What the receipt and the sources are called when the product said no name for them. */
const RECEIPT_LABEL = "Receipt";
const SOURCES_HEADING = "Sources";

/** A non-empty string as said by the product, else null. */
export function saidText(value) {
  return typeof value === "string" && value.trim() !== "" ? value : null;
}

/**
 * The receipt shown under an answer: {stayedLocal, headline, lines, label}.
 *
 * said: the receipt the product said in the answer's language (the wire's `receipt`:
 *   {headline, lines, stayed_local, label}), shown as said when it is well formed and
 *   agrees with the receipts it was said from (one line per receipt, the same verdict on
 *   whether anything left this device); its label (what the receipt is called, its
 *   accessible name) with it, "Receipt" when it names none.
 * Otherwise (a service or a kept answer that sends none, or one that disagrees), the
 * receipt is composed here in English by receiptSummary from receipts, calls and
 * citations, as before, and called "Receipt".
 */
export function shownReceipt(said, receipts, calls = [], citations = []) {
  const composed = receiptSummary(receipts, calls, citations);
  const wellFormed = said !== null && typeof said === "object" &&
    typeof said.headline === "string" && said.headline.trim() !== "" &&
    Array.isArray(said.lines) && said.lines.every((line) => typeof line === "string") &&
    typeof said.stayed_local === "boolean";
  if (!wellFormed || said.stayed_local !== composed.stayedLocal ||
    said.lines.length !== composed.lines.length) return { ...composed, label: RECEIPT_LABEL };
  return { stayedLocal: said.stayed_local, headline: said.headline, lines: [...said.lines],
    label: saidText(said.label) || RECEIPT_LABEL };
}

/**
 * sourcesHeading([{heading?}, …]) -> string: the heading of an answer's sources as the
 * product said it in the answer's language (the first citation's non-empty `heading`),
 * else "Sources".
 */
export function sourcesHeading(citations) {
  const said = (Array.isArray(citations) ? citations : [])
    .map((citation) => (citation ? saidText(citation.heading) : null)).find(Boolean);
  return said || SOURCES_HEADING;
}

/**
 * What the Console says when an answer's stream broke after the household
 * approved `capability` and a retry of the same approval brought back what the
 * appliance kept: whether the call ran, in words, from the kept receipts.
 * notes: the card's `approval_notes` ({ran, failed, not_run, lost}), said by the
 * product ahead in the turn's language; the note is the one for the kept outcome, in
 * English when the card carried none.
 */
export function recoveredNote(receipts, capability, notes = null) {
  const mine = (receipts || []).filter((receipt) => receipt.capability === capability);
  const outcome = mine.length ? mine[mine.length - 1].outcome : null;
  const kept = outcome === "executed" ? "ran" : outcome === "failed" ? "failed" : "not_run";
  const said = notes && typeof notes === "object" ? saidText(notes[kept]) : null;
  if (said) return said;
  const what = kept === "ran" ? "it ran"
    : kept === "failed" ? "it was tried and failed, so the request may have left"
      : "it did not run, so nothing was sent";
  return `The connection broke after you approved ${capability}; the appliance kept ` +
    `what happened: ${what}.`;
}

/**
 * What the Console says when, after a broken stream, the appliance could not say either:
 * the card's `approval_notes.lost` as the product said it, else in English.
 */
export function lostOutcomeNote(capability, notes = null) {
  const said = notes && typeof notes === "object" ? saidText(notes.lost) : null;
  if (said) return said;
  return `The connection broke after you approved ${capability}, and the appliance could ` +
    `not tell what happened. Whether ${capability} ran is unknown; Activity shows it once ` +
    "the appliance answers again (a call that started is listed even if its outcome is lost).";
}

function argumentsFor(capability, calls, citations) {
  const approved = calls.find((call) => call.capability === capability);
  if (approved) return approved.arguments;
  const cited = citations.find((citation) => citation.capability === capability);
  return cited ? { url: cited.url } : {};
}

/**
 * Citations as numbered entries, apart from the prose.
 *
 * Returns [{number, title, url, link, page, kind, snippet, redirectTarget}]:
 * page is true for a page that was read; kind is the citation's `kind` as the product
 * said it, else "page read" (web.fetch), "redirect, not followed" (a web.fetch answered
 * with a redirect: nothing was read) or "search result snippet" (web.search);
 * link is the URL only when it is http(s) (anything else is shown, not linked);
 * redirectTarget is set for a web.fetch that was answered with a redirect
 * (`redirected: true`, `final_url`), which the Console offers to fetch anew, unless
 * the household's site list does not allow its target (`redirect_allowed: false`).
 */
export function citationEntries(citations) {
  return (citations || []).map((citation, index) => ({
    number: index + 1,
    title: citation.title || citation.url || "(untitled)",
    url: citation.url || "",
    link: safeLink(citation.url),
    page: citation.capability === "web.fetch" && !citation.redirected,
    // what the source is, as the product said it in the answer's language, else in English
    kind: saidText(citation.kind) || (citation.capability !== "web.fetch" ? SEARCH_SNIPPET
      : !citation.redirected ? PAGE_READ
        : citation.redirect_allowed === false ? REDIRECT_NOT_ALLOWED : REDIRECT_NOT_FOLLOWED),
    // A web.fetch citation's snippet is its marker ("page read"): say it once, as the kind.
    snippet: citation.capability === "web.fetch" ? "" : citation.snippet || "",
    redirectTarget: citation.redirected && citation.redirect_allowed !== false
      ? safeLink(citation.final_url) : null,
  }));
}

/** The message a person reads for a failed request: the service's own sentence when given. */
export function describeFailure(status, body) {
  const error = body && body.error;
  if (error && typeof error.message === "string" && error.message) return error.message;
  if (status === 0) return say("unreachable");
  if (status === 401) return say("not_signed_in");
  if (status === 429) return say("too_many_attempts");
  if (status >= 500) return say("service_problem");
  return say("not_accepted");
}

/** The first-run setup token from a location hash like "#setup=abc", or null. */
export function setupTokenFromHash(hash) {
  const params = new URLSearchParams((hash || "").replace(/^#/, ""));
  const token = params.get("setup");
  return token ? token : null;
}

/** The message that asks for a redirect target to be fetched (a new, separately confirmed turn). */
export function fetchRequestMessage(url) {
  return `Please fetch this page: ${url}`;
}

// The counters of Activity's table, in its order; each column is headed by the Console's
// word "activity_<counter>" (console-words.js).
const AUDIT_COLUMNS = [
  "proposed", "confirmation_requested", "flagged", "approved", "edited", "denied", "expired",
  "executed", "failed", "failed_nothing_left", "outcome_unknown", "refused_by_policy",
  "rejected_target", "refused_other",
];

/** "1 call", "2 calls": a count with its noun in the right number. */
export function counted(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

/** "a", "a and b", "a, b, and c" (English's list pattern in CLDR, as the service says it). */
function listed(parts) {
  if (parts.length < 3) return parts.join(" and ");
  return `${parts.slice(0, -1).join(", ")}, and ${parts[parts.length - 1]}`;
}

/**
 * The audit summary told in sentences, for the top of Activity: what the assistant
 * suggested, what was put to the household and its answers, what ran, failed or was
 * refused. Counts are the summary's totals; a sentence whose counts are all 0 is left out.
 */
export function activitySentences(summary) {
  const t = (summary && summary.totals) || {};
  const n = (key) => Number(t[key]) || 0;
  const days = Number(summary && summary.days) || 0;
  const sentences = [`In the last ${counted(days, "day", "days")}, the assistant suggested ` +
    `${counted(n("proposed"), "request", "requests")}.`];
  if (n("confirmation_requested")) {
    const answers = [["approved", "approved"], ["edited", "edited"], ["denied", "denied"]]
      .filter(([key]) => n(key)).map(([key, word]) => `${word} ${n(key)}`);
    sentences.push(`${counted(n("confirmation_requested"), "request was", "requests were")} ` +
      "put to you for approval (an edited request is put to you again)" +
      (answers.length ? `: you ${listed(answers)}.` : "."));
  }
  if (n("expired")) {
    sentences.push(`${counted(n("expired"), "request", "requests")} went unanswered and ` +
      `expired: nothing was sent for ${n("expired") === 1 ? "it" : "them"}.`);
  }
  const ran = [];
  if (n("executed")) ran.push(`${n("executed")} ran`);
  if (n("failed")) {
    const before = n("failed_nothing_left");
    ran.push(`${n("failed")} failed` + (before ? ` (${before} before anything left ` +
      "this device)" : ""));
  }
  if (ran.length) sentences.push(`${listed(ran)}.`.replace(/^./, (c) => c.toUpperCase()));
  const refused = [["refused_by_policy", "because a setting was off"],
    ["rejected_target", "because the address is not allowed"],
    ["refused_other", "for another reason"]].filter(([key]) => n(key))
    .map(([key, why]) => `${n(key)} ${why}`);
  if (refused.length) sentences.push(`Not run: ${listed(refused)}.`);
  if (n("outcome_unknown")) sentences.push(`${counted(n("outcome_unknown"), "request", "requests")} ` +
    "started while the service stopped; whether it finished is unknown.");
  return sentences;
}


/**
 * Activity's sentences and notes as the product said them in the household's language
 * (the summary's `said`: {language, sentences, notes}), or null when they are not all
 * text, or the language is not a language code (the English ones are then composed here).
 */
export function saidActivity(said) {
  if (!said || typeof said !== "object") return null;
  const texts = (list) => Array.isArray(list) && list.every((line) => saidText(line));
  const { language, sentences, notes, repairs } = said;
  if (!(typeof language === "string" && /^[a-z]{2,3}$/.test(language))) return null;
  if (!texts(sentences) || !sentences.length || !texts(notes)) return null;
  const saidRepairs = texts(repairs) ? [...repairs] : null;
  return { language, sentences: [...sentences], notes: [...notes], repairs: saidRepairs };
}

/**
 * The audit summary (GET /api/v1/audit/summary) as a table.
 *
 * summary: {days, since, capabilities: {name: {counter: n}}, totals, may_have_left,
 * unreadable_lines, set_aside_lines, lost_records, clock_jumps}.
 * Returns {columns: [{key, label}], rows: [{capability, counts: [n]}], totals: [n],
 * since ("2026-01-01 00:00 UTC"), unreadableLines, notes: [sentence], sentences, language,
 * repairs: [line], repairsLanguage}: the sentences, notes and the owner's repairs as the
 * product said them (saidActivity; repairsLanguage is then their language), else in English
 * (the repairs by the Console's own words, each starting with the capability's English
 * household name, and repairsLanguage null); a counter the
 * summary lacks counts as 0. The notes say which calls may have left with their
 * outcome unknown, what waits for an answer, and whether the clock jumped.
 */
export function auditTable(summary) {
  const said = saidActivity(summary && summary.said);
  const columns = AUDIT_COLUMNS.map((key) => ({ key, label: say(`activity_${key}`) }));
  const countsOf = (counters) => columns.map(({ key }) => Number((counters || {})[key]) || 0);
  const capabilities = (summary && summary.capabilities) || {};
  return {
    columns,
    rows: Object.keys(capabilities).sort().map((capability) => ({
      capability,
      counts: countsOf(capabilities[capability]),
    })),
    totals: countsOf(summary && summary.totals),
    since: readableTime((summary && summary.since) || ""),
    unreadableLines: Number(summary && summary.unreadable_lines) || 0,
    notes: said ? said.notes : auditNotes(summary || {}),
    sentences: said ? said.sentences : activitySentences(summary || {}),
    language: said ? said.language : "en",
    repairs: said && said.repairs ? said.repairs : ((summary && summary.repairs) || [])
      .map((repair) => say("activity_repair", { capability: capabilityName(repair.capability),
        n: Number(repair.count) || 0, repair: repair.repair })),
    repairsLanguage: said && said.repairs ? said.language : null,
  };
}

function auditNotes(summary) {
  const count = (value) => Number(value) || 0;
  const notes = Object.entries(summary.may_have_left || {}).filter(([, n]) => count(n))
    .map(([name, n]) => `${capabilityName(name)}: ${counted(count(n), "call", "calls")} may ` +
      "have left — outcome unknown (the service stopped while " +
      `${count(n) === 1 ? "it" : "they"} ran).`);
  const waiting = count((summary.totals || {}).awaiting);
  if (waiting) {
    notes.push(`${counted(waiting, "approval request waits", "approval requests wait")} ` +
      "for an answer; a request expires 2 minutes after it was asked.");
  }
  if (count(summary.clock_jumps)) {
    const one = count(summary.clock_jumps) === 1;
    notes.push(`The device's clock jumped ${counted(count(summary.clock_jumps), "time",
      "times")}. Calls are ` +
      `placed by the time since the device started, so ${one ? "the jump moves" : "the jumps move"} ` +
      "none of them in or out of this period.");
  }
  if (count(summary.set_aside_lines)) {
    notes.push(`${counted(count(summary.set_aside_lines), "damaged line", "damaged lines")} of ` +
      "the audit log set aside in audit.jsonl.corrupt.");
  }
  if (count(summary.unreadable_lines)) {
    notes.push(`${counted(count(summary.unreadable_lines), "line", "lines")} of the audit log ` +
      "could not be read.");
  }
  if (count(summary.lost_records)) {
    const one = count(summary.lost_records) === 1;
    notes.push(`${counted(count(summary.lost_records), "record", "records")} of the audit log ` +
      `lost while the device could not write ${one ? "it" : "them"} (its storage was full or ` +
      `read-only); the counts above miss ${one ? "it" : "them"}.`);
  }
  return notes;
}

/** "2026-01-01T09:05:00Z" -> "2026-01-01 09:05 UTC"; anything else is returned as given. */
export function readableTime(iso) {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?Z$/.exec(iso);
  return match ? `${match[1]} ${match[2]} UTC` : iso;
}

/** What the service accepts as `history` (routes/conversation.py, body_limit.py). */
export const HISTORY_LIMITS = { entries: 100, chars: 32000, bytes: 200 * 1024 };

/**
 * The most recent history that fits the service's limits: at most `entries`
 * entries, each entry's content cut to `chars` characters (ending in "…"), and
 * the whole JSON at most `bytes` bytes of UTF-8 (room is left for the new
 * message under the service's 256 KiB body limit). Oldest entries go first.
 * history: [{role, content}]; returns a new array, the input is not changed.
 */
export function historyToSend(history, limits = HISTORY_LIMITS) {
  const capped = (history || []).slice(-limits.entries).map(({ role, content }) => ({
    role,
    content: content.length > limits.chars ? `${cutAt(content, limits.chars - 1)}…` : content,
  }));
  const encoder = new TextEncoder();
  while (capped.length && encoder.encode(JSON.stringify(capped)).length > limits.bytes) {
    capped.shift();
  }
  return capped;
}

/** The first `length` UTF-16 units of `text`, one fewer rather than half a surrogate pair. */
function cutAt(text, length) {
  const last = text.charCodeAt(length - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length);
}

/** The longest message the service accepts, in characters (routes/conversation.py). */
export const MAX_MESSAGE_CHARS = 8000;

/**
 * What the composer says about a message's length: `count` ("7,950 of 8,000
 * characters") once it is near the limit, else null; `problem` (a sentence) when it
 * is over, else null. Characters are code points, as the service counts them; a
 * message is never cut: one that is too long is refused until it is shortened.
 */
export function messageLength(text, limit = MAX_MESSAGE_CHARS) {
  const length = [...(text || "").trim()].length;
  const count = length >= limit * 0.9 ? say("composer_count", { count: length, limit }) : null;
  const over = length - limit;
  const problem = over > 0 ? say("too_long", { limit, n: over }) : null;
  return { length, count, problem };
}

const ADDRESS = /https?:\/\/\S+/gi;
const LOOKS_LIKE_PATH = /\/|\.[A-Za-z0-9]{1,5}$/;

/**
 * An address in `text` that seems to go on after a space ("https://a.example/my
 * page.html"): an address cannot hold a space, so the assistant would read only the
 * part before it. Returns {typed, encoded} (the spaces as %20), or null. A word after
 * the space counts as part of the address when it holds "/" or ends like a file name;
 * the household decides (docs/decisions/console-household-words.md).
 */
export function spacedAddress(text) {
  for (const match of String(text || "").matchAll(ADDRESS)) {
    let typed = match[0];
    let rest = text.slice(match.index + typed.length);
    let next;
    while ((next = /^ (\S+)/.exec(rest)) && LOOKS_LIKE_PATH.test(next[1])) {
      typed += next[0];
      rest = rest.slice(next[0].length);
    }
    if (typed !== match[0]) return { typed, encoded: typed.replaceAll(" ", "%20") };
  }
  return null;
}

/**
 * A sign-in refusal with the time its pause ends, in the reader's own clock:
 * "… paused for 16 seconds. The pause ends at 10:32:05." (just the message when
 * there is no pause). `now` is a Date (tests pass a fixed one).
 */
export function pauseSentence(message, seconds, now = new Date()) {
  if (!(seconds > 0)) return message;
  const ends = new Date(now.getTime() + seconds * 1000);
  const time = ends.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit",
    second: "2-digit", hourCycle: "h23" });
  return say("pause_ends", { message, time });
}
