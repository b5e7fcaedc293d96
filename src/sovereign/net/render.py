"""A content tree as Markdown-like text, links as numbered references (DESIGN §3 "Text").

Reads both vocabularies the extractors hand over: HTML (``h2``, ``ul``/``ol``/``li``,
``table``/``tr``/``td``, ``a href``, ``br``, ``pre``, ``blockquote``) and trafilatura's
XML (``head rend="h2"``, ``list rend="ol"``/``item``, ``row``/``cell``, ``ref target``,
``lb``, ``code``, ``quote``). The text has ``#`` headings, ``-`` and ``1.`` list
items, one line per table row (``| a | b |``), ``>`` quotes, fenced code and
paragraphs separated by a blank line. A link to an absolute http(s) address (after
resolving it against the page) keeps its text and is cited ``[n]`` (see below); the
address is ``links[n - 1]``. Other schemes (``javascript:``, ``data:``, ``mailto:``...) keep
their text and get no number.

Links cost the model prompt tokens, so only a few keep their number: distinct
addresses other than the page's own, those cited in running text (paragraphs) before
those in lists, headings and table rows, each group in the order the text first uses
them; at most :data:`MAX_LINKS`, and only while their reference lines fit
:data:`LINK_BUDGET_SHARE` of the text (or :data:`LINK_BUDGET_FLOOR` characters on a
short page). A marker never splits a word or a sentence: it stands after the sentence
that holds its link (or at the end of its line or table cell), the way a citation does,
and each address is cited once, where the text first uses it. A link whose address only
names its text needs no citation: the text is the address (``www.example.com``), or a
name of at most :data:`MAX_NAME_WORDS` words spelled by the address's last path segment
(``/tag/space-travel``, ``/author/jane-doe``, ``/news/``), or it is a site's home page:
the site's page for a name, navigation, not a source of what the sentence says. Nor does
a link whose address carries the page's own (a share, print or sign-in link): it acts on
this page.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from urllib.parse import unquote_plus, urljoin, urlsplit, urlunsplit

import lxml.html

__all__ = ["MAX_LINKS", "Rendered", "render", "rendered_lines"]

MAX_LINKS = 8
"""Most addresses one page numbers; links past this keep their text only."""
LINK_BUDGET_SHARE = 0.02
"""The reference lines (``[n] address``) may take this share of the text's characters ...
(each marker and reference line is prompt the model reads, and text the page does not
say: 0.03 before 2026-12-05, docs/decisions/web-fetch-text-extraction.md)"""
LINK_BUDGET_FLOOR = 80
"""... or this many characters on a short page (one reference line to a short address),
so a page that is mostly a link keeps it."""
MAX_URL_CHARACTERS = 2048
MAX_NAME_WORDS = 3
"""A link text of at most this many words is a name (a person, a place, a topic, a
section); a longer one is a title, and an address that spells a title is a document's."""

MAX_CANDIDATE_LINKS = 1000
"""Addresses remembered while rendering, before the budget picks the few that are kept."""

MARK_OPEN, MARK_CLOSE = "\ue001", "\ue002"  # private use: a marker while lines are built
_MARKERS = re.compile(f"{MARK_OPEN}(\\d+){MARK_CLOSE}")
_SENTENCE_END = re.compile(r"[.!?\u2026]+[\"')\]\u201d\u2019]*(?=\s+(\S))")
_CELL_END = re.compile(r"\s\|(?=\s|$)")
_STRUCTURE_LINE = re.compile(r"\s*(?:[-#|>]|\d+\. )")  # items, headings, rows, quotes
_PRIVATE = re.compile(f"[{MARK_OPEN}{MARK_CLOSE}]")
_SPACES = re.compile(r"[ \t\n\r\f\v\u00a0]+")
_ADDRESS_DECORATION = re.compile(r"^(?:https?://)?(?:www\.)?", re.IGNORECASE)
_URL_UNSAFE = re.compile(r"[\x00-\x20\x7f]")
_WORDS = re.compile(r"[^\W_]+")
_ADDRESS_WORDS = re.compile(r"[\W_]+")
_EXTENSION = re.compile(r"\.(?:s?html?|php|aspx?|jsp|cfm)$")

