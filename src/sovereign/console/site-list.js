// Settings > Sites web.fetch may read (GET|POST /api/v1/settings/sites): off, only the
// allowed sites, or every public site but the blocked ones. Both lists are kept; the
// mode chooses which applies. Every change sends the whole list; the service checks
// each site and answers with the canonical form it stored.

import { loadSection, request } from "./api.js";
import { el } from "./dom.js";

const PATH = "/settings/sites";
const MODES = [
  ["off", "No site list: the assistant may ask to read any public site"],
  ["allow-only", "Only the allowed sites"],
  ["block", "Any public site except the blocked ones"],
];
const LISTS = [
  ["allow", "Allowed sites", "allow-only", "Site to allow"],
  ["block", "Blocked sites", "block", "Site to block"],
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
    this.modes = MODES.map(([value, label]) => this.modeChoice(value, label));
    this.lists = Object.fromEntries(LISTS.map(([name]) => [name,
      el("ul", { id: `site-list-${name}`, className: "private-words-list" })]));
    document.getElementById("site-list-settings").append(
      el("h3", { id: "site-list-title" }, "Sites the assistant may read"),
      el("p", {}, "Sites are names such as example.org, wildcards such as *.example.org "
        + "(the sites below it, never a whole suffix like *.co.uk) or public IP addresses. "
        + "A site the list does not allow never gets a request card."),
      this.problem,
      el("fieldset", { className: "site-modes" }, el("legend", {}, "Site list"),
        ...this.modes.map(({ row }) => row)),
      ...LISTS.map((list) => this.listBlock(...list)),
      this.error);
  }

  modeChoice(value, label) {
    const id = `site-mode-${value}`;
    const input = el("input", { type: "radio", name: "site-mode", id, value });
    input.addEventListener("change", () => this.change({ ...this.state, mode: value }));
    return { input, row: el("div", { className: "site-mode" }, input,
      el("label", { for: id }, label)) };
  }

  listBlock(name, title, mode, label) {
    const id = `site-${name}-input`;
    const input = el("input", { id, type: "text", maxlength: "260", autocomplete: "off" });
    const form = el("form", { className: "inline-form", novalidate: true },
      el("label", { for: id }, label), input,
      el("button", { type: "submit", id: `site-${name}-add`,
        "aria-label": `Add to ${title.toLowerCase()}` }, "Add"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.change(withSite(this.state, name, input.value), () => { input.value = ""; });
    });
    const note = mode === "allow-only" ? "applies when only the allowed sites may be read"
      : "applies when every site but the blocked ones may be read";
    return el("section", { className: "site-list", "aria-labelledby": `site-${name}-title` },
      el("h4", { id: `site-${name}-title` }, title), el("p", { className: "hint" }, `This list ${note}.`),
      this.lists[name], form);
  }

  load() {
    return loadSection(this, PATH, "site list");
  }

  async change(next, done = () => {}) {
    this.error.textContent = "";
    try {
      const { mode, allow, block } = next;
      this.show(await request("POST", PATH, { mode, allow, block }));
      done();
    } catch (error) {
      if (error.status === 401) return this.onUnauthorized(error);
      this.error.textContent = error.message;
      this.show(this.state); // the stored list still applies
    }
  }

  show(state) {
    this.state = { mode: state.mode, allow: state.allow || [], block: state.block || [] };
    for (const { input } of this.modes) input.checked = input.value === this.state.mode;
    for (const [name] of LISTS) {
      const sites = this.state[name];
      this.lists[name].replaceChildren(...sites.map((site) => this.item(name, site)));
      if (!sites.length) this.lists[name].append(el("li", { className: "empty" }, "No sites."));
    }
    if ("problem" in state) {
      this.problem.textContent = state.problem || "";
      this.problem.hidden = !state.problem;
    }
  }

  item(name, site) {
    const remove = el("button", { type: "button", className: "remove-site",
      "aria-label": `Remove ${site}` }, "Remove");
    remove.addEventListener("click", () => this.change(withoutSite(this.state, name, site)));
    return el("li", { className: "private-word site" }, el("span", { className: "word" }, site),
      " ", remove);
  }

  clear() {
    this.error.textContent = "";
  }
}
