// Settings > Private words: the household's words the request card points out
// before anything leaves (GET|POST /api/v1/settings/private-words).

import { loadSection, request } from "./api.js";
import { say, wordsLanguage } from "./console-words.js";
import { byId, el } from "./dom.js";

const PATH = "/settings/private-words";
// What is checked automatically, each counted by its own words ("automatic_<kind>").
const AUTOMATIC = ["home_assistant", "pihole", "device_names", "device_addresses", "wifi"];

/** "Also checked automatically: 3 Home Assistant entities, 1 name of …" (pure). */
export function automaticSentence(automatic) {
  const parts = AUTOMATIC.map((kind) => [kind, Number((automatic || {})[kind]) || 0])
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => say(`automatic_${kind}`, { n: count }));
  return parts.length ? say("automatic", { list: parts.join(", ") }) : "";
}

/** The private-words section of the settings view. */
export class PrivateWordsSection {
  constructor({ onUnauthorized }) {
    this.onUnauthorized = onUnauthorized;
    this.list = byId("private-words-list");
    this.input = byId("private-word-input");
    this.addButton = byId("private-word-add");
    this.error = byId("private-words-error");
    this.problem = byId("private-words-problem");
    this.automatic = byId("private-words-automatic");
    byId("private-words-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.change({ add: this.input.value }, () => { this.input.value = ""; });
    });
  }

  /** Show the list as stored; an answer overtaken by a change made meanwhile is dropped. */
  load() {
    const asked = this.round = (this.round || 0) + 1;
    const section = {
      error: this.error,
      onUnauthorized: this.onUnauthorized,
      show: (state) => { if (asked === this.round) this.show(state); },
    };
    return loadSection(section, PATH, "private_words_unread");
  }

  async change(body, done = () => {}) {
    this.round = (this.round || 0) + 1;
    this.error.textContent = "";
    this.addButton.disabled = true;
    try {
      this.show(await request("POST", PATH, body));
      done();
    } catch (error) {
      if (error.status === 401) return this.onUnauthorized(error);
      this.error.textContent = error.message;
    } finally {
      this.addButton.disabled = false;
    }
  }

  show(state) {
    const words = (state && state.words) || [];
    this.list.replaceChildren(...words.map((word) => this.item(word)));
    if (!words.length) {
      this.list.append(el("li", { className: "empty" }, say("private_words_none")));
    }
    this.problem.textContent = (state && state.problem) || ""; // in the household's language
    this.problem.lang = wordsLanguage();
    this.problem.hidden = !(state && state.problem);
    this.automatic.textContent = automaticSentence(state && state.automatic);
  }

  item(word) {
    const remove = el("button", { type: "button", className: "remove-word",
      "aria-label": say("remove_item", { item: word }) }, say("remove"));
    remove.addEventListener("click", () => this.change({ remove: word }));
    return el("li", { className: "private-word" }, el("span", { className: "word" }, word), " ",
      remove);
  }

  clear() {
    this.list.replaceChildren();
    this.error.textContent = "";
    this.problem.hidden = true;
    this.automatic.textContent = "";
    this.input.value = "";
  }
}
