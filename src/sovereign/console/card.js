// The confirmation card: the literal request awaiting the household's decision.

import { argumentValue } from "./argument.js";
import { EditPanel } from "./card-edit.js";
import { filled, filledText, leavingSentence, shownCardWords } from "./card-words.js";
import { el } from "./dom.js";
import {
  editableEntries, flagNotes, flagSentence, flagTitles, saidFlags, spansOf,
} from "./flags.js";
import { argumentEntries, cardWords, formatCountdown } from "./present.js";
import { searchSettingsLine } from "./search-settings.js";

const TICK_MS = 250;
const REASON_MAX = 200;

/**
 * A card for one pending confirmation (the service's `pending_confirmation`).
 *
 * pending: {token, capability, version, arguments, expires_in_seconds, flags?, edited?,
 * words?}. Its words (title, labels, buttons, countdown, …) are shown as the product said
 * them in the turn's language (`words`, card-words.js), in English when it said none.
 * Flagged spans (household details, words a result wrote or the assistant added; see
 * flags.js) are highlighted and their reasons
 * listed; the choices are then Deny, Edit and "Approve anyway".
 * onDecide({approve, reason}) is called once when Deny or Approve is pressed
 * before expiry; onDecide({approve: true, arguments}) for an edit, which may be
 * refused: editRefused(message, detail) then makes the card answerable again (until it
 * expires). onExpire() once when the countdown reaches zero first. The
 * expired card then offers "Ask again", which calls onRetry() (when given).
 * `element` is the card to put on the page; `stop()` ends the countdown.
 */
export class ConfirmationCard {
  constructor(pending, { onDecide, onExpire, onRetry = null, now = () => performance.now() }) {
    this.pending = pending;
    this.onDecide = onDecide;
    this.onExpire = onExpire;
    this.onRetry = onRetry;
    this.now = now;
    this.deadline = now() + Math.max(0, Number(pending.expires_in_seconds) || 0) * 1000;
    this.settled = false;
    this.element = this.build();
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.tick();
  }

  build() {
    const { capability, arguments: args } = this.pending;
    const shown = cardWords(capability, args).shown;
    const words = this.words = shownCardWords(this.pending);
    const id = `card-${Math.random().toString(36).slice(2)}`;
    this.countdown = el("p", { className: "countdown", role: "timer", "aria-live": "off" });
    this.reason = el("input", {
      id: `${id}-reason`, className: "deny-reason", type: "text", maxlength: REASON_MAX,
      autocomplete: "off",
    });
    this.denyButton = el("button", { type: "button", className: "deny-button" }, words.deny);
    this.approveButton = el("button", { type: "button", className: "approve-button primary" },
      words.approve);
    this.denyButton.addEventListener("click", () => this.decide(false));
    this.approveButton.addEventListener("click", () => this.decide(true));
    const flags = saidFlags(this.pending.flags, words.flag_reasons);
    const notes = flagNotes(args, flags);
    if (notes.length) this.approveButton.textContent = words.approve_anyway;
    this.editButton = editableEntries(args).length
      ? el("button", { type: "button", className: "edit-button" }, words.edit) : null;
    if (this.editButton) this.editButton.addEventListener("click", () => this.startEdit());
    this.choices = el("div", { className: "card-choices" },
      el("label", { for: `${id}-reason` }, words.reason_label), this.reason,
      el("div", { className: "card-buttons" }, this.denyButton, this.editButton,
        this.approveButton));
    this.editPanel = new EditPanel(this.pending, {
      idPrefix: id, words, onSend: (edited) => this.sendEdit(edited), onCancel: () => this.stopEdit(),
    });
    this.actions = el("div", { className: "card-actions" }, this.choices, this.editPanel.element);
    return el("section", {
      className: "confirmation-card", "aria-labelledby": `${id}-title`, tabindex: "-1",
    },
    el("h3", { id: `${id}-title` }, words.title),
    el("p", { className: "card-heading" }, `${words.heading}:`),
    argumentList(args, flags, shown, words),
    searchSettingsLine(capability, args, { line: words.settings, change: words.change }),
    flagList(notes, flags, words),
    el("p", { className: "card-sentence" }, leavingSentence(words, this.pending)),
    technicalDetails(this.pending, words),
    this.countdown,
    this.actions);
  }

