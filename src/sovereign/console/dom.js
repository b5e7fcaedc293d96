// Building page elements from data without ever parsing data as HTML.

/**
 * el("p", {className: "hint"}, "text", childElement, ...) -> a new element.
 * Attributes go through setAttribute (className and hidden as properties);
 * string children become text nodes, so data is always shown literally.
 */
export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "className") element.className = value;
    else if (name === "hidden") element.hidden = Boolean(value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return element;
}

/**
 * worded("h3", "sites_title", "Sites …", {id}) -> el("h3", {id, "data-word": key}, text):
 * an element holding one of the Console's own words, in English until it is said in the
 * household's language (console-words.js).
 */
export function worded(tag, key, text, attributes = {}) {
  return el(tag, { ...attributes, "data-word": key }, text);
}

/** The element with this id (throws if the page lacks it: a programming error). */
export function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`missing element #${id}`);
  return element;
}

/** Show exactly one of the given elements. */
export function showOnly(visible, all) {
  for (const element of all) element.hidden = element !== visible;
}

/**
 * Fill #id with a settings section: title, intro, then #id-problem (hidden until
 * set), an inline form of [label, control] fields and the save button (its submit
 * calls onSubmit), #id-error and #id-status. Returns those three paragraphs. The title,
 * the intro and each label are [key, English] (the Console's own words, see worded()).
 */
export function settingsSection(id, { title, intro, fields, save, onSubmit }) {
  const paragraph = (name, className, role, hidden) =>
    el("p", { id: `${id}-${name}`, className, role, hidden });
  const problem = paragraph("problem", "error", "alert", true);
  const error = paragraph("error", "error", "alert");
  const status = paragraph("status", "hint", "status");
  const form = el("form", { className: "inline-form", novalidate: true },
    ...fields.flatMap(([[key, label], control]) =>
      [worded("label", key, label, { for: control.id }), control]),
    save);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    onSubmit();
  });
  byId(id).append(worded("h3", ...title, { id: `${id}-title` }), worded("p", ...intro),
    problem, form, error, status);
  return { problem, error, status };
}