_DROPPED = frozenset(
    {"script", "style", "noscript", "template", "svg", "math", "button", "select", "option",
     "iframe", "object", "canvas", "input", "textarea", "graphic", "img", "picture",
     "figcaption"}
)
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_LISTS = frozenset({"ul", "ol", "dl", "list"})
_ITEMS = frozenset({"li", "item", "dt", "dd"})
_ROWS = frozenset({"tr", "row"})
_CELLS = frozenset({"td", "th", "cell"})
_QUOTES = frozenset({"blockquote", "quote"})
_PRE = frozenset({"pre", "code"})
_BREAKS = frozenset({"br", "lb"})
_BLOCKS = frozenset(
    {"address", "article", "aside", "body", "caption", "center", "details", "dialog", "div",
     "fieldset", "figcaption", "figure", "footer", "form", "header", "hgroup", "hr", "html",
     "main", "nav", "p", "section", "summary", "table", "tbody", "thead", "tfoot", "doc"}
)
_TABLE_BLOCKS = _BLOCKS | _LISTS | _QUOTES | frozenset(_HEADINGS) | {"head", "table"}


@dataclass(frozen=True)
class Rendered:
    """Text with ``[n]`` link markers, and the addresses they stand for.

    Attributes:
        text: the Markdown-like text.
        links: ``links[n - 1]`` is the absolute http(s) address of marker ``[n]``.
        markers: ``(start, end, n)`` character offsets of every marker in ``text``.
    """

    text: str
    links: tuple[str, ...] = ()
    markers: tuple[tuple[int, int, int], ...] = ()


def render(
    element: lxml.html.HtmlElement, base_url: str | None = None,
    skip: frozenset[str] = frozenset(),
) -> Rendered:
    """Render ``element`` (HTML or trafilatura XML) as Markdown-like text.

    Args:
        element: the content root; its own tag is rendered too.
        base_url: where relative link targets are resolved from (the page's
            ``<base href>`` or address); ``None`` keeps only absolute ones.
        skip: tags left out with everything inside them (e.g. ``nav``).
    """
    writer = _Writer(base_url, skip=_DROPPED | skip)
    writer.element(element, depth=0)
    return writer.finish()


