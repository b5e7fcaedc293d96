// The conversation: composer, streamed answers, the confirmation card,
// citations and receipts. The history lives here, in the page only, and is
// sent with each new message (DESIGN §4).

import { converse, stopTurn } from "./api.js";
import { decisionParts, shownCardWords } from "./card-words.js";
import { ConfirmationCard } from "./card.js";
import { say, sayParts } from "./console-words.js";
import { byId, el } from "./dom.js";
import { factPanel } from "./facts.js";
import { renderMarkdown } from "./markdown.js";
import {
  citationEntries,
  fetchRequestMessage,
  historyToSend,
  lostOutcomeNote,
  messageLength,
  spacedAddress,
  recoveredNote,
  shownReceipt,
  saidText,
  sourcesHeading,
} from "./present.js";
import { ProgressLine } from "./progress.js";

/** Waits before each retry of an approval whose answer's stream broke, in ms. */
const RECOVERY_WAITS_MS = [500, 1500, 4000];
/** While an answer streams in, it is shown again at most this often (milliseconds)… */
const PAINT_EVERY_MS = 100;
/** …formatted while it is this short (characters); longer, as plain text until it ends. */
const LIVE_MARKDOWN_CHARS = 20_000;

/**
 * Chat controller bound to the page's #transcript, #composer and #card-slot.
 * onUnauthorized(error) is called when the service says the session ended.
 */
