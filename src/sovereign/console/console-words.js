// The Console's own words in the household's language (or, before sign-in, the
// browser's). Two kinds, both said by the service from its catalogs
// (service/console_words.py):
// - its chrome: the page holds each word in English on an element marked
//   data-word="key" (its text), data-word-label="key" (its aria-label) or
//   data-word-placeholder="key" (its placeholder); applyConsoleWords puts each one said
//   in place, marked with its language. A word not said is the page's English again, so
//   switching back to English restores the page.
// - the sentences the page writes at run time (RUN_TIME_WORDS below, English): say()
//   gives the one said last, its {placeholders} filled.

const ENGLISH_TEXT = new WeakMap();
const ENGLISH_LABEL = new WeakMap();
const ENGLISH_PLACEHOLDER = new WeakMap();

/**
 * The sentences the Console writes itself, by key, in English; {name} is filled by
 * say(); {one, other} are the forms for one and for several (chosen by values.n).
 * The service's English (RUN_TIME_WORDS in service/console_words.py) equals these.
 */
export const RUN_TIME_WORDS = {
  unreachable: "The appliance could not be reached. Check the connection and try again.",
  not_signed_in: "You are not signed in.",
  too_many_attempts: "Too many attempts. Wait a minute and try again.",
  service_problem: "The service had a problem. Try again in a moment.",
  not_accepted: "The request was not accepted.",
  stream_ended: "The answer stopped before it was complete.",
  stream_garbled: "The answer arrived garbled. Please ask again.",
  session_ended: "Your session ended. Sign in again to continue.",
  signed_out: "You are signed out.",
  unreachable_at_start: "The appliance could not be reached: {reason}",
  address_shared: "You opened the Console at {host}, an address other services on this device "
    + "share: their pages would receive the Console's sign-in cookie.",
  address_own_name: "Give the appliance a name of its own for the Console (sovereign serve "
    + "--allowed-host; see the README, \"Host names\").",
  address_open_instead: "Open it at its own address instead:",
  enter_password: "Enter the household password.",
  password_too_short: "The password needs at least {count} characters.",
  passwords_differ: "The two passwords are not the same.",
  pause_ends: "{message} The pause ends at {time}.",
  household_unread: "The language setting could not be read: {reason}",
  household_saved: "Saved: the Console is shown in {language}, and a question too short to "
    + "tell is answered in it.",
  private_words_unread: "The private words could not be read: {reason}",
  private_words_none: "No private words yet.",
  automatic: "Also checked automatically: {list}.",
  automatic_home_assistant: {
    one: "{n} Home Assistant entity",
    other: "{n} Home Assistant entities",
  },
  automatic_pihole: {
    one: "{n} Pi-hole local name",
    other: "{n} Pi-hole local names",
  },
  automatic_device_names: {
    one: "{n} name of this device and its network",
    other: "{n} names of this device and its network",
  },
  automatic_device_addresses: {
    one: "{n} address of this device",
    other: "{n} addresses of this device",
  },
  automatic_wifi: {
    one: "{n} Wi-Fi network name",
    other: "{n} Wi-Fi network names",
  },
  remove: "Remove",
  remove_item: "Remove {item}",
  sites_unread: "The site list could not be read: {reason}",
  sites_none: "No sites.",
  search_unread: "The search settings could not be read: {reason}",
  search_saved: "Saved: searches go in {language}, safe search {level}.",
  search_language_auto: "any language (the search service chooses)",
  search_language_all: "all languages",
  policy_unread: "The web search setting could not be read: {reason}",
  policy_not_on: "Web search could not be switched on; it is still off. {reason}",
  policy_not_off: "Web search could not be switched off; it is still on. {reason}",
  composer_count: "{count} of {limit} characters",
  too_long: {
    one: "Too long to send: the assistant reads at most {limit} characters at a time. "
      + "Shorten it by {n} character; nothing has been cut.",
    other: "Too long to send: the assistant reads at most {limit} characters at a time. "
      + "Shorten it by {n} characters; nothing has been cut.",
  },
  address_spaces: "An address cannot hold a space, so only the part before the first space "
    + "would be read. Written with %20 for each space it is {address}. {use} Or press Send "
    + "again to send it as typed.",
  use_encoded: "Use %20 instead",
  answer_first: "Answer the request above (or wait for the answer) first.",
  stop_failed: "The answer could not be stopped: {reason}",
  redirect_moved: "This page moved to {target}. Nothing was read from the new address.",
  redirect_fetch: "Ask to fetch the new address",
  activity_unread: "The activity could not be loaded: {reason}",
  activity_repairs: "For the device's owner",
  activity_repair: {
    one: "{capability} failed {n} time: {repair}",
    other: "{capability} failed {n} times: {repair}",
  },
  activity_none: "No capability was used in this period.",
  activity_capability: "Capability",
  activity_all: "All",
  activity_since: "Since {time}",
  activity_counts: "Counts per capability",
  activity_scroll: "The table is wider than the screen: scroll it sideways to see every column →",
  activity_proposed: "Suggested by the assistant",
  activity_confirmation_requested: "Put to you (edits again)",
  activity_flagged: "With a warning",
  activity_approved: "You approved",
  activity_edited: "You edited",
  activity_denied: "You denied",
  activity_expired: "Nobody answered",
  activity_executed: "Ran",
  activity_failed: "Failed",
  activity_failed_nothing_left: "Failed before leaving",
  activity_outcome_unknown: "Outcome unknown",
  activity_refused_by_policy: "Off by setting",
  activity_rejected_target: "Address blocked",
  activity_refused_other: "Refused otherwise",
  activity_waiting: "Waiting for your answer",
  activity_waiting_hint: "Asked in a conversation that is no longer open here. Approve it to "
    + "run it now, or deny it to withdraw it: nothing is sent.",
  activity_running: "Running it…",
  activity_withdrawing: "Withdrawing it…",
  activity_ran: "It ran.",
  activity_withdrawn: "Withdrawn: nothing was sent.",
  about_unread: "The About page could not be loaded: {reason}",
  about_model_here: "Your questions and the assistant's answers stay on this device: the language "
    + "model runs here.",
  about_model_server: "Your questions and the conversation so far go to the model server at "
    + "{host}, which this assistant was set up to use: they leave this device to be answered.",
  about_data: "Everything the assistant keeps, such as its settings, the password's hash and the "
    + "audit log, is in one folder on this device: {path}",
};