@dataclass
class _Writer:
    base_url: str | None
    skip: frozenset[str] = field(default=frozenset())
    lines: list[str] = field(default_factory=list)
    inline: list[str] = field(default_factory=list)
    prefixes: list[str] = field(default_factory=list)  # quote and list indentation
    first_prefix: str | None = None  # the "- " or "1. " of an item's first line
    links: dict[str, int] = field(default_factory=dict)
    preformatted: int = 0

    # ------------------------------------------------------------ structure
    def element(self, element: lxml.html.HtmlElement, depth: int) -> None:
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag in self.skip or tag in _DROPPED or (tag == "head" and element.get("rend") is None
                               and _parent_tag(element) == "html"):
            return
        handler = self._handler(tag, element)
        handler(element, depth)

    def _handler(self, tag: str, element: lxml.html.HtmlElement):  # type: ignore[no-untyped-def]
        if tag in _HEADINGS or tag == "head":
            return self._heading
        if tag in _LISTS:
            return self._list
        if tag in _ROWS:
            return self._row
        if tag == "table" or tag in {"tbody", "thead", "tfoot"}:
            return self._table
        if tag in _QUOTES:
            return self._quote
        if tag in _PRE and self._is_block_code(element):
            return self._code
        if tag in _BREAKS:
            return self._break
        if tag in {"a", "ref"}:
            return self._link
        if tag in _BLOCKS or tag in _ITEMS or tag in _CELLS:
            return self._block
        return self._inline

    def _children(self, element: lxml.html.HtmlElement, depth: int) -> None:
        if element.text:
            self.text(element.text)
        for child in element:
            if depth < 200:
                self.element(child, depth + 1)
            else:  # deeper than any sane page: its text, without structure
                self.text(" ".join(child.itertext()))
            if child.tail:
                self.text(child.tail)

    def _inline(self, element: lxml.html.HtmlElement, depth: int) -> None:
        self._children(element, depth)

    def _block(self, element: lxml.html.HtmlElement, depth: int) -> None:
        self.end_line(blank=True)
        self._children(element, depth)
        self.end_line(blank=True)

    def _break(self, element: lxml.html.HtmlElement, depth: int) -> None:
        self.end_line(blank=False)

    def _heading(self, element: lxml.html.HtmlElement, depth: int) -> None:
        rend = element.get("rend") or element.tag
        level = _HEADINGS.get(str(rend), 3)
        self.end_line(blank=True)
        self.prefixes.append("")
        self.first_prefix = "#" * level + " "
        self._children(element, depth)
        self.end_line(blank=True)
        self.prefixes.pop()
        self.first_prefix = None

    def _list(self, element: lxml.html.HtmlElement, depth: int) -> None:
        ordered = element.tag == "ol" or element.get("rend") == "ol"
        number = _start(element)
        self.end_line(blank=not self.prefixes)
        if element.text and element.text.strip():
            self.text(element.text)
            self.end_line(blank=False)
        for child in element:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag in _ITEMS:
                marker = f"{number}. " if ordered and tag not in ("dt", "dd") else "- "
                number += tag not in ("dt", "dd")
                self._item(child, marker if tag != "dt" else "", depth + 1)
            else:
                self.element(child, depth + 1)
            if child.tail and child.tail.strip():
                self.text(child.tail)
        self.end_line(blank=not self.prefixes)

    def _item(self, element: lxml.html.HtmlElement, marker: str, depth: int) -> None:
        self.end_line(blank=False)
        self.prefixes.append(" " * len(marker))
        self.first_prefix = marker
        self._children(element, depth)
        self.end_line(blank=False)
        self.prefixes.pop()
        self.first_prefix = None

    def _table(self, element: lxml.html.HtmlElement, depth: int) -> None:
        if any(_tag(cell) in _TABLE_BLOCKS for row in element.iter() if _tag(row) in _CELLS
               for cell in row.iter()):
            self._block(element, depth)  # a layout table: its cells are ordinary blocks
            return
        self.end_line(blank=True)
        self._children(element, depth)
        self.end_line(blank=True)

    def _row(self, element: lxml.html.HtmlElement, depth: int) -> None:
        if self._layout_row(element):
            self._block(element, depth)
            return
        cells = [_SPACES.sub(" ", self._cell_text(cell, depth)).strip()
                 for cell in element if _tag(cell) in _CELLS]
        if any(cells):
            self.end_line(blank=False)
            self.inline.append("| " + " | ".join(cells) + " |")  # markers inside stay
            self.end_line(blank=False)
            if _header_row(element):  # Markdown's rule under a header row
                self.lines.append(self._prefix() + "| " + " | ".join("---" for _ in cells) + " |")

    def _layout_row(self, element: lxml.html.HtmlElement) -> bool:
        return any(_tag(node) in _TABLE_BLOCKS for cell in element for node in cell.iter()
                   if _tag(cell) in _CELLS and node is not cell)

    def _cell_text(self, cell: lxml.html.HtmlElement, depth: int) -> str:
        inner = _Writer(self.base_url, skip=self.skip, links=self.links)
        inner._children(cell, depth)
        inner.end_line(blank=False)
        return " ".join(line.strip() for line in inner.lines if line.strip())

    def _quote(self, element: lxml.html.HtmlElement, depth: int) -> None:
        self.end_line(blank=True)
        self.prefixes.append("> ")
        self._children(element, depth)
        self.end_line(blank=False)
        while self.lines and self.lines[-1] == self._prefix().rstrip():
            self.lines.pop()  # no empty quote line at the end
        self.prefixes.pop()
        self.end_line(blank=True)

    def _is_block_code(self, element: lxml.html.HtmlElement) -> bool:
        return element.tag == "pre" or "\n" in element.text_content().strip()

    def _code(self, element: lxml.html.HtmlElement, depth: int) -> None:
        self.end_line(blank=True)
        self.lines.append(self._prefix() + "```")
        self.preformatted += 1
        self._children(element, depth)
        self.end_line(blank=False)
        self.preformatted -= 1
        self.lines.append(self._prefix() + "```")
        self.end_line(blank=True)

    def _link(self, element: lxml.html.HtmlElement, depth: int) -> None:
        self._children(element, depth)
        label = "".join(element.itertext()).strip()
        address = absolute_http_url(element.get("href") or element.get("target"), self.base_url)
        if (not label or address is None or _names(label, address)
                or _acts_on_page(address, self.base_url)):
            return  # nothing to cite: no document other than the page the text names
        number = self._number(address)
        if number is not None:
            self.inline.append(f"{MARK_OPEN}{number}{MARK_CLOSE}")

    def _number(self, address: str) -> int | None:
        if address not in self.links and len(self.links) < MAX_CANDIDATE_LINKS:
            self.links[address] = len(self.links) + 1
        return self.links.get(address)

    # ------------------------------------------------------------ text
    def text(self, text: str) -> None:
        text = _PRIVATE.sub("", text)
        if self.preformatted:
            *complete, rest = text.split("\n")
            for piece in complete:
                self.inline.append(piece)
                self._flush(verbatim=True)
            self.inline.append(rest)
        else:
            self.inline.append(_SPACES.sub(" ", text))

    def end_line(self, *, blank: bool) -> None:
        self._flush(verbatim=bool(self.preformatted))
        separator = self._prefix().rstrip()
        if blank and self.lines and self.lines[-1] != separator:
            self.lines.append(separator)

    def _flush(self, *, verbatim: bool) -> None:
        line = "".join(self.inline)
        self.inline = []
        line = line.rstrip() if verbatim else line.strip()
        if not line and not verbatim:
            return
        prefix = self._prefix()
        if self.first_prefix is not None and line and self.prefixes:
            prefix = prefix[: len(prefix) - len(self.prefixes[-1])] + self.first_prefix
            self.first_prefix = None
        self.lines.append(prefix + line)

    def _prefix(self) -> str:
        return "".join(self.prefixes)

    def finish(self) -> Rendered:
        self.end_line(blank=False)
        text = "\n".join(self.lines).strip("\n")
        links = tuple(sorted(self.links, key=self.links.__getitem__))
        return _with_markers(text, links, absolute_http_url(self.base_url, None))


