"""What the household-identifier check reads: one spelling per character, with a map back.

An identifier can be written many ways that all leave the device as the same
information: percent-encoded (``jane%40example.com``), in full-width or other
compatibility forms (``１９２．１６８．１．５``), with an ideographic full stop (``。``),
defanged (``192[.]168[.]1[.]5``, ``name(at)example(dot)com``), spelled between
digits (``192 dot 168``), or inside an IDNA host (``xn--``). :func:`scan_view`
rewrites each of these into one plain spelling and remembers, for every character
of the view, the span of the original text it came from. A detector matches the
view; :meth:`ScanView.original_span` turns its match into a span of the text the
card shows, counted in code points.

Pure and deterministic (DESIGN §4, docs/decisions/household-identifiers.md).
"""

# ruff: noqa: RUF002 - the look-alike characters in the docstrings are the point

from __future__ import annotations

import codecs
import re
import unicodedata
from dataclasses import dataclass

__all__ = ["ScanView", "scan_view"]

_SPECIAL = re.compile(
    r"(?P<percent>(?:%[0-9A-Fa-f]{2})+)"
    r"|(?P<dot>\s*[\[({<]\s*(?:\.|dot)\s*[\])}>]\s*)"
    r"|(?P<at>\s*[\[({<]\s*at\s*[\])}>]\s*)"
    r"|(?P<spelled>(?<=\d)\s+dot\s+(?=\d))"
    r"|(?P<idna>(?<![\w-])xn--[a-z0-9-]{1,59})",
    re.IGNORECASE,
)
_FULL_STOPS = {"\u3002": ".", "\uff0e": ".", "\uff61": ".", "\ufe52": "."}
"""Characters that IDNA (UTS #46) reads as a label separator, written as ``.``."""


@dataclass(frozen=True)
class ScanView:
    """The folded text and, per character, where in the original it came from.

    ``starts[i]``/``ends[i]`` are the original span (code points, end exclusive) of
    ``text[i]``; both are ``None`` when the view is the original itself.
    """

    text: str
    starts: tuple[int, ...] | None = None
    ends: tuple[int, ...] | None = None

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original text that ``text[start:end]`` (non-empty) came from."""
        if self.starts is None or self.ends is None:
            return start, end
        return self.starts[start], self.ends[end - 1]


def scan_view(text: str) -> ScanView:
    """Fold ``text`` as the module describes; a plain-ASCII text without any special
    spelling is its own view (no copy, no map)."""
    if text.isascii() and _SPECIAL.search(text) is None:
        return ScanView(text)
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    at = 0
    for match in _SPECIAL.finditer(text):
        _fold_plain(text, at, match.start(), out, starts, ends)
        for piece, start, end in _fold_special(match):
            out.append(piece)
            starts.append(start)
            ends.append(end)
        at = match.end()
    _fold_plain(text, at, len(text), out, starts, ends)
    return ScanView("".join(out), tuple(starts), tuple(ends))


def _fold_plain(
    text: str, start: int, end: int, out: list[str], starts: list[int], ends: list[int]
) -> None:
    """Compatibility-fold (NFKC) each character of ``text[start:end]`` on its own."""
    for index in range(start, end):
        character = text[index]
        folded = _FULL_STOPS.get(character) or (
            character if character.isascii() else unicodedata.normalize("NFKC", character)
        )
        for piece in folded:
            out.append(_FULL_STOPS.get(piece, piece))
            starts.append(index)
            ends.append(index + 1)


def _fold_special(match: re.Match[str]) -> list[tuple[str, int, int]]:
    kind = match.lastgroup
    start, end = match.span()
    if kind == "percent":
        return _percent_decoded(match.group(), start)
    if kind in ("dot", "spelled"):
        return [(".", start, end)]
    if kind == "at":
        return [("@", start, end)]
    decoded = _idna_label(match.group())
    return [(character, start, end) for character in decoded]


def _percent_decoded(run: str, offset: int) -> list[tuple[str, int, int]]:
    """Each UTF-8 sequence of a run of ``%XX`` escapes as one character over its escapes;
    a byte that does not start a valid sequence keeps its escape as written."""
    data = bytes.fromhex(run.replace("%", ""))
    pieces: list[tuple[str, int, int]] = []
    index = 0
    while index < len(data):
        length = _utf8_length(data[index])
        character = _decode(data[index : index + length]) if length else None
        if character is None:
            length = 1
            escape = offset + 3 * index
            pieces.extend((run[3 * index + k], escape + k, escape + k + 1) for k in range(3))
        else:
            span = (offset + 3 * index, offset + 3 * (index + length))
            for piece in unicodedata.normalize("NFKC", character):
                pieces.append((_FULL_STOPS.get(piece, piece), *span))
        index += length
    return pieces


def _decode(chunk: bytes) -> str | None:
    try:
        return chunk.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _utf8_length(lead: int) -> int:
    if lead < 0x80:
        return 1
    if 0xC2 <= lead <= 0xDF:
        return 2
    if 0xE0 <= lead <= 0xEF:
        return 3
    if 0xF0 <= lead <= 0xF4:
        return 4
    return 0  # a continuation byte or an invalid lead: never valid on its own


def _idna_label(label: str) -> str:
    """An ``xn--`` label in Unicode (RFC 3492), NFKC-folded; unchanged when it does not decode."""
    try:
        decoded = codecs.decode(label[4:].lower().encode("ascii"), "punycode")
    except (UnicodeError, ValueError):
        return label
    return unicodedata.normalize("NFKC", decoded)