const current = { language: "en", runTime: {} };

function said(words, key) {
  const word = words && typeof words === "object" ? words[key] : null;
  return typeof word === "string" && word.trim() !== "" ? word : null;
}

/** The language the Console's own words are said in now (ISO 639-1). */
export function wordsLanguage() {
  return current.language;
}

/** The number `n` written the way the Console's language writes numbers ("8,000"). */
export function number(n) {
  return n.toLocaleString(current.language === "en" ? "en-GB" : current.language);
}

function template(key, values) {
  const english = RUN_TIME_WORDS[key];
  const given = current.runTime[key];
  if (typeof english === "string") return said(current.runTime, key) || english;
  const form = new Intl.PluralRules(current.language).select(Number(values.n)) === "one"
    ? "one" : "other";
  const word = given && typeof given === "object" ? said(given, form) : null;
  return word || english[form];
}

/**
 * The sentence `key` in the Console's language as a list of parts: its text, with each
 * {name} replaced by values[name]: a number written as the language writes it, anything
 * else as it is (a string, or an element to put in place). For a sentence with a form for
 * one and for several, values.n (a number) chooses.
 */
export function sayParts(key, values = {}) {
  return template(key, values).split(/(\{\w+\})/).filter((part) => part !== "")
    .map((part) => {
      const name = /^\{(\w+)\}$/.exec(part);
      if (!name || !(name[1] in values)) return part;
      const value = values[name[1]];
      return typeof value === "number" ? number(value) : value;
    });
}

/** The sentence `key` in the Console's language, each {name} filled with values[name]. */
export function say(key, values = {}) {
  return sayParts(key, values).map((part) => (part === null ? "" : String(part))).join("");
}

/**
 * Put the said words (`words`: {key: word}, in `language`) on every marked element under
 * `root`; an element whose word was not said shows its English and is marked "en".
 * `runTime` ({key: word}) is what say() says from now on (English for a key it lacks).
 */
export function applyConsoleWords(root, words, language, runTime = {}) {
  const lang = typeof language === "string" && /^[a-z]{2,3}$/.test(language) ? language : "en";
  current.language = lang;
  current.runTime = runTime && typeof runTime === "object" ? runTime : {};
  for (const element of root.querySelectorAll("[data-word]")) {
    if (!ENGLISH_TEXT.has(element)) ENGLISH_TEXT.set(element, element.textContent);
    const word = said(words, element.dataset.word);
    element.textContent = word || ENGLISH_TEXT.get(element);
    element.lang = word ? lang : "en";
  }
  for (const element of root.querySelectorAll("[data-word-label]")) {
    if (!ENGLISH_LABEL.has(element)) ENGLISH_LABEL.set(element, element.getAttribute("aria-label"));
    const word = said(words, element.dataset.wordLabel);
    element.setAttribute("aria-label", word || ENGLISH_LABEL.get(element));
  }
  for (const element of root.querySelectorAll("[data-word-placeholder]")) {
    if (!ENGLISH_PLACEHOLDER.has(element)) ENGLISH_PLACEHOLDER.set(element, element.placeholder);
    const word = said(words, element.dataset.wordPlaceholder);
    element.placeholder = word || ENGLISH_PLACEHOLDER.get(element);
  }
}

/** The English words the page holds, by key (what the service's English must equal). */
export function pageWords(root) {
  const words = {};
  for (const element of root.querySelectorAll("[data-word]")) {
    words[element.dataset.word] = (ENGLISH_TEXT.get(element) ?? element.textContent)
      .replace(/\s+/g, " ").trim();
  }
  for (const element of root.querySelectorAll("[data-word-label]")) {
    words[element.dataset.wordLabel] = ENGLISH_LABEL.get(element) ??
      element.getAttribute("aria-label");
  }
  for (const element of root.querySelectorAll("[data-word-placeholder]")) {
    words[element.dataset.wordPlaceholder] = ENGLISH_PLACEHOLDER.get(element) ??
      element.placeholder;
  }
  return words;
}