def rendered_lines(rendered: Rendered, first: int, end: int) -> Rendered:
    """Lines ``first`` to ``end - 1`` of ``rendered``, with the links their markers cite,
    renumbered from 1 in the order they are cited."""
    lines = rendered.text.split("\n")
    start = sum(len(line) + 1 for line in lines[:first])
    stop = start + len("\n".join(lines[first:end]))
    pieces: list[str] = []
    markers: list[tuple[int, int, int]] = []
    links: list[str] = []
    length, last = 0, start
    for begin, finish, number in rendered.markers:
        if begin < start or finish > stop:
            continue
        pieces.append(rendered.text[last:begin])
        length += begin - last
        links.append(rendered.links[number - 1])
        marker = f"[{len(links)}]"
        markers.append((length, length + len(marker), len(links)))
        pieces.append(marker)
        length += len(marker)
        last = finish
    pieces.append(rendered.text[last:stop])
    return Rendered("".join(pieces), tuple(links), tuple(markers))


def _with_markers(text: str, links: tuple[str, ...], page: str | None) -> Rendered:
    """Private-use marks turned into ``[n]`` for the links kept, at their first use, and
    dropped for the rest."""
    text = _placed(text)
    kept = _kept_links(text, links, page)
    pieces: list[str] = []
    markers: list[tuple[int, int, int]] = []
    length, last = 0, 0
    for match in _MARKERS.finditer(text):
        pieces.append(text[last : match.start()])
        length += match.start() - last
        number = kept.get(int(match.group(1)))
        if number is not None:
            marker = f"[{number}]"
            markers.append((length, length + len(marker), number))
            pieces.append(marker)
            length += len(marker)
        last = match.end()
    pieces.append(text[last:])
    ordered = tuple(address for address, _ in sorted(
        ((links[old - 1], new) for old, new in kept.items()), key=lambda pair: pair[1]))
    return Rendered("".join(pieces), ordered, tuple(markers))


