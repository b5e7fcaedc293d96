// The card's "Edit" choice: the household rewrites the request's text before it
// leaves. An edit is a new proposal (DESIGN §4): the service checks it again and
// either sends it at once (when it leaves exactly as typed and carries no warning)
// or shows a new card for it. A refused edit keeps this card answerable.

import { englishCardWords } from "./card-words.js";
import { el } from "./dom.js";
import { editableEntries, editedArguments } from "./flags.js";

const FIELD_MAX = 2048;

/**
 * The edit form of one card. onSend(arguments) is called with the edited
 * arguments; onCancel() when the household goes back to the card's choices. words: the
 * card's words as shown (card-words.js: hint, field labels, buttons), English by default.
 */
export class EditPanel {
  constructor(pending, { idPrefix, words = englishCardWords(pending), onSend, onCancel }) {
    this.pending = pending;
    this.words = words;
    this.fields = new Map();
    this.error = el("p", { className: "error edit-error", role: "alert" });
    const rows = editableEntries(pending.arguments).map(([name, value]) =>
      this.field(`${idPrefix}-edit-${name}`, name, value));
    this.sendButton = el("button", { type: "submit", className: "send-edit-button primary" },
      words.send_edit);
    const cancel = el("button", { type: "button", className: "cancel-edit-button" },
      words.cancel);
    cancel.addEventListener("click", () => onCancel());
    this.element = el("form", { className: "card-edit", novalidate: "" },
      el("p", { className: "hint" }, words.edit_hint),
      ...rows, this.error, el("div", { className: "card-buttons" }, cancel, this.sendButton));
    this.element.hidden = true;
    this.element.addEventListener("submit", (event) => {
      event.preventDefault();
      this.error.textContent = "";
      onSend(editedArguments(pending.arguments, this.values()));
    });
  }

  field(id, name, value) {
    const tag = name === "query" ? "textarea" : "input";
    const input = el(tag, { id, className: "edit-field", maxlength: FIELD_MAX, autocomplete: "off",
      spellcheck: "false", ...(tag === "input" ? { type: "text" } : { rows: 2 }) });
    input.value = value;
    this.fields.set(name, input);
    return el("div", { className: "edit-row" }, el("label", { for: id },
      this.words.edit_fields[name] || `Edit ${name}`), input);
  }

  values() {
    return Object.fromEntries([...this.fields].map(([name, input]) => [name, input.value]));
  }

  show() {
    this.element.hidden = false;
    const first = this.fields.values().next().value;
    if (first) first.focus();
  }

  hide() {
    this.element.hidden = true;
  }

  setBusy(busy) {
    this.sendButton.disabled = busy;
    for (const input of this.fields.values()) input.disabled = busy;
    this.sendButton.textContent = busy ? this.words.sending : this.words.send_edit;
  }

  /**
   * The edit was refused: the service's sentence (in the turn's `language`) and, on its
   * own line, the detail it gave: said in that language too (the service says each of
   * the executor's refusals by its code), English as the executor wrote it when the
   * service names no language.
   */
  refused(message, detail = "", language = null) {
    this.setBusy(false);
    this.error.replaceChildren(message);
    if (language) this.error.lang = language;
    else this.error.removeAttribute("lang");
    if (detail && detail !== message) {
      const lang = language || "en";
      this.error.append(el("span", { className: "edit-error-detail", lang }, detail));
    }
  }
}
