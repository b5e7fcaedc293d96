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

/** All settings sections, loaded together when the view opens. */
export class SettingsView {
  constructor({ onUnauthorized }) {
    this.sections = SECTIONS.map((Section) => new Section({ onUnauthorized }));
  }

  async load() {
    await Promise.all(this.sections.map((section) => section.load()));
  }

  clear() {
    for (const section of this.sections) section.clear();
  }
}