def _placed(text: str) -> str:
    """The marks after their sentences (:func:`_after_sentences`), each address's mark
    only where the text first uses it."""
    text = _after_sentences(text)
    seen: set[str] = set()

    def first_use(match: re.Match[str]) -> str:
        if match.group(1) in seen:
            return ""
        seen.add(match.group(1))
        return match.group(0)

    return _MARKERS.sub(first_use, text)


def _after_sentences(text: str) -> str:
    """Every mark moved to the end of the sentence that holds its link.

    A sentence ends at ``.``, ``!``, ``?`` or ``…`` (with any closing quote or bracket)
    before a space and a word that may start one (not a digit or a lower-case letter,
    which follow an abbreviation: ``Nov. 14``, ``e.g. this``), or with its line (a
    paragraph, item, heading or row); a table cell ends at its ``|``. So no word and no
    sentence is split, a sentence's links read as one citation (``… the study shows.[1][2]``).
    """
    if MARK_OPEN not in text:
        return text
    return "\n".join(_line_after_sentences(line) if MARK_OPEN in line else line
                     for line in text.split("\n"))


def _line_after_sentences(line: str) -> str:
    bare_pieces: list[str] = []
    cited: list[tuple[int, str]] = []  # (offset in the line without marks, mark)
    length, last = 0, 0
    for match in _MARKERS.finditer(line):
        bare_pieces.append(line[last : match.start()])
        length += match.start() - last
        cited.append((length, match.group(0)))
        last = match.end()
    bare = "".join(bare_pieces) + line[last:]
    ends = {m.end() for m in _SENTENCE_END.finditer(bare) if _may_start_sentence(m.group(1))}
    ends.add(len(bare.rstrip()))
    if bare.lstrip().startswith("|"):  # a table row: a cell ends at its bar
        ends |= {m.start() for m in _CELL_END.finditer(bare)}
    ordered = sorted(ends)
    by_end: dict[int, dict[str, None]] = {}
    for offset, mark in cited:
        index = bisect.bisect_left(ordered, offset)
        end = ordered[index] if index < len(ordered) else len(bare)
        by_end.setdefault(end, {})[mark] = None
    pieces, last = [], 0
    for end in sorted(by_end):
        pieces += [bare[last:end], *by_end[end]]
        last = end
    return "".join(pieces) + bare[last:]


def _may_start_sentence(character: str) -> bool:
    return not (character.isdigit() or character.islower())


def _kept_links(text: str, links: tuple[str, ...], page: str | None) -> dict[int, int]:
    """``{number while rendering: number shown}`` for the links within the budget,
    numbered in the order the text first uses them."""
    budget = max(LINK_BUDGET_FLOOR, LINK_BUDGET_SHARE * len(_MARKERS.sub("", text)))
    chosen: set[int] = set()
    spent = 0
    for number in _by_usefulness(text):
        cost = len(f"[{len(chosen) + 1}] {links[number - 1]}\n")
        if len(chosen) < MAX_LINKS and links[number - 1] != page and spent + cost <= budget:
            chosen.add(number)
            spent += cost
    first_use = dict.fromkeys(int(m.group(1)) for m in _MARKERS.finditer(text))
    return {number: shown for shown, number in
            enumerate((n for n in first_use if n in chosen), start=1)}


