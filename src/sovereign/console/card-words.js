// The confirmation card's words and the notes of its decision, as the product said them
// in the turn's language (pending_confirmation.words, conversation/voice/card.py), each
// in English when the service said none. The arguments themselves are never words of
// ours: they are filled into the words verbatim.

import { ENGLISH_MARKS } from "./argument.js";
import { el } from "./dom.js";
import { ENGLISH_FLAG_WORDS } from "./flags.js";
import { cardWords, destinationOf, saidText as said } from "./present.js";
import { searchSettingsPhrase } from "./search-settings.js";

const ENGLISH = {
  title: "Approve this request?",
  change: "Change",
  details: "Details",
  expires: "Expires in {time}",
  expired: "This request expired, so nothing was sent. Ask again if you still want it.",
  ask_again: "Ask again",
  reason_label: "Reason for denying (optional)",
  deny: "Deny",
  edit: "Edit",
  approve: "Approve",
  approve_anyway: "Approve anyway",
  edit_hint: "Change what will be sent. The appliance checks your version again; if it " +
    "still needs a look, you get a new card for it.",
  send_edit: "Send edited request",
  sending: "Sending…",
  cancel: "Cancel",
  capability: "Capability {capability}, version {version}",
  quote: "“{value}”",
};
const TITLE_EDITED = "Approve your edited request?";
const LABELS = { query: "Words", time_range: "Time window", url: "Address",
  start_index: "From character" };
const WINDOWS = { day: "from the last day", week: "from the last week",
  month: "from the last month", year: "from the last year" };
const SENTENCES = {
  "web.search": "Approving sends this exact query outside this device, to the search engines.",
  "web.fetch": "Approving connects outside this device, to {host}, and reads the page at " +
    "this exact address.",
};
const NOTES = {
  approved: "You approved: {request}.",
  denied: "You denied: {request}.",
  denied_reason: "You denied: {request}. Your reason: “{reason}”",
  expired: "Nobody answered in time, so nothing was sent for the request to {request}.",
  edited: "You sent an edited request to {request}.",
  abandoned: "Your session ended before you answered, so nothing was sent for the request " +
    "to {request}.",
};
const EDIT_FIELDS = { query: "Edit query", url: "Edit url", time_range: "Edit time_range" };

function saidMap(value) {
  return value && typeof value === "object" && !Array.isArray(value) ? value : {};
}

function englishRequest(capability, args) {
  const has = (name) => Object.hasOwn(args || {}, name);
  if (capability === "web.search") {
    return has("time_range") ? "search the web for {query}, {time_range}"
      : "search the web for {query}";
  }
  if (capability === "web.fetch") {
    return has("start_index") ? "read this page {url} from character {start_index}"
      : "read this page {url}";
  }
  return `run ${capability}: {arguments}`;
}

/**
 * The card's words in English, as the service says them in English (the fallback for
 * each word the product did not say): the same shape as pending_confirmation.words.
 */
export function englishCardWords(pending) {
  const { capability, arguments: args = {} } = pending;
  const phrase = searchSettingsPhrase(capability, args);
  const request = englishRequest(capability, args);
  const names = Object.keys(args || {});
  return {
    ...ENGLISH,
    title: pending.edited ? TITLE_EDITED : ENGLISH.title,
    heading: cardWords(capability, args).heading,
    labels: Object.fromEntries(names.filter((n) => LABELS[n]).map((n) => [n, LABELS[n]])),
    windows: { ...WINDOWS },
    sentence: SENTENCES[capability] ||
      `Approving sends these exact arguments outside this device, to ${capability}.`,
    settings: phrase ? `Searched ${phrase} (your search settings).` : null,
    edit_fields: Object.fromEntries(names.filter((n) => typeof args[n] === "string")
      .map((n) => [n, EDIT_FIELDS[n] || `Edit ${n}`])),
    request,
    notes: Object.fromEntries(Object.entries(NOTES).map(([k, v]) =>
      [k, v.replace("{request}", request)])),
    flag_titles: { ...ENGLISH_FLAG_WORDS.flag_titles },
    // Each flag carries its reason in the service's English.
    flag_reasons: Object.fromEntries((Array.isArray(pending.flags) ? pending.flags : [])
      .filter((flag) => flag && typeof flag.reason === "string")
      .map((flag) => [flag.kind, flag.reason])),
    flag_note: ENGLISH_FLAG_WORDS.flag_note,
    list: { ...ENGLISH_FLAG_WORDS.list },
    marks: { ...ENGLISH_MARKS },
  };
}

/**
 * The words a card shows: each as the product said it on pending.words, else its
 * English (englishCardWords). Maps (labels, windows, edit_fields, notes) fall back per
 * entry; `settings` is the said line when the product said one, else the English one.
 */
export function shownCardWords(pending) {
  const english = englishCardWords(pending);
  const words = saidMap(pending.words);
  const shown = {};
  for (const [key, value] of Object.entries(english)) {
    if (value !== null && typeof value === "object") {
      const mine = saidMap(words[key]);
      shown[key] = Object.fromEntries(Object.entries(value).map(([name, text]) =>
        [name, said(mine[name]) || text]));
    } else {
      shown[key] = said(words[key]) || value;
    }
  }
  return shown;
}

/**
 * `template` with each {name} replaced by values[name] (a string or a DOM node; a name
 * without a value stays as written), as a list of parts for el(). Values are put in as
 * given, never read again for placeholders.
 */
export function filled(template, values) {
  const parts = [];
  let at = 0;
  for (const match of String(template).matchAll(/\{(\w+)\}/g)) {
    if (!Object.hasOwn(values, match[1])) continue;
    parts.push(template.slice(at, match.index), values[match[1]]);
    at = match.index + match[0].length;
  }
  parts.push(template.slice(at));
  return parts.filter((part) => part !== "");
}

/** filled() joined into one string (every value a string). */
export function filledText(template, values) {
  return filled(template, values).join("");
}

/** The card's sentence on what leaves and where to, with the host it connects to. */
export function leavingSentence(words, pending) {
  return filledText(words.sentence,
    { host: destinationOf(pending.capability, pending.arguments) });
}

/**
 * The note a decision leaves in the conversation (decision: approved, denied, expired,
 * edited, abandoned), in the card's words: its request with each shown argument quoted
 * verbatim in a span (a time window said as a window), and a denial's reason quoted as
 * typed. `args` are what was sent (an edit's own). Returns the parts for el().
 */
export function decisionParts(words, pending, decision, reason = "", args = pending.arguments) {
  const key = decision === "denied" && reason ? "denied_reason" : decision;
  const sent = args || {};
  const quoted = (value) => el("span", { className: "decision-argument" },
    filledText(words.quote, { value: typeof value === "string" ? value : JSON.stringify(value) }));
  const values = Object.fromEntries(Object.entries(sent).map(([name, value]) => [name,
    name === "time_range" && words.windows[value] ? words.windows[value] : quoted(value)]));
  values.arguments = Object.values(sent).map(quoted).flatMap((node, i) => (i ? [", ", node] : [node]));
  const template = (words.notes[key] || words.notes[decision]);
  return filled(template, { ...values, reason }).flat();
}
