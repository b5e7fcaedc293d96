// Settings > Search language and safe search (GET|POST /api/v1/settings/search), and
// the words a web.search card shows beside the query: "in German, safe search moderate".
// The household sets both; every search card shows them and the approval binds them.

import { loadSection, request } from "./api.js";
import { RUN_TIME_WORDS, say, wordsLanguage } from "./console-words.js";
import { el, settingsSection, worded } from "./dom.js";

const PATH = "/settings/search";
const LEVELS = { 0: "off", 1: "moderate", 2: "strict" };
const SPECIAL = {
  auto: RUN_TIME_WORDS.search_language_auto,
  all: RUN_TIME_WORDS.search_language_all,
};
/** Opens Settings at the search settings (set by the page; null until then). */
export const settingsLink = { open: null };
const names = new Map(); // language code -> English name, filled from the service

/**
 * "Deutsch" for "de" when the Console speaks German: the browser's name for it (CLDR) in
 * the Console's language, or the sentence for "auto" and "all"; in English, languageName.
 */
function saidLanguageName(code) {
  const language = wordsLanguage();
  if (language === "en") return languageName(code);
  if (SPECIAL[code]) return say(`search_language_${code}`);
  try {
    return new Intl.DisplayNames([language], { type: "language", languageDisplay: "standard" })
      .of(code) || languageName(code);
  } catch {
    return languageName(code);
  }
}

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
      ...Object.entries(LEVELS).map(([value, name]) =>
        worded("option", `safesearch_${value}`, name, { value })));
    this.save = worded("button", "search_save", "Save",
      { type: "submit", id: "search-settings-save" });
    Object.assign(this, settingsSection("search-settings", {
      title: ["search_title", "Search language and safe search"],
      intro: ["search_intro", "Sent to the search engines with every web search, beside the "
        + "query. The request card shows them; the assistant cannot change them."],
      fields: [[["search_language", "Language"], this.language],
        [["search_safesearch", "Safe search"], this.safesearch]],
      save: this.save,
      onSubmit: () => this.store(),
    }));
  }

  load() {
    return loadSection(this, PATH, "search_unread");
  }

  async store() {
    this.error.textContent = "";
    this.save.disabled = true;
    const body = { language: this.language.value, safesearch: Number(this.safesearch.value) };
    try {
      const state = await request("POST", PATH, body);
      this.show(state);
      this.status.textContent = say("search_saved", {
        language: saidLanguageName(state.language),
        level: this.safesearch.selectedOptions[0].textContent,
      });
    } catch (error) {
      if (error.status === 401) return this.onUnauthorized(error);
      this.error.textContent = error.message; // the service says it in the household's language
      this.error.lang = wordsLanguage();
    } finally {
      this.save.disabled = false;
    }
  }

  show(state) {
    for (const { code, name } of state.languages || []) names.set(code, name);
    if (this.language.options.length !== names.size || this.namedIn !== wordsLanguage()) {
      this.namedIn = wordsLanguage();
      this.language.replaceChildren(...[...names.keys()].map((code) => {
        const name = saidLanguageName(code);
        return el("option", { value: code }, `${name[0].toUpperCase()}${name.slice(1)} (${code})`);
      }));
    }
    this.language.value = state.language;
    this.safesearch.value = String(state.safesearch);
    this.problem.textContent = state.problem || ""; // in the household's language
    this.problem.lang = wordsLanguage();
    this.problem.hidden = !state.problem;
  }

  clear() {
    this.error.textContent = "";
    this.status.textContent = "";
  }
}
