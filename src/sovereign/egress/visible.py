"""The visible-character rule: no argument that leaves may hold what the household cannot see.

DESIGN §4 ("What the card shows is what leaves"), decision record
docs/decisions/visible-arguments.md. A character is refused when the approval card
would show it as nothing, as a plain space, as a line break with no marker, or would
let it reorder the text around it:

* surrogates (Cs), unassigned code points (Cn) and private-use characters (Co);
* line and paragraph separators (Zl, Zp);
* format characters (Cf), with the bidirectional controls named as such;
* every other Default_Ignorable_Code_Point (variation selectors, fillers, CGJ);
* every whitespace character other than U+0020 SPACE, and every control (Cc);
* the graphic characters whose reference glyph has no ink (:data:`BLANK_GLYPHS`):
  assigned, not ignorable, not whitespace, and still drawn as an empty cell.

General categories come from the running Python's :mod:`unicodedata`, on purpose: a
code point the runtime does not know is unassigned *to this device*, and refusing it
is the safe reading. Default_Ignorable_Code_Point comes from the table in
:mod:`.ignorable`, which does not depend on the runtime.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from .ignorable import is_default_ignorable

__all__ = [
    "BLANK_GLYPHS",
    "UNICODE_VERSION",
    "Invisible",
    "find_invisible",
    "require_visible",
    "visible_text",
]

UNICODE_VERSION = unicodedata.unidata_version
"""The Unicode version whose categories decide "unassigned" on this device."""

_BIDI_CONTROLS = frozenset({0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)})
BLANK_GLYPHS = frozenset({0x2800, 0x1D159, 0x16FE4, 0x1DA7F, 0x1DA80})
"""Graphic characters drawn as an empty cell: U+2800 BRAILLE PATTERN BLANK (So),
U+1D159 MUSICAL SYMBOL NULL NOTEHEAD (So), U+16FE4 KHITAN SMALL SCRIPT FILLER (Mn)
and the SignWriting wallplane and floorplane spaces U+1DA7F and U+1DA80 (So).
Their categories say "symbol" or "mark", yet a card shows them as a space or as
nothing, so a query could differ from what the household read by one of them. The
other blank characters Unicode has are whitespace, format or default-ignorable
(the Hangul fillers) and fall under the classes above."""
_LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85")
_CONTROL_NAMES = {  # unicodedata has no names for controls; these are their Unicode aliases
    0x00: "NULL",
    0x09: "CHARACTER TABULATION",
    0x0A: "LINE FEED",
    0x0B: "LINE TABULATION",
    0x0C: "FORM FEED",
    0x0D: "CARRIAGE RETURN",
    0x1B: "ESCAPE",
    0x7F: "DELETE",
    0x85: "NEXT LINE",
}
_UNNAMED = {"Cc": "<control>", "Cn": "<unassigned>", "Co": "<private use>", "Cs": "<surrogate>"}


@dataclass(frozen=True)
class Invisible:
    """One refused character: the character, its 1-based position and its class in words."""

    character: str
    position: int
    """Counted in characters (code points) from 1, in the text as proposed."""
    kind: str
    """The class in words, e.g. ``"an invisible character"``."""

    @property
    def label(self) -> str:
        """``"U+200B ZERO WIDTH SPACE"``: the code point and its Unicode name (or alias)."""
        code = ord(self.character)
        category = unicodedata.category(self.character)
        name = _CONTROL_NAMES.get(code) or unicodedata.name(self.character, "")
        return f"U+{code:04X} {name or _UNNAMED.get(category, '<unnamed>')}"

    def sentence(self, noun: str) -> str:
        """``"The query contains an invisible character (U+200B ZERO WIDTH SPACE) at
        position 8."`` for ``noun="query"``."""
        return f"The {noun} contains {self.kind} ({self.label}) at position {self.position}."


def _kind(character: str) -> str | None:
    """The refused class of one character in words, or ``None`` when it is visible."""
    code = ord(character)
    category = unicodedata.category(character)
    if category == "Cs":
        return "a surrogate code point"
    if category == "Cn":
        return f"a code point unassigned in Unicode {UNICODE_VERSION}"
    if category == "Co":
        return "a private-use character"
    if category in ("Zl", "Zp"):
        return "a line or paragraph separator"
    if code in _BIDI_CONTROLS:
        return "an invisible text-direction control"
    if category == "Cf" or is_default_ignorable(code):
        return "an invisible character"
    if code in BLANK_GLYPHS:
        return "a blank character"
    if character in _LINE_BREAKS:
        return "a line break"
    if character == "\t":
        return "a tab"
    if character.isspace() and character != " ":
        return "a space other than the plain space"
    if category == "Cc":
        return "a control character"
    return None


def find_invisible(text: str) -> Invisible | None:
    """The first character of ``text`` the household could not see on the card, or None."""
    for position, character in enumerate(text, 1):
        kind = _kind(character)
        if kind is not None:
            return Invisible(character, position, kind)
    return None


def require_visible(text: str, noun: str) -> None:
    """Refuse ``text`` when it holds a character the card cannot show (see the module).

    Args:
        text: an argument value as proposed.
        noun: what it is, for the sentence (``"query"``, ``"URL"``, ``"entity id"``).

    Raises:
        ValueError: with a sentence naming the class, the code point, its Unicode name
            and its position (→ INVALID_ARGUMENTS at the validate stage).
    """
    found = find_invisible(text)
    if found is not None:
        raise ValueError(found.sentence(noun))


def visible_text(text: str, noun: str) -> str:
    """``text`` in Unicode Normalization Form C, after :func:`require_visible`.

    NFC makes canonically equivalent spellings (``é`` as one code point, or ``e`` plus
    U+0301) one value, so two arguments that render alike are one argument. NFC never
    adds a refused character, and it is idempotent: the result is a fixed point.

    Raises:
        ValueError: as :func:`require_visible`.
    """
    require_visible(text, noun)
    return unicodedata.normalize("NFC", text)
