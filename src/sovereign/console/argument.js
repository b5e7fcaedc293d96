// One argument of a confirmation card, shown so that two different values never look
// the same (docs/decisions/visible-arguments.md): monospace, every space that a reader
// could miss marked, anything invisible shown as its code point, wrapped but never
// cut, and a URL in full with its host emphasised (an IDN host also as Unicode).
// The split functions are pure (unit-tested); argumentValue() builds the DOM.

import { el } from "./dom.js";

// A leading or trailing space, or one of a run of two or more.
const MARKED_SPACE = /^ +| +$| {2,}/g;
// Characters the service refuses anyway; shown as "U+XXXX" should one ever arrive.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|[^\S ]/u;

/**
 * Split text into runs: {kind: "text"|"space"|"invisible", text}. "space" runs are
 * spaces a reader could miss (leading, trailing, repeated); "invisible" runs hold one
 * code point that has no glyph. Joining every run's text gives the input back.
 */
export function visibleRuns(text) {
  const runs = [];
  let rest = String(text);
  let at = 0;
  for (const match of rest.matchAll(MARKED_SPACE)) {
    pushText(runs, rest.slice(at, match.index));
    runs.push({ kind: "space", text: match[0] });
    at = match.index + match[0].length;
  }
  pushText(runs, rest.slice(at));
  return runs;
}

function pushText(runs, text) {
  let plain = "";
  for (const character of text) {
    if (INVISIBLE.test(character)) {
      if (plain) runs.push({ kind: "text", text: plain });
      runs.push({ kind: "invisible", text: character });
      plain = "";
    } else {
      plain += character;
    }
  }
  if (plain) runs.push({ kind: "text", text: plain });
}

