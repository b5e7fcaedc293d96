// The web search switch (#chat-policy-row) and the activity view.

import { converse, request } from "./api.js";
import { ConfirmationCard } from "./card.js";
import { byId, el } from "./dom.js";
import { auditTable, shownReceipt } from "./present.js";

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

/**
 * The activity view: the period told in sentences, the owner's repairs, the approval
 * requests still waiting (answerable or withdrawable here, so a card whose tab was
 * closed is not left waiting), then the counts per capability behind "Counts per
 * capability", in a table that scrolls sideways with a cue when it does not fit.
 */
export class ActivityView {
  constructor({ onUnauthorized }) {
    this.onUnauthorized = onUnauthorized;
    this.days = byId("activity-days");
    this.error = byId("activity-error");
    this.wrap = byId("activity-table-wrap");
    this.story = byId("activity-summary");
    this.waiting = byId("activity-pending");
    this.days.addEventListener("change", () => this.load());
    window.addEventListener("resize", () => this.markOverflow());
  }

  async load() {
    this.error.textContent = "";
    this.wrap.setAttribute("aria-busy", "true");
    try {
      const [summary, pending] = await Promise.all([
        request("GET", `/audit/summary?days=${Number(this.days.value)}`),
        request("GET", "/conversation/pending"),
      ]);
      this.render(auditTable(summary));
      this.showPending(pending.pending || []);
    } catch (error) {
      if (error.status === 401) return this.onUnauthorized(error);
      this.error.textContent = `The activity could not be loaded: ${error.message}`;
    } finally {
      this.wrap.removeAttribute("aria-busy");
    }
  }

  render(table) {
    this.story.replaceChildren(...table.sentences.map((line) =>
      el("p", { lang: table.language }, line)),
      ...(table.repairs.length ? [el("div", { className: "repairs", role: "note" },
        el("h3", {}, "For the device's owner"),
        el("ul", {}, ...table.repairs.map((line) => el("li", {}, line))))] : []));
    if (!table.rows.length) {
      this.wrap.replaceChildren(el("p", { className: "empty" },
        "No capability was used in this period."),
      ...table.notes.map((note) => el("p", { className: "hint", lang: table.language }, note)));
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
    this.scroller = el("div", { className: "table-scroll", tabindex: "0", role: "region",
      "aria-label": "Counts per capability" },
    el("table", { className: "activity-table" }, caption, el("thead", {}, head), body, foot));
    this.cue = el("p", { className: "hint scroll-cue", hidden: true },
      "The table is wider than the screen: scroll it sideways to see every column →");
    const details = el("details", { className: "activity-details" },
      el("summary", {}, "Counts per capability"), this.cue, this.scroller);
    details.addEventListener("toggle", () => this.markOverflow());
    this.wrap.replaceChildren(details);
    for (const note of table.notes) {
      this.wrap.append(el("p", { className: "hint", lang: table.language }, note));
    }
  }

  /** Say so when the table is wider than its box (it then scrolls sideways). */
  markOverflow() {
    if (!this.scroller || !this.cue) return;
    this.cue.hidden = this.scroller.scrollWidth <= this.scroller.clientWidth + 1;
  }

  showPending(cards) {
    if (!cards.length) {
      this.waiting.replaceChildren();
      return;
    }
    this.waiting.replaceChildren(el("h3", {}, "Waiting for your answer"),
      el("p", { className: "hint" }, "Asked in a conversation that is no longer open here. " +
        "Approve it to run it now, or deny it to withdraw it: nothing is sent."),
      ...cards.map((pending) => this.pendingCard(pending)));
  }

  pendingCard(pending) {
    const holder = el("div", { className: "pending-card" });
    const card = new ConfirmationCard(pending, {
      onDecide: ({ approve }) => this.answer(holder, pending, approve),
      onExpire: () => {},
    });
    holder.append(card.element);
    return holder;
  }

  async answer(holder, pending, approve) {
    const said = el("p", { className: "pending-outcome", role: "status" },
      approve ? "Running it…" : "Withdrawing it…");
    holder.append(said);
    try {
      if (approve) {
        const result = await converse({ confirmation: { token: pending.token, approve: true } });
        said.textContent = result.text || "It ran.";
        holder.append(receiptLine(result.receipts, result.receipt));
      } else {
        const result = await request("POST", "/conversation/withdraw", { token: pending.token });
        said.textContent = "Withdrawn: nothing was sent.";
        holder.append(receiptLine(result.receipts, result.receipt));
      }
    } catch (error) {
      if (error.status === 401) return this.onUnauthorized(error);
      said.textContent = error.message;
      if (error.receipts.length) holder.append(receiptLine(error.receipts, error.receipt));
    }
  }

  clear() {
    this.wrap.replaceChildren();
    this.story.replaceChildren();
    this.waiting.replaceChildren();
    this.error.textContent = "";
  }
}

function receiptLine(receipts, said = null) {
  const summary = shownReceipt(said, receipts || []);
  return el("p", { className: `receipt-headline ${summary.stayedLocal ? "stayed" : "left"}` },
    summary.headline);
}
