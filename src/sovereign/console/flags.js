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
const WORD_ORIGINS = {
  from_a_result: "Before you approve: the marked words came from a page or search result, " +
    "not from you.",
  added_by_assistant: "Before you approve: the assistant added the marked words; you did " +
    "not write them.",
};
const HOUSEHOLD_DETAILS = "Before you approve: this may tell the search engines or the site " +
  "something about your household.";

/**
 * The card's warning titles for its flags, one per group present, in a fixed order:
 * household details (any other kind) first, then each kind in WORD_ORIGINS.
 */
export function flagTitles(flags) {
  const kinds = new Set((flags || []).map((flag) => flag.kind));
  const titles = [...kinds].some((kind) => !(kind in WORD_ORIGINS)) ? [HOUSEHOLD_DETAILS] : [];
  for (const [kind, title] of Object.entries(WORD_ORIGINS)) {
    if (kinds.has(kind)) titles.push(title);
  }
  return titles;
}

/** The sentence for one note: "“jane@example.com” looks like an e-mail address." */
export function flagSentence(note) {
  return `\u201c${note.text}\u201d ${note.reasons.join(" and ")}.`;
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
