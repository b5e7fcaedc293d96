"""What ``sovereign chat`` prints, drawn so that no result or answer can forge it.

Three kinds of text reach the terminal, and each is drawn so it cannot pass for
another:

- **The assistant's answer** (the model's words, which a search result may have
  dictated): every row starts with :data:`GUTTER`. Its newlines start a new gutter
  row; it is wrapped to the terminal's width here, so the terminal never wraps a
  row to its first column by itself.
- **Text from a result or the service** inside a line the product draws (a source's
  title, address and snippet, an argument, an error): on one line, every control
  character, newline and tab written as a visible escape (:func:`one_line`),
  wrapped under the product's own prefix.
- **The product's account of what ran** (sources and receipt): every row starts
  with :data:`MARK`.

Neither answer nor result text can hold a control character (no cursor moves, no
colours, no carriage return), a bidirectional control, a line or paragraph
separator, or any box-drawing or block character (:data:`MARK` and :data:`GUTTER`
among them): each is written as a visible escape. So a row that starts with
:data:`MARK` was drawn by this client, whatever a result says.
"""

from __future__ import annotations

import shutil
import unicodedata

__all__ = ["GUTTER", "MARK", "AnswerWriter", "display_width", "one_line", "rows", "width"]

GUTTER = "\u2502 "
"""Before every row of the assistant's answer ("│ ")."""
MARK = "\u258d "
"""Before every row of the sources and receipt ("▍ "); no untrusted text can hold it."""
FALLBACK_COLUMNS = 100
"""Width assumed when the output is not a terminal that says its size."""
_BIDI = frozenset(range(0x202A, 0x202F)) | frozenset(range(0x2066, 0x206A)) | {0x061C}
_SEPARATORS = frozenset({0x2028, 0x2029})
_DRAWING = range(0x2500, 0x25A0)
"""Box Drawing and Block Elements: the characters the product draws its frames with."""


def width() -> int:
    """The terminal's width in columns (at least 40)."""
    return max(40, shutil.get_terminal_size((FALLBACK_COLUMNS, 24)).columns)


def _unsafe(char: str, *, keep_newline: bool) -> bool:
    point = ord(char)
    if char == "\n":
        return not keep_newline
    return (
        point < 0x20
        or 0x7F <= point < 0xA0
        or point in _BIDI
        or point in _SEPARATORS
        or point in _DRAWING
        or unicodedata.category(char) in ("Cs", "Co", "Cn")
    )


def _escape(char: str) -> str:
    point = ord(char)
    if point < 0x100:
        return f"\\x{point:02x}"
    return f"\\u{point:04x}" if point < 0x10000 else f"\\U{point:08x}"


def escaped(text: str, *, keep_newline: bool = False) -> str:
    """``text`` with every unsafe character (module docstring) as a visible escape."""
    return "".join(_escape(c) if _unsafe(c, keep_newline=keep_newline) else c for c in text)


def one_line(text: object) -> str:
    """``text`` on one line: newlines, tabs and every other unsafe character escaped."""
    return escaped(str(text))


def display_width(text: str) -> int:
    """Columns ``text`` takes: wide East Asian characters 2, combining marks 0."""
    total = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        total += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return total


def rows(
    text: object, first: str, rest: str | None = None, columns: int | None = None
) -> list[str]:
    """``text`` made one line (:func:`one_line`) and wrapped to ``columns``: the first
    row after ``first``, the others after ``rest`` (default: spaces as wide as ``first``).
    Breaks at spaces where it can, inside a word where it must."""
    columns = columns or width()
    rest = " " * display_width(first) if rest is None else rest
    room = max(1, columns - max(display_width(first), display_width(rest)))
    out, prefix, line = [], first, ""
    for word in _words(one_line(text)):
        for piece in _cut(word, room):
            if line and display_width(prefix + line + piece.rstrip(" ")) > columns:
                out.append(prefix + line.rstrip(" "))
                prefix, line = rest, piece.lstrip(" ")
            else:
                line += piece
    out.append(prefix + line.rstrip(" "))
    return out


def _words(text: str) -> list[str]:
    """``text`` cut after each space: the words keep the space that follows them."""
    words, start = [], 0
    for index, char in enumerate(text):
        if char == " ":
            words.append(text[start : index + 1])
            start = index + 1
    if start < len(text):
        words.append(text[start:])
    return words


def _cut(word: str, room: int) -> list[str]:
    """``word`` in pieces of at most ``room`` columns (one piece when it fits)."""
    pieces, piece = [], ""
    for char in word:
        if piece and display_width(piece + char) > room:
            pieces.append(piece)
            piece = ""
        piece += char
    return [*pieces, piece] if piece else pieces


class AnswerWriter:
    """Streams the assistant's answer as gutter rows (module docstring).

    :meth:`feed` each piece as it arrives and print what it returns; :meth:`end`
    closes the last row. A word is held back until it is complete (a space or a
    newline follows), so rows break between words.

    Args:
        columns: the terminal's width (default: :func:`width`).
    """

    def __init__(self, columns: int | None = None) -> None:
        self.columns = columns or width()
        self._column = 0
        self._word = ""
        self._started = False

    def feed(self, piece: str) -> str:
        """The text to print for ``piece`` (possibly empty while a word is incomplete)."""
        out = [self._open()]
        for char in escaped(piece.replace("\t", " "), keep_newline=True):
            if char == "\n":
                out.append(self._flush() + "\n" + GUTTER)
                self._column = display_width(GUTTER)
            elif char == " ":
                out.append(self._flush() + self._place(" "))
            else:
                self._word += char
        return "".join(out)

    def end(self) -> str:
        """The rest of the answer and the end of its last row."""
        opening = self._open()
        return opening + self._flush() + "\n"

    def _open(self) -> str:
        if self._started:
            return ""
        self._started = True
        self._column = display_width(GUTTER)
        return GUTTER

    def _flush(self) -> str:
        word, self._word = self._word, ""
        out = []
        room = self.columns - display_width(GUTTER)
        for piece in _cut(word, room):
            out.append(self._place(piece))
        return "".join(out)

    def _place(self, text: str) -> str:
        needed = display_width(text)
        if self._column + needed <= self.columns:
            self._column += needed
            return text
        if text == " ":
            return ""  # a space at the end of a row: the next row starts afresh
        self._column = display_width(GUTTER) + needed
        return "\n" + GUTTER + text
