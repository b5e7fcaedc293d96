// The Console's own words (its chrome: navigation, the message box, the headings and
// fixed texts of Settings and Activity) in the household's language. The page holds
// each in English on an element marked data-word="key" (its text) or
// data-word-label="key" (its aria-label); the service says them from its catalogs
// (GET /conversation/words: `console`, service/console_words.py) and applyConsoleWords
// puts each one said in place, marked with its language. A word not said, or not text,
// is the page's English again, so switching back to English restores the page.

const ENGLISH_TEXT = new WeakMap();
const ENGLISH_LABEL = new WeakMap();

function said(words, key) {
  const word = words && typeof words === "object" ? words[key] : null;
  return typeof word === "string" && word.trim() !== "" ? word : null;
}

/**
 * Put the said words (`words`: {key: word}, in `language`) on every marked element under
 * `root`; an element whose word was not said shows its English and is marked "en".
 */
export function applyConsoleWords(root, words, language) {
  const lang = typeof language === "string" && /^[a-z]{2,3}$/.test(language) ? language : "en";
  for (const element of root.querySelectorAll("[data-word]")) {
    if (!ENGLISH_TEXT.has(element)) ENGLISH_TEXT.set(element, element.textContent);
    const word = said(words, element.dataset.word);
    element.textContent = word || ENGLISH_TEXT.get(element);
    element.lang = word ? lang : "en";
  }
  for (const element of root.querySelectorAll("[data-word-label]")) {
    if (!ENGLISH_LABEL.has(element)) ENGLISH_LABEL.set(element, element.getAttribute("aria-label"));
    const word = said(words, element.dataset.wordLabel);
    element.setAttribute("aria-label", word || ENGLISH_LABEL.get(element));
  }
}

/** The English words the page holds, by key (what the service's English must equal). */
export function pageWords(root) {
  const words = {};
  for (const element of root.querySelectorAll("[data-word]")) {
    words[element.dataset.word] = (ENGLISH_TEXT.get(element) ?? element.textContent)
      .replace(/\s+/g, " ").trim();
  }
  for (const element of root.querySelectorAll("[data-word-label]")) {
    words[element.dataset.wordLabel] = ENGLISH_LABEL.get(element) ??
      element.getAttribute("aria-label");
  }
  return words;
}
