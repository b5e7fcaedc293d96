// Settings > Language of the Console and of answers (GET|POST /api/v1/settings/household):
// the language the signed-in Console is shown in, and the one the assistant answers in
// when a question is too short to tell its own ("RAM info", "ok"). Each language is named
// in itself ("Deutsch"), as the service gives it (CLDR's names, through Babel); the page
// keeps no list of its own.

import { loadSection, request } from "./api.js";
import { say, wordsLanguage } from "./console-words.js";
import { el, settingsSection, worded } from "./dom.js";

const PATH = "/settings/household";

/** The household-language section of the settings view. */
export class HouseholdSettingsSection {
  constructor({ onUnauthorized, onLanguageSaved }) {
    this.onUnauthorized = onUnauthorized;
    this.onLanguageSaved = onLanguageSaved;
    this.names = new Map(); // code -> the language's name in itself
    this.language = el("select", { id: "household-language" });
    this.save = worded("button", "household_save", "Save language",
      { type: "submit", id: "household-language-save" });
    // A choice made while the saved setting is still being read is kept, not overwritten
    // by what the read brings back (opening Settings reads it again each time).
    this.changed = false;
    this.language.addEventListener("change", () => { this.changed = true; });
    Object.assign(this, settingsSection("household-settings", {
      title: ["household_title", "Language of the Console and of answers"],
      intro: ["household_intro", "Once you are signed in, the Console is shown in this "
        + "language (sign-in itself follows your browser's language). The assistant answers "
        + "in the language you ask in; when a question is too short to tell, such as "
        + "\u201cRAM info\u201d, it answers in this language too."],
      fields: [[["household_label",
        "Language of the Console, and of answers when a question is too short to tell"],
      this.language]],
      save: this.save,
      onSubmit: () => this.store(),
    }));
  }

  load() {
    return loadSection(this, PATH, "household_unread");
  }

  async store() {
    this.error.textContent = "";
    this.status.textContent = "";
    this.save.disabled = true;
    try {
      const state = await request("POST", PATH, { language: this.language.value });
      this.changed = false;
      this.show(state);
      // The Console's words and Settings follow the new language before the sentence
      // below is said in it.
      await this.onLanguageSaved();
      this.status.lang = wordsLanguage();
      this.status.textContent = say("household_saved",
        { language: this.names.get(state.language) || state.language });
    } catch (error) {
      if (error.status === 401) return this.onUnauthorized(error);
      this.error.textContent = error.message; // the service says it in the household's language
      this.error.lang = wordsLanguage();
    } finally {
      this.save.disabled = false;
    }
  }

  show(state) {
    for (const { code, name } of state.languages || []) this.names.set(code, name);
    if (this.language.options.length !== this.names.size) {
      this.language.replaceChildren(...[...this.names].map(([code, name]) =>
        el("option", { value: code, lang: code }, name)));
    }
    if (!this.changed) this.language.value = state.language;
    this.problem.textContent = state.problem || ""; // in the household's language
    this.problem.lang = wordsLanguage();
    this.problem.hidden = !state.problem;
  }

  clear() {
    this.error.textContent = "";
    this.status.textContent = "";
  }
}
