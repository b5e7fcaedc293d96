// Settings > Sites web.fetch may read (GET|POST /api/v1/settings/sites): off, only the
// allowed sites, or every public site but the blocked ones. Both lists are kept; the
// mode chooses which applies. Every change sends the whole list; the service checks
// each site and answers with the canonical form it stored.

import { loadSection, request } from "./api.js";
import { say, wordsLanguage } from "./console-words.js";
import { el, worded } from "./dom.js";

const PATH = "/settings/sites";
// [mode, key of its label, English]
const MODES = [
  ["off", "sites_mode_off", "No site list: the assistant may ask to read any public site"],
  ["allow-only", "sites_mode_allow_only", "Only the allowed sites"],
  ["block", "sites_mode_block", "Any public site except the blocked ones"],
];
// [list, {title, note, input, add}: the keys and English of its words]
const LISTS = [
  ["allow", {
    title: ["sites_allow_title", "Allowed sites"],
    note: ["sites_allow_note", "This list applies when only the allowed sites may be read."],
    input: ["sites_allow_input", "Site to allow"],
    add: ["sites_allow_add", "Add to allowed sites"],
  }],
  ["block", {
    title: ["sites_block_title", "Blocked sites"],
    note: ["sites_block_note",
      "This list applies when every site but the blocked ones may be read."],
    input: ["sites_block_input", "Site to block"],
    add: ["sites_block_add", "Add to blocked sites"],
  }],
];

/** The state after adding `site` to list `name` (pure; the service canonicalises). */
export function withSite(state, name, site) {
  const text = String(site).trim();
  return text ? { ...state, [name]: [...(state[name] || []), text] } : state;
}

/** The state after removing `site` from list `name` (pure). */
export function withoutSite(state, name, site) {
  return { ...state, [name]: (state[name] || []).filter((entry) => entry !== site) };
}

/** The site-list section of the settings view. */
export class SiteListSection {
  constructor({ onUnauthorized }) {
    this.onUnauthorized = onUnauthorized;
    this.state = { mode: "off", allow: [], block: [] };
    this.problem = el("p", { id: "site-list-problem", className: "error", role: "alert",
      hidden: true });
    this.error = el("p", { id: "site-list-error", className: "error", role: "alert" });
    this.modes = MODES.map(([value, key, label]) => this.modeChoice(value, key, label));
    this.lists = Object.fromEntries(LISTS.map(([name]) => [name,
      el("ul", { id: `site-list-${name}`, className: "private-words-list" })]));
    document.getElementById("site-list-settings").append(
      worded("h3", "sites_title", "Sites the assistant may read", { id: "site-list-title" }),
      worded("p", "sites_intro", "Sites are names such as example.org, wildcards such as "
        + "*.example.org (the sites below it, never a whole suffix like *.co.uk) or public IP "
        + "addresses. A site the list does not allow never gets a request card."),
      this.problem,
      el("fieldset", { className: "site-modes" }, worded("legend", "sites_legend", "Site list"),
        ...this.modes.map(({ row }) => row)),
      ...LISTS.map((list) => this.listBlock(...list)),
      this.error);
  }

  modeChoice(value, key, label) {
    const id = `site-mode-${value}`;
    const input = el("input", { type: "radio", name: "site-mode", id, value });
    input.addEventListener("change", () => this.change({ ...this.state, mode: value }));
    return { input, row: el("div", { className: "site-mode" }, input,
      worded("label", key, label, { for: id })) };
  }

  listBlock(name, words) {
    const id = `site-${name}-input`;
    const input = el("input", { id, type: "text", maxlength: "260", autocomplete: "off" });
    const form = el("form", { className: "inline-form", novalidate: true },
      worded("label", ...words.input, { for: id }), input,
      worded("button", "add", "Add", { type: "submit", id: `site-${name}-add`,
        "aria-label": words.add[1], "data-word-label": words.add[0] }));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.change(withSite(this.state, name, input.value), () => { input.value = ""; });
    });
    return el("section", { className: "site-list", "aria-labelledby": `site-${name}-title` },
      worded("h4", ...words.title, { id: `site-${name}-title` }),
      worded("p", ...words.note, { className: "hint" }), this.lists[name], form);
  }

  load() {
    return loadSection(this, PATH, "sites_unread");
  }

  async change(next, done = () => {}) {
    this.error.textContent = "";
    try {
      const { mode, allow, block } = next;
      this.show(await request("POST", PATH, { mode, allow, block }));
      done();
    } catch (error) {
      if (error.status === 401) return this.onUnauthorized(error);
      this.error.textContent = error.message; // the service says it in the household's language
      this.error.lang = wordsLanguage();
      this.show(this.state); // the stored list still applies
    }
  }

  show(state) {
    this.state = { mode: state.mode, allow: state.allow || [], block: state.block || [] };
    for (const { input } of this.modes) input.checked = input.value === this.state.mode;
    for (const [name] of LISTS) {
      const sites = this.state[name];
      this.lists[name].replaceChildren(...sites.map((site) => this.item(name, site)));
      if (!sites.length) this.lists[name].append(el("li", { className: "empty" }, say("sites_none")));
    }
    if ("problem" in state) {
      this.problem.textContent = state.problem || ""; // in the household's language
      this.problem.lang = wordsLanguage();
      this.problem.hidden = !state.problem;
    }
  }

  item(name, site) {
    const remove = el("button", { type: "button", className: "remove-site",
      "aria-label": say("remove_item", { item: site }) }, say("remove"));
    remove.addEventListener("click", () => this.change(withoutSite(this.state, name, site)));
    return el("li", { className: "private-word site" }, el("span", { className: "word" }, site),
      " ", remove);
  }

  clear() {
    this.error.textContent = "";
  }
}
