// Settings > Private words: the household's words the request card points out
// before anything leaves (GET|POST /api/v1/settings/private-words).

import { loadSection, request } from "./api.js";
import { byId, el } from "./dom.js";

const PATH = "/settings/private-words";
// [key, one, many]: the noun for one and for several, so "1 name" and "2 names".
const AUTOMATIC = [
  ["home_assistant", "Home Assistant entity", "Home Assistant entities"],
  ["pihole", "Pi-hole local name", "Pi-hole local names"],
  ["device_names", "name of this device and its network",
    "names of this device and its network"],
  ["device_addresses", "address of this device", "addresses of this device"],
  ["wifi", "Wi-Fi network name", "Wi-Fi network names"],
];

/** "Also checked automatically: 3 Home Assistant entities, 1 name of …" (pure). */
export function automaticSentence(automatic) {
  const parts = AUTOMATIC.map(([key, one, many]) => [Number((automatic || {})[key]) || 0, one,
    many]).filter(([count]) => count > 0)
    .map(([count, one, many]) => `${count} ${count === 1 ? one : many}`);
  return parts.length ? `Also checked automatically: ${parts.join(", ")}.` : "";
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
    return loadSection(section, PATH, "private words");
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
      this.list.append(el("li", { className: "empty" }, "No private words yet."));
    }
    this.problem.textContent = (state && state.problem) || "";
    this.problem.hidden = !(state && state.problem);
    this.automatic.textContent = automaticSentence(state && state.automatic);
  }

  item(word) {
    const remove = el("button", { type: "button", className: "remove-word",
      "aria-label": `Remove ${word}` }, "Remove");
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
