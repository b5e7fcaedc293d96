// The settings view: one section per setting, each a module of its own with
// load() and clear() (private words here; further sections add themselves to
// SECTIONS and to #settings-view in index.html).

import { HouseholdSettingsSection } from "./household-settings.js";
import { PrivateWordsSection } from "./private-words.js";
import { SearchSettingsSection } from "./search-settings.js";
import { SiteListSection } from "./site-list.js";

const SECTIONS = [
  HouseholdSettingsSection, PrivateWordsSection, SiteListSection, SearchSettingsSection,
];

/**
 * All settings sections, loaded together when the view opens. onLanguageSaved() is
 * called (and awaited) when the household's language was saved: the Console's own words
 * follow it.
 */
export class SettingsView {
  constructor({ onUnauthorized, onLanguageSaved }) {
    this.sections = SECTIONS.map((Section) => new Section({ onUnauthorized, onLanguageSaved }));
  }

  async load() {
    await Promise.all(this.sections.map((section) => section.load()));
  }

  clear() {
    for (const section of this.sections) section.clear();
  }
}
