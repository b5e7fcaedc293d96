// What a household capability returned (system health, Pi-hole totals, Home
// Assistant states), shown under the answer. The sentences are the product's own,
// rendered on the device from the result by the same renderer that says the answer's
// facts, in the household's language (the wire's `facts: [{capability, result,
// lines, heading}]`), so the panel and the answer can never disagree. The panel's
// heading is the product's too, from the same catalogs in the same language
// (`heading`); a service that sends none gets the English one. A capability that
// declares no facts shows its result's plain fields instead. Every value is shown
// as text, never parsed as markup.

import { el } from "./dom.js";

const isNumber = (value) => typeof value === "number" && Number.isFinite(value);
const SCALARS = ["string", "number", "boolean"];

function plainRows(result) {
  return Object.entries(result)
    .filter(([key, value]) => key !== "retrieved_at" && SCALARS.includes(typeof value))
    .filter(([, value]) => typeof value !== "number" || isNumber(value))
    .map(([key, value]) => `${key.replaceAll("_", " ")}: ${String(value)}`);
}

/**
 * factLines({capability, result, lines}) -> [string, …] or null.
 * Pure: the lines to show for one fact: the product's sentences, else plain fields.
 */
export function factLines(fact) {
  if (!fact || typeof fact.capability !== "string" || !fact.result || typeof fact.result !== "object") {
    return null;
  }
  const lines = Array.isArray(fact.lines) ? fact.lines.filter((line) => typeof line === "string") : [];
  const shown = lines.length ? lines : plainRows(fact.result);
  return shown.length ? shown : null;
}

const HEADING = "What the device reported";

/**
 * factHeading([{heading?}, …]) -> string.
 * Pure: the panel's heading as the product said it (the first fact's non-empty
 * `heading`), else the English one.
 */
export function factHeading(facts) {
  const said = (Array.isArray(facts) ? facts : [])
    .map((fact) => (fact && typeof fact.heading === "string" ? fact.heading.trim() : ""))
    .find(Boolean);
  return said || HEADING;
}

/** The panel for a turn's facts (a <section>), or null when there is nothing to show. */
export function factPanel(facts) {
  const shown = (Array.isArray(facts) ? facts : [])
    .map((fact) => ({ fact, lines: factLines(fact) }))
    .filter(({ lines }) => lines);
  if (!shown.length) return null;
  const heading = factHeading(shown.map(({ fact }) => fact));
  const section = el("section", { className: "facts", "aria-label": heading },
    el("h4", {}, heading));
  for (const { lines } of shown) {
    const list = el("ul", { className: "fact-lines" });
    for (const line of lines) list.append(el("li", {}, line));
    section.append(el("div", { className: "fact" }, list));
  }
  return section;
}