export class Chat {
  constructor({ onUnauthorized }) {
    this.onUnauthorized = onUnauthorized;
    this.transcript = byId("transcript");
    this.thinking = byId("thinking");
    this.cardSlot = byId("card-slot");
    this.input = byId("composer-input");
    this.sendButton = byId("composer-send");
    this.error = byId("composer-error");
    this.count = byId("composer-count");
    this.history = [];
    this.turn = null;
    this.card = null;
    this.controller = null;
    this.turnId = null;
    this.progress = new ProgressLine(this.thinking, { onStop: () => this.stop() });
    byId("composer").addEventListener("submit", (event) => {
      event.preventDefault();
      this.submitComposer();
    });
    this.input.addEventListener("input", () => this.checkLength());
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.submitComposer();
      }
    });
  }

  submitComposer() {
    if (!this.checkLength() || this.heldForSpaces()) return;
    if (this.send(this.input.value)) {
      this.input.value = "";
      this.checkLength();
    }
  }

  /**
   * An address that goes on after a space is not sent at once: the household sees
   * that the assistant would read only the part before the space, and the address
   * with %20 for each space, one tap away. Sending again sends the message as typed.
   */
  heldForSpaces() {
    const found = spacedAddress(this.input.value);
    if (!found || this.spacesShown === this.input.value) return false;
    this.spacesShown = this.input.value;
    const use = el("button", { type: "button", className: "link-button" }, say("use_encoded"));
    use.addEventListener("click", () => {
      this.input.value = this.input.value.replace(found.typed, found.encoded);
      this.error.replaceChildren();
      this.input.focus();
    });
    this.error.replaceChildren(...sayParts("address_spaces",
      { address: el("code", {}, found.encoded), use }));
    return true;
  }

  /** Show the length counter near the limit; false (with a sentence) when too long. */
  checkLength() {
    const { count, problem } = messageLength(this.input.value);
    this.count.textContent = count || "";
    this.count.hidden = !count;
    this.count.classList.toggle("over", Boolean(problem));
    if (problem) this.error.textContent = problem;
    else if (this.tooLong && this.error.textContent === this.tooLong) this.error.textContent = "";
    this.tooLong = problem;
    this.input.setAttribute("aria-invalid", problem ? "true" : "false");
    return !problem;
  }

  /** Start a new turn with this message; false when empty or a turn is in progress. */
  send(text) {
    const message = text.trim();
    if (this.turn) {
      this.error.textContent = say("answer_first");
      return false;
    }
    if (!message) return false;
    this.error.textContent = "";
    this.cardSlot.replaceChildren();
    this.transcript.append(el("li", { className: "message user" },
      el("p", { className: "prose" }, message)));
    this.turn = { message, calls: [], texts: [] };
    this.run({ message, history: historyToSend(this.history) });
    return true;
  }

  async run(payload, { onRefusedEdit = null, onAccepted = null } = {}) {
    this.setBusy(true);
    this.progress.start();
    const bubble = { element: null, prose: null };
    this.controller = new AbortController();
    const handlers = {
      onToken: (piece) => {
        this.progress.answered();
        this.stream(bubble, piece);
      },
      onProgress: (progress) => {
        this.speaks(bubble, progress.language);
        this.progress.show(progress);
      },
      onTurn: (id) => {
        this.turnId = id;
        this.progress.stoppable();
      },
    };
    try {
      const result = await converse(payload, handlers, this.controller.signal);
      if (onAccepted) onAccepted(bubble);
      this.showResult(bubble, result);
    } catch (error) {
      if (error.name === "AbortError") return;
      if (error.code === "INVALID_EDIT" && onRefusedEdit) {
        onRefusedEdit(error);
        return;
      }
      if (onAccepted) onAccepted(bubble);
      if (error.status === 0 && payload.confirmation && payload.confirmation.approve) {
        await this.recover(bubble, payload);
        return;
      }
      this.fail(bubble, error);
    } finally {
      this.turnId = null;
      this.progress.stop();
      this.thinking.hidden = true;
    }
  }

  /**
   * The household pressed Stop: the service ends the turn where nothing is half
   * done (a call that started finishes) and the stream ends with TURN_STOPPED.
   */
  async stop() {
    if (!this.turnId) return;
    try {
      await stopTurn(this.turnId);
    } catch (error) {
      this.error.textContent = say("stop_failed", { reason: error.message });
    }
  }

  /**
   * The stream broke after an approval: ask again with the same token. The
   * appliance answers a repeat from the same session with what it kept, so
   * nothing runs twice and the household learns whether the call ran.
   */
  async recover(bubble, payload) {
    const { capability } = this.turn.calls[this.turn.calls.length - 1];
    const { notes } = this.turn;
    const signal = this.controller.signal;
    for (const wait of RECOVERY_WAITS_MS) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      if (signal.aborted) return;
      try {
        const result = await converse(payload, () => {}, signal);
        this.showResult(bubble, result);
        this.ensureBubble(bubble).element.prepend(
          el("p", { className: "recovered", role: "status" },
            recoveredNote(result.receipts, capability, notes)));
        return;
      } catch (error) {
        if (error.name === "AbortError") return;
        if (error.status !== 0) break;
      }
    }
    this.fail(bubble, { status: 0, message: lostOutcomeNote(capability, notes) });
  }

  stream(bubble, piece) {
    this.ensureBubble(bubble).text += piece;
    if (!bubble.timer) bubble.timer = setTimeout(() => this.paint(bubble), PAINT_EVERY_MS);
  }

  /** Show the answer so far: formatted while short, as plain text past LIVE_MARKDOWN_CHARS. */
  paint(bubble, final = false) {
    clearTimeout(bubble.timer);
    bubble.timer = null;
    const { text } = bubble;
    const prose = final || text.length <= LIVE_MARKDOWN_CHARS
      ? renderMarkdown(text)
      : el("div", { className: "prose plain" }, text);
    bubble.prose.replaceWith(prose);
    bubble.prose = prose;
  }

  ensureBubble(bubble) {
    if (!bubble.element) {
      bubble.text = "";
      bubble.prose = el("div", { className: "prose" });
      bubble.element = el("li", { className: "message assistant" }, bubble.prose);
      if (bubble.language) bubble.element.lang = bubble.language;
      this.transcript.append(bubble.element);
    }
    return bubble;
  }

  /** Mark the answer with the turn's language, so a screen reader reads it in that voice. */
  speaks(bubble, language) {
    if (!saidText(language)) return;
    bubble.language = language;
    if (bubble.element) bubble.element.lang = language;
  }

  showResult(bubble, result) {
    this.speaks(bubble, result.language);
    const text = result.text || "";
    const pending = result.pending_confirmation;
    this.turn.texts.push(text);
    // Above a card, the card itself says what is asked, in household words: the
    // turn's own sentence ("… approval to use web.search") is not shown again.
    if (!pending || bubble.element || (result.receipts || []).length) {
      const { element } = this.ensureBubble(bubble);
      bubble.text = pending ? "" : text;
      this.paint(bubble, true);
      const facts = factPanel(result.facts);
      if (facts) element.append(facts);
      const citations = citationEntries(result.citations);
      if (citations.length) {
        element.append(this.citationList(citations, sourcesHeading(result.citations)));
      }
      const receipts = result.receipts || [];
      if (receipts.length || !pending) {
        element.append(receiptList(result.receipt, receipts, this.turn.calls,
          result.citations || []));
      }
    }
    // What is said if the answer to this card breaks off, in the turn's language.
    if (pending) this.turn.notes = result.approval_notes || null;
    if (pending) this.showCard(pending);
    else this.finishTurn();
  }

  fail(bubble, error) {
    if (error.status === 401) {
      this.finishTurn();
      this.onUnauthorized(error);
      return;
    }
    this.speaks(bubble, error.language);
    const { element } = this.ensureBubble(bubble);
    const stopped = error.code === "TURN_STOPPED";
    element.classList.add(stopped ? "stopped" : "failed");
    element.append(el("p", { className: stopped ? "stopped-note" : "error", role: "alert" },
      error.message));
    // A turn can fail after a call already ran: still say what left the device.
    const receipts = error.receipts || [];
    const citations = citationEntries(error.citations);
    if (citations.length) {
      element.append(this.citationList(citations, sourcesHeading(error.citations)));
    }
    // A stopped turn is an answer cut short: its receipt is shown as under any answer,
    // also when nothing ran ("everything stayed on this device").
    if (receipts.length || stopped) {
      element.append(receiptList(error.receipt, receipts, this.turn ? this.turn.calls : [],
        error.citations));
    }
    this.finishTurn();
  }

  showCard(pending) {
    const { message } = this.turn;
    this.card = new ConfirmationCard(pending, {
      onDecide: (decision) => this.decide(pending, decision),
      onExpire: () => this.expire(pending),
      // The expired card's "Ask again" sends the household's own message anew.
      onRetry: () => this.send(message),
    });
    this.cardSlot.replaceChildren(this.card.element);
    this.thinking.hidden = true;
    this.card.element.focus();
  }

  /**
   * The household's edit: the card stays on screen until the service takes it. A
   * refused edit (422 INVALID_EDIT) is said on the card, which stays answerable.
   */
  sendEdit(pending, edited) {
    const card = this.card;
    const confirmation = { token: pending.token, approve: true, arguments: edited };
    this.run({ confirmation }, {
      onRefusedEdit: (error) => card.editRefused(error.message, error.detail, error.language),
      onAccepted: (bubble) => {
        card.stop();
        if (this.card === card) {
          this.cardSlot.replaceChildren();
          this.card = null;
        }
        this.turn.calls.push({ capability: pending.capability, arguments: edited });
        // The note of what was sent comes before the answer it produced.
        const record = decisionRecord({ ...pending, arguments: edited }, "edited");
        if (bubble.element) this.transcript.insertBefore(record, bubble.element);
        else this.transcript.append(record);
      },
    });
  }

  decide(pending, { approve, reason, arguments: edited }) {
    if (approve && edited) {
      this.sendEdit(pending, edited);
      return;
    }
    const confirmation = { token: pending.token, approve };
    if (!approve && reason) confirmation.reason = reason;
    if (approve) this.turn.calls.push({ capability: pending.capability, arguments: pending.arguments });
    this.cardSlot.replaceChildren();
    this.card = null;
    this.transcript.append(decisionRecord(pending, approve ? "approved" : "denied", reason));
    this.run({ confirmation });
  }

  expire(pending) {
    this.card = null;
    this.transcript.append(decisionRecord(pending, "expired"));
    this.finishTurn();
  }

  finishTurn() {
    if (this.turn) {
      this.history.push({ role: "user", content: this.turn.message });
      const answer = this.turn.texts.filter(Boolean).join("\n\n");
      if (answer) this.history.push({ role: "assistant", content: answer });
    }
    this.turn = null;
    this.controller = null;
    this.setBusy(false);
    this.input.focus();
  }

  setBusy(busy) {
    this.input.disabled = busy;
    this.sendButton.disabled = busy;
    this.thinking.hidden = !busy || Boolean(this.card);
  }

  /** The numbered sources, headed and named by `heading` (the product's, see sourcesHeading). */
  citationList(entries, heading) {
    const list = el("ol", { className: "citation-list" });
    for (const entry of entries) list.append(this.citationItem(entry));
    return el("section", { className: "citations", "aria-label": heading },
      el("h4", {}, heading), list);
  }

  citationItem(entry) {
    const title = entry.link
      ? el("a", { href: entry.link, target: "_blank", rel: "noopener noreferrer" }, entry.title)
      : el("span", { className: "unlinked" }, entry.title);
    const item = el("li", { className: "citation", value: entry.number },
      el("span", { className: "citation-number" }, `[${entry.number}]`), " ", title, " ",
      el("span", { className: `citation-kind ${entry.page ? "page" : "snippet"}` },
        entry.kind),
      el("p", { className: "citation-url" }, entry.url),
      entry.snippet ? el("blockquote", { className: "citation-snippet" }, entry.snippet) : null);
    if (entry.redirectTarget) item.append(this.redirectOffer(entry.redirectTarget));
    return item;
  }

  redirectOffer(target) {
    const button = el("button", { type: "button", className: "fetch-redirect" },
      say("redirect_fetch"));
    button.addEventListener("click", () => this.send(fetchRequestMessage(target)));
    return el("div", { className: "redirect" },
      el("p", {}, ...sayParts("redirect_moved",
        { target: el("code", { className: "redirect-target" }, target) })),
      button);
  }

  /** Drop a pending card whose session ended (its token was bound to that session). */
  abandonPending() {
    if (!this.card) return;
    const { pending } = this.card;
    this.card.stop();
    this.card = null;
    this.cardSlot.replaceChildren();
    this.transcript.append(decisionRecord(pending, "abandoned"));
    this.finishTurn();
  }

  /** Forget everything: the conversation, any pending card, any answer in flight. */
  clear() {
    if (this.controller) this.controller.abort();
    if (this.card) this.card.stop();
    this.card = null;
    this.turn = null;
    this.controller = null;
    this.history = [];
    this.transcript.replaceChildren();
    this.cardSlot.replaceChildren();
    this.input.value = "";
    this.error.textContent = "";
    this.setBusy(false);
  }
}

/** The receipt under an answer: as the product said it in the answer's language and named
 * by its label, else composed here in English and named "Receipt" (shownReceipt). */
function receiptList(said, receipts, calls, citations) {
  const summary = shownReceipt(said, receipts, calls, citations);
  const lines = el("ul", { className: "receipt-lines" });
  for (const line of summary.lines) lines.append(el("li", {}, line));
  return el("div", {
    className: `receipts ${summary.stayedLocal ? "stayed-local" : "left-device"}`,
    "aria-label": summary.label,
    role: "note",
  }, el("p", { className: "receipt-headline" }, summary.headline),
  summary.lines.length ? lines : null);
}

/**
 * The transcript's note of a decision, in the card's words as the product said them in
 * the turn's language (English when it said none): "You approved: search the web for
 * “solar panels”." The request's own arguments are quoted exactly as they were sent, a
 * time window said as a window, a denial's reason quoted as typed.
 */
function decisionRecord(pending, decision, reason = "") {
  const words = shownCardWords(pending);
  return el("li", { className: `message decision ${decision}` },
    el("p", {}, ...decisionParts(words, pending, decision, reason)));
}
