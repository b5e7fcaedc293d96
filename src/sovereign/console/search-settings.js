// Settings > Search language and safe search (GET|POST /api/v1/settings/search), and
// the words a web.search card shows beside the query: "in German, safe search moderate".
// The household sets both; every search card shows them and the approval binds them.

import { loadSection, request } from "./api.js";
import { el, settingsSection } from "./dom.js";

const PATH = "/settings/search";
const LEVELS = { 0: "off", 1: "moderate", 2: "strict" };
const SPECIAL = { auto: "any language (the search service chooses)", all: "all languages" };
/** Opens Settings at the search settings (set by the page; null until then). */
export const settingsLink = { open: null };
const names = new Map(); // language code -> English name, filled from the service

/** "German" for "de": the service's name once loaded, else the browser's (CLDR). */
export function languageName(code) {
  if (names.has(code)) return names.get(code);
  if (SPECIAL[code]) return SPECIAL[code];
  try {
    return new Intl.DisplayNames(["en"], { type: "language", languageDisplay: "standard" })
      .of(code) || code;
  } catch {
    return code;
  }
}

/** "in German, safe search moderate" for a web.search card's arguments, else null. */
export function searchSettingsPhrase(capability, args) {
  if (capability !== "web.search" || !args) return null;
  const { language, safesearch } = args;
  if (typeof language !== "string" || !(safesearch in LEVELS)) return null;
  return `in ${languageName(language)}, safe search ${LEVELS[safesearch]}`;
}

/**
 * The card's line for it (or null): the phrase, and a button to the setting itself.
 * said: {line, change}, the line and the button's label as the product said them in the
 * turn's language (each in English when absent); no line when the product said none and
 * the arguments give no phrase.
 */
export function searchSettingsLine(capability, args, said = {}) {
  const phrase = searchSettingsPhrase(capability, args);
  if (!phrase) return null;
  const line = said.line || `Searched ${phrase} (your search settings).`;
  const change = el("button", { type: "button", className: "link-button change-search" },
    said.change || "Change");
  change.addEventListener("click", () => {
    if (settingsLink.open) settingsLink.open("search-settings");
  });
  return el("p", { className: "card-search-settings" }, `${line} `, change);
}

/** The search-settings section of the settings view. */
export class SearchSettingsSection {
  constructor({ onUnauthorized }) {
    this.onUnauthorized = onUnauthorized;
    this.language = el("select", { id: "search-language" });
    this.safesearch = el("select", { id: "search-safesearch" },
      ...Object.entries(LEVELS).map(([value, name]) => el("option", { value }, name)));
    this.save = el("button", { type: "submit", id: "search-settings-save" }, "Save");
    Object.assign(this, settingsSection("search-settings", {
      title: "Search language and safe search",
      intro: "Sent to the search engines with every web search, beside the query. The "
        + "request card shows them; the assistant cannot change them.",
      fields: [["Language", this.language], ["Safe search", this.safesearch]],
      save: this.save,
      onSubmit: () => this.store(),
    }));
  }

  load() {
    return loadSection(this, PATH, "search settings");
  }

  async store() {
    this.error.textContent = "";
    this.save.disabled = true;
    const body = { language: this.language.value, safesearch: Number(this.safesearch.value) };
    try {
      const state = await request("POST", PATH, body);
      this.show(state);
      this.status.textContent =
        `Saved: searches go ${searchSettingsPhrase("web.search", state)}.`;
    } catch (error) {
      if (error.status === 401) return this.onUnauthorized(error);
      this.error.textContent = error.message;
    } finally {
      this.save.disabled = false;
    }
  }

  show(state) {
    for (const { code, name } of state.languages || []) names.set(code, name);
    if (this.language.options.length !== names.size) {
      this.language.replaceChildren(...[...names].map(([code, name]) =>
        el("option", { value: code }, `${name[0].toUpperCase()}${name.slice(1)} (${code})`)));
    }
    this.language.value = state.language;
    this.safesearch.value = String(state.safesearch);
    this.problem.textContent = state.problem || "";
    this.problem.hidden = !state.problem;
  }

  clear() {
    this.error.textContent = "";
    this.status.textContent = "";
  }
}
