// What a web result held, shown under the progress line while the assistant reads it
// (issue 30: the first quoted passage). Once an approved search or page read is in, the
// service ranks its passages and sends the few best as a progress event's `found`,
// before the model chooses which one the answer quotes. The Console shows them as
// quotes with their host, marked as found and not yet the answer, in the words the
// service said in the turn's language (English for a service that says none), and
// clears them when the answer arrives: the answer quotes the passage the model chose.
//
// Every passage is a page's words: shown as text (never parsed as Markdown or HTML, no
// link made of an address in it), a host shown as text, never a link. A passage that
// gave the assistant orders is never sent; the service says that a source gave some.

import { el } from "./dom.js";
import { saidText as said } from "./present.js";

/** The words above the passages, as the service's English says them (voice/around.py). */
export const FOUND_WORDS = {
  heading: "Found so far, not yet the answer",
  reading: "The assistant is reading these passages to choose the one that answers your " +
    "question; the answer quotes it.",
  instructions: "A source gave the assistant instructions: they are not shown here and " +
    "will be ignored.",
};

/** Most passages shown (the service sends at most the five it offers the model). */
export const MAX_FOUND = 5;

/**
 * The passages of a progress event's `found` that can be shown, in the order sent, at
 * most MAX_FOUND: [{text, host, source}], each text and host a non-empty string. A
 * malformed `found` or passage shows nothing of it.
 */
export function foundPassages(found) {
  const passages = found && Array.isArray(found.passages) ? found.passages : [];
  return passages
    .filter((p) => p && said(p.text) && said(p.host))
    .slice(0, MAX_FOUND)
    .map((p) => ({ text: p.text, host: p.host, source: Number(p.source) || null }));
}

/**
 * The words above the passages: {heading, reading, instructions}, each as the service
 * said it, else the English; `instructions` is null unless the service said a source
 * gave the assistant some.
 */
export function foundWords(found) {
  const words = found && typeof found === "object" ? found : {};
  return {
    heading: said(words.heading) || FOUND_WORDS.heading,
    reading: said(words.reading) || FOUND_WORDS.reading,
    instructions: "instructions" in words
      ? said(words.instructions) || FOUND_WORDS.instructions
      : null,
  };
}

/**
 * The passages found, in an element of their own (`element`, put under the progress
 * line): reset() when a turn starts, show(found) for each progress event's `found` (an
 * event without one changes nothing), answered() when the answer arrives or the turn
 * ends (they are taken away, and nothing more is shown until the next reset()).
 */
export class FoundPassages {
  constructor() {
    this.element = el("section", { className: "found", hidden: true });
    this.shown = null;
    this.over = false;
  }

  reset() {
    this.over = false;
    this.clear();
  }

  answered() {
    this.over = true;
    this.clear();
  }

  show(found) {
    if (this.over || found === undefined || found === null) return;
    const passages = foundPassages(found);
    const key = JSON.stringify([passages, found.heading, found.reading, found.instructions]);
    if (key === this.shown) return;  // every later event of the turn carries them again
    this.shown = key;
    if (!passages.length) {
      this.clear();
      return;
    }
    const words = foundWords(found);
    const heading = el("p", { className: "found-heading" }, words.heading);
    const items = passages.map((passage) => el("li", { className: "found-passage" },
      el("blockquote", { className: "found-quote" }, el("p", {}, passage.text)),
      el("p", { className: "found-host" }, `\u2014 ${passage.host}`)));
    const shown = [heading, el("p", { className: "found-reading" }, words.reading),
      el("ol", { className: "found-list" }, ...items)];
    if (words.instructions) {
      shown.push(el("p", { className: "found-instructions" }, words.instructions));
    }
    this.element.replaceChildren(...shown);
    this.element.setAttribute("aria-label", words.heading);
    this.element.hidden = false;
  }

  clear() {
    this.shown = null;
    this.element.replaceChildren();
    this.element.removeAttribute("aria-label");
    this.element.hidden = true;
  }
}