  startEdit() {
    if (this.settled) return;
    this.choices.hidden = true;
    this.editPanel.show();
  }

  stopEdit() {
    this.editPanel.hide();
    this.choices.hidden = false;
    this.editButton.focus();
  }

  sendEdit(edited) {
    if (this.settled || this.editing) return;
    if (this.secondsLeft() <= 0) {
      this.expire();
      return;
    }
    this.editing = true;
    this.editPanel.setBusy(true);
    this.onDecide({ approve: true, arguments: edited });
  }

  /**
   * The service refused the edit: say why (its sentence in the turn's `language`, and
   * the `detail` it gave as it is); the card stays answerable until it expires.
   */
  editRefused(message, detail = "", language = null) {
    this.editing = false;
    if (this.settled) return;
    this.editPanel.refused(message, detail, language);
  }

  secondsLeft() {
    return (this.deadline - this.now()) / 1000;
  }

  tick() {
    if (this.settled) return;
    const left = this.secondsLeft();
    if (left <= 0) {
      this.expire();
      return;
    }
    this.countdown.textContent = filledText(this.words.expires, { time: formatCountdown(left) });
  }

  decide(approve) {
    if (this.settled) return;
    if (this.secondsLeft() <= 0) {
      this.expire();
      return;
    }
    this.stop();
    this.denyButton.disabled = true;
    this.approveButton.disabled = true;
    this.reason.disabled = true;
    const reason = approve ? "" : this.reason.value.trim();
    this.onDecide({ approve, reason });
  }

  expire() {
    this.stop();
    this.element.classList.add("expired");
    this.countdown.textContent = this.words.expired;
    this.countdown.setAttribute("role", "status");
    this.actions.remove();
    for (const change of this.element.querySelectorAll(".change-search")) change.remove();
    if (this.onRetry) this.element.append(this.retryButton());
    this.onExpire();
  }

  retryButton() {
    const button = el("button", { type: "button", className: "retry-button primary" },
      this.words.ask_again);
    button.addEventListener("click", () => {
      if (this.onRetry()) button.remove();
    });
    return el("div", { className: "card-buttons" }, button);
  }

  stop() {
    this.settled = true;
    clearInterval(this.timer);
  }
}

/**
 * The arguments the household reads (`shown`), each value exactly as it will be sent; a
 * time window said as a window ("from the last day"), its literal under "Details".
 */
function argumentList(args, flags, shown, words) {
  const list = el("dl", { className: "card-arguments" });
  const entries = argumentEntries(args).filter(([name]) => shown.includes(name));
  for (const [name, literal] of entries) {
    const label = el("dt", { className: entries.length === 1 ? "visually-hidden" : "" },
      words.labels[name] || name);
    const window = name === "time_range" ? words.windows[literal] : null;
    list.append(label, el("dd", {}, window ? el("span", { className: "argument-window" }, window)
      : argumentValue(literal, spansOf(flags, name), words.marks)));
  }
  return list;
}

/** The capability's own name, version and every argument as sent, behind "Details". */
function technicalDetails(pending, words) {
  const list = el("dl", { className: "card-technical" });
  for (const [name, literal] of argumentEntries(pending.arguments)) {
    list.append(el("dt", {}, name), el("dd", {}, el("code", {}, literal)));
  }
  return el("details", { className: "card-details" },
    el("summary", {}, words.details),
    el("p", {}, ...filled(words.capability, {
      capability: el("code", { className: "capability-name" }, pending.capability),
      version: String(pending.version),
    })),
    list);
}

function flagList(notes, flags, words) {
  if (!notes.length) return null;
  const titles = flagTitles(flags, words).map((title) => el("p", { className: "card-flags-title" },
    title));
  return el("div", { className: "card-flags", role: "note" }, ...titles,
    el("ul", {}, ...notes.map((note) => el("li", {}, flagSentence(note, words)))));
}
