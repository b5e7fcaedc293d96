// The answers' formatting: a safe Markdown subset turned into elements (DESIGN §5).
//
// markdown-it (vendored, see vendor/README.md) only parses: its tokens are walked
// here and each becomes an element from a fixed list, with text always as text
// nodes. Nothing is ever parsed as HTML, so raw HTML in an answer is shown as
// the characters it is. Links are kept only for absolute http(s) addresses and
// are shown as their full destination (the label stays beside it as plain
// text); images are never loaded: their alt text and address are shown as text.
// Nothing here fetches anything.

import MarkdownIt from "./vendor/markdown-it.min.js";

/** Answers longer than this (characters) are shown as plain text, unparsed. */
export const MAX_MARKDOWN_CHARS = 200_000;
/** Block nesting the parser follows; anything deeper makes the answer plain text. */
const MAX_NESTING = 100;
/** Nested lists and quotes past this depth stop indenting further. */
const MAX_INDENT = 6;

const parser = new MarkdownIt("default", {
  html: false,
  linkify: false,
  typographer: false,
  maxNesting: MAX_NESTING,
});
parser.validateLink = (url) => safeHref(url) !== null;
guardNesting(parser);

const BLOCK_TAGS = {
  paragraph: "p",
  bullet_list: "ul",
  ordered_list: "ol",
  list_item: "li",
  blockquote: "blockquote",
  table: "table",
  thead: "thead",
  tbody: "tbody",
  tr: "tr",
  th: "th",
  td: "td",
};
const INLINE_TAGS = { strong: "strong", em: "em", s: "s" };
const HEADING_TAGS = { h1: "h3", h2: "h4", h3: "h5", h4: "h6", h5: "h6", h6: "h6" };
const ALIGNMENTS = new Set(["left", "center", "right"]);

/**
 * An absolute http(s) URL as the browser would request it, or null for anything
 * else (javascript:, data:, protocol-relative "//host", relative paths, garbage).
 */
export function safeHref(url) {
  if (typeof url !== "string" || !/^https?:\/\//i.test(url)) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}

/**
 * The answer `text` as a <div class="prose markdown"> of safe elements.
 * Too long, or nested deeper than the parser follows: the whole answer as plain
 * text instead (class "plain"), so nothing is ever dropped.
 */
export function renderMarkdown(text) {
  const root = document.createElement("div");
  root.className = "prose markdown";
  const source = String(text || "");
  const env = {};
  const tokens = source.length <= MAX_MARKDOWN_CHARS ? parser.parse(source, env) : null;
  if (!tokens || env.tooDeep) {
    root.classList.add("plain");
    root.textContent = source;
    return root;
  }
  buildBlocks(root, tokens);
  return root;
}

function buildBlocks(root, tokens) {
  const stack = [root];
  let depth = 0;
  for (const token of tokens) {
    const parent = stack[stack.length - 1];
    if (token.hidden) continue; // the paragraphs of a tight list: their text goes in the item
    if (token.type === "inline") {
      buildInline(parent, token.children || []);
    } else if (token.nesting === 1) {
      const element = openBlock(token, depth);
      if (isIndenting(token)) depth += 1;
      parent.append(element.wrapper || element);
      stack.push(element);
    } else if (token.nesting === -1) {
      if (stack.length > 1) stack.pop();
      if (isIndenting(token)) depth -= 1;
    } else {
      parent.append(leafBlock(token));
    }
  }
}

function isIndenting(token) {
  return /^(bullet_list|ordered_list|blockquote)_/.test(token.type);
}

function openBlock(token, depth) {
  const kind = token.type.replace(/_open$/, "");
  if (kind === "heading") return document.createElement(HEADING_TAGS[token.tag] || "h6");
  const element = document.createElement(BLOCK_TAGS[kind] || "div");
  if (isIndenting(token) && depth >= MAX_INDENT) element.className = "flat";
  if (kind === "ordered_list") {
    const start = Number.parseInt(token.attrGet("start") || "1", 10);
    if (Number.isSafeInteger(start) && start !== 1) element.setAttribute("start", String(start));
  }
  if (kind === "th" || kind === "td") {
    const align = /text-align:\s*(\w+)/.exec(token.attrGet("style") || "");
    if (align && ALIGNMENTS.has(align[1])) element.className = `align-${align[1]}`;
  }
  if (kind === "table") {
    const wrapper = document.createElement("div");
    wrapper.className = "table-wrap";
    wrapper.append(element);
    element.wrapper = wrapper;
  }
  return element;
}

function leafBlock(token) {
  if (token.type === "fence" || token.type === "code_block") {
    const pre = document.createElement("pre");
    const code = document.createElement("code");
    code.textContent = token.content;
    pre.append(code);
    return pre;
  }
  if (token.type === "hr") return document.createElement("hr");
  const paragraph = document.createElement("p"); // html_block and anything unforeseen
  paragraph.textContent = token.content;
  return paragraph;
}

function buildInline(root, children) {
  const stack = [root];
  let link = null;
  for (const token of children) {
    const parent = stack[stack.length - 1];
    const kind = token.type.replace(/_(open|close)$/, "");
    if (token.type === "link_open") {
      link = { href: safeHref(token.attrGet("href")), label: document.createElement("span") };
      link.label.className = "link-label";
      stack.push(link.label);
    } else if (token.type === "link_close" && link) {
      stack.pop();
      stack[stack.length - 1].append(...linkElements(link));
      link = null;
    } else if (INLINE_TAGS[kind] && token.nesting === 1) {
      const element = document.createElement(INLINE_TAGS[kind]);
      parent.append(element);
      stack.push(element);
    } else if (INLINE_TAGS[kind] && token.nesting === -1) {
      if (stack.length > 1) stack.pop();
    } else {
      parent.append(inlineLeaf(token));
    }
  }
}

function inlineLeaf(token) {
  if (token.type === "softbreak" || token.type === "hardbreak") {
    return document.createElement("br");
  }
  if (token.type === "code_inline") {
    const code = document.createElement("code");
    code.textContent = token.content;
    return code;
  }
  if (token.type === "image") {
    const shown = document.createElement("span");
    shown.className = "image-placeholder";
    const address = token.attrGet("src") || "";
    shown.textContent = `[image: ${token.content || "no description"}] (${address})`;
    return shown;
  }
  return document.createTextNode(token.content); // text, html_inline, anything unforeseen
}

/** The label as plain text, then the link itself, whose visible text is its whole address. */
function linkElements({ href, label }) {
  const shown = label.textContent;
  if (href === null) return [label];
  const anchor = document.createElement("a");
  anchor.href = href;
  anchor.rel = "noopener noreferrer nofollow";
  anchor.target = "_blank";
  anchor.referrerPolicy = "no-referrer";
  anchor.className = "link-destination";
  anchor.textContent = href;
  if (shown === href || shown === decodeSafely(href)) return [anchor];
  return [label, " (", anchor, ")"];
}

function decodeSafely(href) {
  try {
    return decodeURI(href);
  } catch {
    return href;
  }
}

/**
 * markdown-it stops reading blocks nested deeper than maxNesting and silently
 * drops the rest. Note when that happens (env.tooDeep), so the answer is shown
 * whole as plain text rather than cut.
 */
function guardNesting(md) {
  const tokenize = md.block.tokenize;
  md.block.tokenize = function guarded(state, startLine, endLine, ...rest) {
    if (state.level >= state.md.options.maxNesting && state.skipEmptyLines(startLine) < endLine) {
      state.env.tooDeep = true;
    }
    return tokenize.call(this, state, startLine, endLine, ...rest);
  };
}
