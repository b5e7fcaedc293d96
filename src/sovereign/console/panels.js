// The web search switch (#chat-policy-row) and the activity view.

import { request } from "./api.js";
import { byId, el } from "./dom.js";
import { auditTable } from "./present.js";

/**
 * The household's web search switch, backed by GET|POST /conversation/policy.
 * onUnauthorized(error) is called when the service says the session ended.
 */
export class PolicySwitch {
  constructor({ onUnauthorized }) {
    this.onUnauthorized = onUnauthorized;
    this.input = byId("web-search-switch");
    this.error = byId("web-search-error");
    this.input.addEventListener("change", () => this.write(this.input.checked));
  }

  /** Read the setting from the service; the switch stays disabled if that fails. */
  async load() {
    this.reset();
    try {
      this.show(await request("GET", "/conversation/policy"));
      this.input.disabled = false;
    } catch (error) {
      if (error.status === 401) return this.onUnauthorized(error);
      this.error.textContent = `The web search setting could not be read: ${error.message}`;
    }
  }

  async write(enabled) {
    this.input.disabled = true;
    this.error.textContent = "";
    try {
      this.show(await request("POST", "/conversation/policy", { web_search_enabled: enabled }));
    } catch (error) {
      this.input.checked = !enabled;
      if (error.status === 401) return this.onUnauthorized(error);
      const still = enabled ? "off" : "on";
      this.error.textContent = `Web search could not be switched ${enabled ? "on" : "off"}; ` +
        `it is still ${still}. ${error.message}`;
    } finally {
      this.input.disabled = false;
    }
  }

  show(policy) {
    this.input.checked = Boolean(policy && policy.web_search_enabled);
  }

  /** Back to the signed-out state: unknown, off, disabled. */
  reset() {
    this.input.checked = false;
    this.input.disabled = true;
    this.error.textContent = "";
  }
}

/** The activity view: counts per capability and outcome from the audit log. */
export class ActivityView {
  constructor({ onUnauthorized }) {
    this.onUnauthorized = onUnauthorized;
    this.days = byId("activity-days");
    this.error = byId("activity-error");
    this.wrap = byId("activity-table-wrap");
    this.days.addEventListener("change", () => this.load());
  }

  async load() {
    this.error.textContent = "";
    this.wrap.setAttribute("aria-busy", "true");
    try {
      const summary = await request("GET", `/audit/summary?days=${Number(this.days.value)}`);
      this.render(auditTable(summary));
    } catch (error) {
      if (error.status === 401) return this.onUnauthorized(error);
      this.error.textContent = `The activity could not be loaded: ${error.message}`;
    } finally {
      this.wrap.removeAttribute("aria-busy");
    }
  }

  render(table) {
    if (!table.rows.length) {
      this.wrap.replaceChildren(el("p", { className: "empty" },
        "No capability was used in this period."),
      ...table.notes.map((note) => el("p", { className: "hint" }, note)));
      return;
    }
    const head = el("tr", {}, el("th", { scope: "col" }, "Capability"),
      ...table.columns.map((column) => el("th", { scope: "col" }, column.label)));
    const body = el("tbody", {}, ...table.rows.map((row) => el("tr", {},
      el("th", { scope: "row" }, el("code", {}, row.capability)),
      ...row.counts.map((count) => el("td", {}, String(count))))));
    const foot = el("tfoot", {}, el("tr", {}, el("th", { scope: "row" }, "All"),
      ...table.totals.map((count) => el("td", {}, String(count)))));
    const caption = el("caption", {}, `Since ${table.since}`);
    this.wrap.replaceChildren(el("table", { className: "activity-table" },
      caption, el("thead", {}, head), body, foot));
    for (const note of table.notes) this.wrap.append(el("p", { className: "hint" }, note));
  }

  clear() {
    this.wrap.replaceChildren();
    this.error.textContent = "";
  }
}
