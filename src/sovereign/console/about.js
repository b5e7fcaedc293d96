// The About view (GET /api/v1/about): the product, its version and licence, what leaves
// this device and when, and where its data is. Its words are the Console's own, in the
// household's language (console-words.js); the version, the licence, the model server's
// host and the data folder are the service's, shown as text, never as markup.

import { request } from "./api.js";
import { say, sayParts, wordsLanguage } from "./console-words.js";
import { byId, el } from "./dom.js";

/** The about view; onUnauthorized(error) is called when the service says the session ended. */
export class AboutView {
  constructor({ onUnauthorized }) {
    this.onUnauthorized = onUnauthorized;
    this.error = byId("about-error");
    this.version = byId("about-version");
    this.licence = byId("about-licence");
    this.model = byId("about-model");
    this.data = byId("about-data");
  }

  /** Read the facts again (the sentences are said in the Console's language of now). */
  async load() {
    this.error.textContent = "";
    try {
      this.show(await request("GET", "/about"));
    } catch (error) {
      if (error.status === 401) return this.onUnauthorized(error);
      this.error.lang = wordsLanguage();
      this.error.textContent = say("about_unread", { reason: error.message });
    }
  }

  show(about) {
    const text = (value) => (typeof value === "string" ? value : "");
    const model = about && typeof about.model === "object" && about.model ? about.model : {};
    const lang = wordsLanguage();
    this.version.textContent = text(about.version);
    this.licence.textContent = text(about.licence);
    // Where the model runs is said only as the service says it (never guessed).
    const where = { true: "about_model_here", false: "about_model_server" }[model.on_device];
    this.model.lang = lang;
    this.model.replaceChildren(...(where
      ? sayParts(where, { host: el("code", {}, text(model.host)) }) : []));
    this.data.lang = lang;
    this.data.replaceChildren(...sayParts("about_data",
      { path: el("code", {}, text(about.data_dir)) }));
  }

  clear() {
    for (const element of [this.error, this.version, this.licence, this.model, this.data]) {
      element.replaceChildren();
    }
  }
}
