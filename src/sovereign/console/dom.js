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
