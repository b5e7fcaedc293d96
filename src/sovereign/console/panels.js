// The web search switch (#chat-policy-row) and the activity view.

import { converse, request } from "./api.js";
import { ConfirmationCard } from "./card.js";
import { say, wordsLanguage } from "./console-words.js";
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
      this.error.textContent = say("policy_unread", { reason: error.message });
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
      this.error.textContent = say(enabled ? "policy_not_on" : "policy_not_off",
        { reason: error.message });
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
      this.error.textContent = say("activity_unread", { reason: error.message });
    } finally {
      this.wrap.removeAttribute("aria-busy");
    }
  }

  render(table) {
    const lang = wordsLanguage();
    this.story.replaceChildren(...table.sentences.map((line) =>
      el("p", { lang: table.language }, line)),
      ...(table.repairs.length ? [el("div", { className: "repairs", role: "note" },
        el("h3", { lang }, say("activity_repairs")),
        el("ul", {}, ...table.repairs.map((line) =>
          el("li", { lang: table.repairsLanguage || lang }, line))))] : []));
    if (!table.rows.length) {
      this.wrap.replaceChildren(el("p", { className: "empty", lang }, say("activity_none")),
      ...table.notes.map((note) => el("p", { className: "hint", lang: table.language }, note)));
      return;
    }
    const head = el("tr", { lang }, el("th", { scope: "col" }, say("activity_capability")),
      ...table.columns.map((column) => el("th", { scope: "col" }, column.label)));
    const body = el("tbody", {}, ...table.rows.map((row) => el("tr", {},
      el("th", { scope: "row" }, el("code", {}, row.capability)),
      ...row.counts.map((count) => el("td", {}, String(count))))));
    const foot = el("tfoot", {}, el("tr", {}, el("th", { scope: "row", lang }, say("activity_all")),
      ...table.totals.map((count) => el("td", {}, String(count)))));
    const caption = el("caption", { lang }, say("activity_since", { time: table.since }));
    this.scroller = el("div", { className: "table-scroll", tabindex: "0", role: "region",
      "aria-label": say("activity_counts") },
    el("table", { className: "activity-table" }, caption, el("thead", {}, head), body, foot));
    this.cue = el("p", { className: "hint scroll-cue", hidden: true, lang },
      say("activity_scroll"));
    const details = el("details", { className: "activity-details" },
      el("summary", { lang }, say("activity_counts")), this.cue, this.scroller);
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
    const lang = wordsLanguage();
    this.waiting.replaceChildren(el("h3", { lang }, say("activity_waiting")),
      el("p", { className: "hint", lang }, say("activity_waiting_hint")),
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
      say(approve ? "activity_running" : "activity_withdrawing"));
    holder.append(said);
    try {
      if (approve) {
        const result = await converse({ confirmation: { token: pending.token, approve: true } });
        said.textContent = result.text || say("activity_ran");
        holder.append(receiptLine(result.receipts, result.receipt));
      } else {
        const result = await request("POST", "/conversation/withdraw", { token: pending.token });
        said.textContent = say("activity_withdrawn");
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