def _by_usefulness(text: str) -> list[int]:
    """Link numbers, those first used in a paragraph line before the others."""
    prose: dict[int, None] = {}
    other: dict[int, None] = {}
    for line in text.split("\n"):
        bucket = other if _STRUCTURE_LINE.match(line) else prose
        for match in _MARKERS.finditer(line):
            number = int(match.group(1))
            if number not in prose and number not in other:
                bucket[number] = None
    return [*prose, *other]


def absolute_http_url(target: str | None, base_url: str | None) -> str | None:
    """``target`` made absolute against ``base_url``, if it is an http(s) address.

    Returns ``None`` for any other scheme (``javascript:``, ``data:``, ``mailto:``),
    a missing host, whitespace or control characters inside, or more than
    :data:`MAX_URL_CHARACTERS`. The fragment is dropped (it is never sent).
    """
    if not target or not target.strip():
        return None
    target = target.strip()
    if _URL_UNSAFE.search(target) or len(target) > MAX_URL_CHARACTERS:
        return None
    try:
        address = urljoin(base_url, target) if base_url else target
        parts = urlsplit(address)
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    return urlunsplit((parts.scheme.lower(), parts.netloc, parts.path or "/", parts.query, ""))


def _names(label: str, address: str) -> bool:
    """Whether ``address`` is only the page for a name, so citing it tells the model
    nothing the text does not: the text is the address (``www.example.com``), a name's
    words are its last path segment (``/tag/space-travel`` for "space travel",
    ``/author/jane-doe/`` for "Jane Doe", ``/news/`` for "News"), or it is a site's home
    page (the logo, "Home", "Fox Business"). Such an address is a topic, tag, author,
    section or home page: navigation, not the source of what the sentence says, and the
    name alone finds it again."""
    if _bare_address(label) == _bare_address(address):
        return True
    words = _WORDS.findall(label.casefold())
    said = "".join(words)
    parts = urlsplit(address)
    if parts.path.strip("/") == "" and not parts.query:
        return True  # a site's home page: where its name leads, whatever the link says
    if not said or len(words) > MAX_NAME_WORDS:
        return False  # no name, or a title: the address of one document
    segments = [s for s in unquote_plus(parts.path).split("/") if s.strip()]
    while segments and not _ADDRESS_WORDS.sub("", segments[-1]).strip("0123456789"):
        segments.pop()  # a trailing number (an id) names nothing
    if not segments:
        return False
    return said == _ADDRESS_WORDS.sub("", _EXTENSION.sub("", segments[-1].casefold()))


def _acts_on_page(address: str, page: str | None) -> bool:
    """Whether ``address`` carries the page's own address as a parameter (``share?url=``,
    ``print?page=``, ``login?return=``): an action on this page, not another document."""
    own = _bare_address(page) if page else ""
    return bool(own) and own in unquote_plus(urlsplit(address).query).casefold()


def _bare_address(text: str) -> str:
    return _ADDRESS_DECORATION.sub("", text.split("#", 1)[0].strip()).rstrip("/").casefold()


def _tag(element: lxml.html.HtmlElement) -> str:
    return element.tag if isinstance(element.tag, str) else ""


def _parent_tag(element: lxml.html.HtmlElement) -> str:
    parent = element.getparent()
    return _tag(parent) if parent is not None else ""


def _start(element: lxml.html.HtmlElement) -> int:
    try:
        return max(0, int(element.get("start", "1")))
    except ValueError:
        return 1


def _header_row(row: lxml.html.HtmlElement) -> bool:
    """Whether every cell of ``row`` is a header cell (HTML ``th``; trafilatura's
    ``cell role="head"``): the row names the columns below it."""
    cells = [cell for cell in row if _tag(cell) in _CELLS]
    return bool(cells) and all(
        _tag(cell) == "th" or cell.get("role") == "head" for cell in cells
    )
