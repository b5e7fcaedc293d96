"""What every screen of the household path must satisfy: nothing scrolls sideways, text
and controls meet WCAG 2.2 AA contrast, and every control is large enough to tap.

The checks run in the page on what is visible: text contrast 4.5:1 (3:1 for large text:
24 px, or 18.66 px bold), a switch's off state 3:1 against what is behind it, and tap
targets of at least 24 x 24 CSS px (WCAG 2.5.8; 44 px is preferred and is what the
Console's buttons are)."""

from __future__ import annotations

AUDIT = """() => {
  const parse = (c) => {
    const m = c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { r, g, b, a };
  };
  const lum = ({ r, g, b }) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (x, y) => {
    const [a, b] = [lum(x), lum(y)].sort((p, q) => q - p);
    return (a + 0.05) / (b + 0.05);
  };
  const background = (el) => {
    for (let node = el; node; node = node.parentElement) {
      const c = parse(getComputedStyle(node).backgroundColor);
      if (c && c.a > 0.5) return c;
    }
    return { r: 255, g: 255, b: 255, a: 1 };
  };
  const visible = (el) => {
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    return box.width > 0 && box.height > 0 && style.visibility !== "hidden" &&
      !el.closest("[hidden]") && Number(style.opacity) > 0.1;
  };
  const problems = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  while (walker.nextNode()) {
    const el = walker.currentNode.parentElement;
    if (!walker.currentNode.textContent.trim() || seen.has(el) || !visible(el)) continue;
    if (el.closest(".visually-hidden, .skip-link, button:disabled, input:disabled")) continue;
    seen.add(el);
    const style = getComputedStyle(el);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    const need = large ? 3 : 4.5;
    const got = ratio(parse(style.color), background(el));
    const text = el.textContent.trim().slice(0, 40);
    if (got < need) problems.push(`text ${got.toFixed(2)}:1 < ${need}: ${text}`);
  }
  for (const el of document.querySelectorAll("button, input, select, textarea, summary, a[href]")) {
    // WCAG 2.5.8's inline exception: a link inside a sentence of the answer's prose.
    if (!visible(el) || el.closest(".skip-link") || (el.tagName === "A" && el.closest(".prose")))
      continue;
    const box = el.getBoundingClientRect();
    if (box.width < 24 || box.height < 24) {
      problems.push(`target ${Math.round(box.width)}x${Math.round(box.height)}: ` +
        `${el.tagName} ${el.id || el.textContent.trim().slice(0, 30)}`);
    }
  }
  for (const el of document.querySelectorAll(".switch:not(:checked)")) {
    if (!visible(el)) continue;
    const got = ratio(parse(getComputedStyle(el).backgroundColor), background(el.parentElement));
    if (got < 3) problems.push(`switch off state ${got.toFixed(2)}:1 < 3`);
  }
  const width = document.documentElement.scrollWidth;
  if (width > window.innerWidth) {
    problems.push(`page scrolls sideways: ${width} > ${window.innerWidth}`);
  }
  return problems;
}"""


def screen_problems(page) -> list[str]:
    """Every contrast, tap-target and sideways-scroll problem on the screen as it is."""
    return page.evaluate(AUDIT)
