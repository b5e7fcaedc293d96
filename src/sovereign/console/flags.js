// What the card says about the household-identifier flags of a pending request
// (pending_confirmation.flags, docs/decisions/household-identifiers.md), and the
// arguments an edit sends. Pure functions of plain data, unit-tested on their own.

// web.search's language and safesearch are the household's search settings (Settings >
// Search language and safe search, search-settings.js): shown on a card, never edited there.
const HOUSEHOLD_ARGUMENTS = new Set(["language", "safesearch"]);

/** The flags of one argument, as {start, end, reason} spans for argumentValue(). */
export function spansOf(flags, name) {
  return (flags || []).filter((flag) => flag.argument === name)
    .map(({ start, end, reason }) => ({ start, end, reason }));
}

/**
 * One line per flagged span, in order: {argument, text, reasons}. text is the
 * flagged characters exactly as the card shows them (code points of the value);
 * reasons are the plain phrases for that span ("looks like an e-mail address"),
 * each once. Spans that do not fit the value are left out.
 */
export function flagNotes(args, flags) {
  const notes = new Map();
  for (const flag of flags || []) {
    const value = args && args[flag.argument];
    if (typeof value !== "string") continue;
    const points = Array.from(value);
    if (!(flag.start >= 0 && flag.start < flag.end && flag.end <= points.length)) continue;
    const key = `${flag.argument}\u0000${flag.start}\u0000${flag.end}`;
    const note = notes.get(key) || {
      argument: flag.argument, text: points.slice(flag.start, flag.end).join(""), reasons: [],
      start: flag.start,
    };
    if (!note.reasons.includes(flag.reason)) note.reasons.push(flag.reason);
    notes.set(key, note);
  }
  return [...notes.values()].sort((a, b) => a.start - b.start)
    .map(({ argument, text, reasons }) => ({ argument, text, reasons }));
}

// Kinds of flags that say whose words these are rather than what they reveal: words a
// result of the turn wrote (conversation/approval/dictated.py) and words the household
// never wrote that the assistant left in (conversation/approval/added_words.py).
const WORD_ORIGINS = ["from_a_result", "added_by_assistant"];

/** The card's flag words in English, as the service says them in English (voice/card.py). */
export const ENGLISH_FLAG_WORDS = {
  flag_titles: {
    household: "Before you approve: this may tell the search engines or the site " +
      "something about your household.",
    from_a_result: "Before you approve: the marked words came from a page or search " +
      "result, not from you.",
    added_by_assistant: "Before you approve: the assistant added the marked words; you " +
      "did not write them.",
  },
  flag_note: "{flagged} {reasons}.",
  list: { 2: "{0} and {1}", start: "{0}, {1}", middle: "{0}, {1}", end: "{0}, and {1}" },
  quote: "\u201c{value}\u201d",
};

/**
 * The card's warning titles for its flags, one per group present, in a fixed order:
 * household details (any other kind) first, then each kind in WORD_ORIGINS; in the
 * card's words (words.flag_titles), English by default.
 */
export function flagTitles(flags, words = ENGLISH_FLAG_WORDS) {
  const kinds = new Set((flags || []).map((flag) => flag.kind));
  const groups = [...kinds].some((kind) => !WORD_ORIGINS.includes(kind)) ? ["household"] : [];
  groups.push(...WORD_ORIGINS.filter((kind) => kinds.has(kind)));
  return groups.map((group) => words.flag_titles[group] || ENGLISH_FLAG_WORDS.flag_titles[group]);
}

/** One {name} pattern filled with plain strings (nothing filled is read again). */
function fill(template, values) {
  return String(template).replace(/\{(\w+)\}/g,
    (whole, name) => (Object.hasOwn(values, name) ? values[name] : whole));
}

/**
 * `items` joined as the language joins a list (CLDR's patterns, sent with the card's
 * words as words.list): "a", "a and b", "a, b, and c"; "a und b" in German.
 */
export function listed(items, patterns = ENGLISH_FLAG_WORDS.list) {
  const pattern = (name) => (typeof patterns[name] === "string" ? patterns[name]
    : ENGLISH_FLAG_WORDS.list[name]);
  if (items.length < 2) return items.join("");
  if (items.length === 2) return fill(pattern("2"), { 0: items[0], 1: items[1] });
  let joined = fill(pattern("end"), { 0: items[items.length - 2], 1: items[items.length - 1] });
  for (let i = items.length - 3; i >= 1; i -= 1) joined = fill(pattern("middle"), { 0: items[i], 1: joined });
  return fill(pattern("start"), { 0: items[0], 1: joined });
}

/**
 * The sentence for one note in the card's words: "“jane@example.com” looks like an
 * e-mail address." The flagged text is quoted with the language's quote marks.
 */
export function flagSentence(note, words = ENGLISH_FLAG_WORDS) {
  const text = fill(words.quote || ENGLISH_FLAG_WORDS.quote, { value: note.text });
  return fill(words.flag_note || ENGLISH_FLAG_WORDS.flag_note,
    { flagged: text, reasons: listed(note.reasons, words.list || ENGLISH_FLAG_WORDS.list) });
}

/**
 * The flags with each reason in the card's words (words.flag_reasons, by kind), else as
 * the flag carries it (the service's English).
 */
export function saidFlags(flags, reasons = {}) {
  return (flags || []).map((flag) => {
    const said = reasons && typeof reasons[flag.kind] === "string" && reasons[flag.kind].trim()
      ? reasons[flag.kind] : flag.reason;
    return { ...flag, reason: said };
  });
}

/** The string arguments the household may edit, as [name, value] pairs. */
export function editableEntries(args) {
  return Object.entries(args || {})
    .filter(([name, value]) => typeof value === "string" && !HOUSEHOLD_ARGUMENTS.has(name));
}

/** The arguments an edit sends: the card's, with the edited strings put in. */
export function editedArguments(args, edits) {
  return { ...(args || {}), ...edits };
}