/** "U+200B" for one code point. */
export function codePointLabel(character) {
  return `U+${character.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * An http(s) URL as {before, host, after, unicodeHost}: the URL's exact text split
 * around its host (nothing re-encoded), and the host in Unicode when it has an
 * xn-- label (else null). null when the text is not an http(s) URL.
 */
export function urlParts(url) {
  const match = /^(https?:\/\/)(\[[^\]]*\]|[^/?#:@]*)(.*)$/is.exec(String(url));
  if (!match) return null;
  const [, before, host, after] = match;
  const unicodeHost = /(^|\.)xn--/i.test(host) ? hostToUnicode(host) : null;
  return { before, host, after, unicodeHost };
}

/** A host with its xn-- labels decoded (RFC 3492); a label that fails stays as is. */
export function hostToUnicode(host) {
  return host.split(".").map((label) => {
    if (!/^xn--/i.test(label)) return label;
    try {
      return decodePunycode(label.slice(4).toLowerCase());
    } catch {
      return label;
    }
  }).join(".");
}

// RFC 3492 §6.2 with its bootstring parameters for IDNA.
const BASE = 36, TMIN = 1, TMAX = 26, SKEW = 38, DAMP = 700, INITIAL_BIAS = 72, INITIAL_N = 128;

function adapt(delta, points, first) {
  delta = first ? Math.floor(delta / DAMP) : delta >> 1;
  delta += Math.floor(delta / points);
  let k = 0;
  for (; delta > ((BASE - TMIN) * TMAX) >> 1; k += BASE) delta = Math.floor(delta / (BASE - TMIN));
  return k + Math.floor(((BASE - TMIN + 1) * delta) / (delta + SKEW));
}

function digit(character) {
  const code = character.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 22; // 0-9 -> 26-35
  if (code >= 97 && code <= 122) return code - 97; // a-z -> 0-25
  throw new Error("bad punycode digit");
}

/** Decode the part of a label after "xn--"; throws on malformed input. */
export function decodePunycode(input) {
  const cut = input.lastIndexOf("-");
  const output = cut > 0 ? [...input.slice(0, cut)].map((c) => c.codePointAt(0)) : [];
  let n = INITIAL_N, bias = INITIAL_BIAS, i = 0;
  for (let at = cut > 0 ? cut + 1 : 0; at < input.length;) {
    const oldI = i;
    for (let w = 1, k = BASE; ; k += BASE) {
      if (at >= input.length) throw new Error("truncated punycode");
      const d = digit(input[at++]);
      i += d * w;
      const t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
      if (d < t) break;
      w *= BASE - t;
    }
    bias = adapt(i - oldI, output.length + 1, oldI === 0);
    n += Math.floor(i / (output.length + 1));
    i %= output.length + 1;
    if (n > 0x10ffff) throw new Error("punycode out of range");
    output.splice(i++, 0, n);
  }
  return String.fromCodePoint(...output);
}

/**
 * Split text into {text, flag} pieces at the flagged spans. spans: [{start, end,
 * reason}] in code points of the whole value; offset: where text starts in it.
 * flag is the reasons of the spans covering the piece (joined), or "". Joining the
 * pieces gives the text back.
 */
export function flaggedPieces(text, spans = [], offset = 0) {
  const points = Array.from(String(text));
  const cuts = new Set([0, points.length]);
  for (const span of spans) {
    for (const at of [span.start - offset, span.end - offset]) {
      if (at > 0 && at < points.length) cuts.add(at);
    }
  }
  const ordered = [...cuts].sort((a, b) => a - b);
  const pieces = [];
  for (let i = 0; i + 1 < ordered.length; i += 1) {
    const [from, to] = [ordered[i], ordered[i + 1]];
    const covering = spans.filter((s) => s.start - offset <= from && to <= s.end - offset);
    const reasons = [...new Set(covering.map((s) => s.reason))];
    pieces.push({ text: points.slice(from, to).join(""), flag: reasons.join("; ") });
  }
  return pieces;
}

/** The marks' words in English, as the service says them (voice/card.py, words.marks). */
export const ENGLISH_MARKS = {
  space_one: "{n} space",
  space_other: "{n} spaces",
  invisible: "invisible character",
  idn: "Host in Unicode: {unicode} (as sent: {host})",
};

/** The mark's words: as said (marks[name], text), else English. */
function markWords(marks, name) {
  const said = marks && marks[name];
  return typeof said === "string" && said.trim() ? said : ENGLISH_MARKS[name];
}

/** "2 spaces": the label of a run of `count` spaces in the card's words. */
export function spacesLabel(count, marks = ENGLISH_MARKS) {
  return markWords(marks, count === 1 ? "space_one" : "space_other")
    .replace("{n}", String(count));
}

/**
 * The argument's value as a monospace block (see the module comment). spans:
 * household-identifier flags [{start, end, reason}] (code points), each shown as a
 * highlighted mark whose title is its reason. marks: the words of the marks (a run of
 * spaces, an invisible character, an IDN host) as the card says them, English by default.
 */
export function argumentValue(value, spans = [], marks = ENGLISH_MARKS) {
  const block = el("code", { className: "argument-value" });
  const parts = urlParts(value);
  if (!parts) {
    appendFlagged(block, value, spans, 0, marks);
    return block;
  }
  const hostAt = Array.from(parts.before).length;
  const afterAt = hostAt + Array.from(parts.host).length;
  appendFlagged(block, parts.before, spans, 0, marks);
  const host = el("strong", { className: "url-host" });
  appendFlagged(host, parts.host, spans, hostAt, marks);
  block.append(host);
  appendFlagged(block, parts.after, spans, afterAt, marks);
  if (!parts.unicodeHost) return block;
  const idn = el("span", { className: "url-idn" }, ...idnParts(markWords(marks, "idn"),
    el("strong", {}, parts.unicodeHost), parts.host));
  return el("span", { className: "argument-url" }, block, idn);
}

// The IDN line's words with the Unicode host (a node) and the host as sent put in, once.
function idnParts(template, unicode, host) {
  const parts = [];
  let at = 0;
  for (const match of template.matchAll(/\{(unicode|host)\}/g)) {
    parts.push(template.slice(at, match.index), match[1] === "unicode" ? unicode : host);
    at = match.index + match[0].length;
  }
  parts.push(template.slice(at));
  return parts.filter((part) => part !== "");
}

// Spaces are marked on the whole text first (a space next to a flag is not a
// trailing space), then each run is cut at the flags' edges.
function appendFlagged(target, text, spans, offset, marks) {
  let at = offset;
  for (const run of visibleRuns(text)) {
    for (const piece of flaggedPieces(run.text, spans, at)) {
      const node = runNode(run.kind, piece.text, marks);
      target.append(piece.flag ? el("mark", { className: "flagged", title: piece.flag }, node)
        : node);
    }
    at += Array.from(run.text).length;
  }
}

function runNode(kind, text, marks) {
  if (kind === "text") return document.createTextNode(text);
  if (kind === "space") return spaceMark(text, marks);
  return el("span", { className: "char-mark", title: markWords(marks, "invisible") },
    codePointLabel(text));
}

function spaceMark(spaces, marks) {
  const label = spacesLabel(spaces.length, marks);
  return el("span", { className: "space-mark", title: label, "aria-label": label },
    "\u2423".repeat(spaces.length));
}
