"""Look-alike spellings of the household's phrases, and words that mix scripts (DESIGN §4).

An exact match (:mod:`.household`) is dodged by spelling a private word with letters
that look the same: Cyrillic ``М``/``а``/``о`` or Greek ``Ο`` inside a Latin name,
digits for letters (``M4ya 0kafor``), or the words of a phrase swapped (``Okafor
Maya``). Here both the phrase and the text are compared word by word on their
**confusable skeleton** (Unicode TR39 §4, computed by the ``disarm`` library from
Unicode's own ``confusables.txt``, not from a table of ours), after the fold the
exact matcher uses (NFKD, marks dropped, casefolded):

- a word matches when its skeleton equals the phrase word's, or when it has the
  same length and differs only where it has an ASCII digit in place of a letter
  (at least four characters, at most a third of them digits: ``M4ya``, ``0kafor``,
  ``Jun1per``, never ``2024`` or ``A1``);
- a run of words matches a phrase when its words match the phrase's words in any
  order (``Okafor Maya``, ``Okafor, M4ya``), or, as one word, the phrase's words run
  together.

Separately, any word (a run of letters and digits) whose letters come from more
than one writing system and that holds a letter TR39 reads as another (``Мaya``: a
Cyrillic ``М`` before Latin letters) is flagged wherever it appears: that is how a
look-alike spelling is built, and no household word needs it (UTS #39 §5.1 writing
systems, again through ``disarm``; Japanese kana beside kanji is one writing
system, digits belong to none, and ``iPhoneケース`` holds no look-alike letter).
"""

# ruff: noqa: RUF002 - the look-alike letters in the docstrings are the point

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise

from disarm import is_mixed_script, skeleton_key

__all__ = ["MIXED_SCRIPT", "Lookalikes", "fold", "mixed_script_words", "skeleton"]

Match = tuple[str, int, int]
MIXED_SCRIPT = "mixed_script"
MIN_DIGIT_SPELLING = 4
"""Shortest word in which digits may stand for letters, in characters."""
_CAMEL = re.compile(r"(?<=[^\W\d_])(?=[A-Z])")


def _unmarked(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=8192)
def fold(word: str) -> str:
    """A word as compared: NFKD, combining marks dropped, casefolded."""
    return _unmarked(word).casefold()


@lru_cache(maxsize=8192)
def skeleton(word: str) -> str:
    """The TR39 skeleton of ``word`` with its marks dropped, lower-cased; ASCII digits
    stay digits. Case is folded by the skeleton itself, after the confusable fold:
    a capital Greek Eta looks like ``H``, its small letter like ``n``."""
    return skeleton_key(_unmarked(word), digit_policy="numeric")


def runs(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each run of letters and digits in ``text``, the combining
    marks inside it included (a decomposed ``סּ`` does not end a word)."""
    found, start = [], None
    for index, char in enumerate(text):
        inside = char.isalnum() or (start is not None and unicodedata.combining(char))
        if inside and start is None:
            start = index
        elif not inside and start is not None:
            found.append((start, index))
            start = None
    if start is not None:
        found.append((start, len(text)))
    return found


def words(text: str) -> list[tuple[str, int, int]]:
    """``(skeleton, start, end)`` of each word of ``text``: a run of letters and
    digits (:func:`runs`), split where a lower-case letter meets an upper-case one
    (``ZoeMuller``)."""
    found = []
    for start, end in runs(text):
        run = text[start:end]
        cuts = [0, *(m.start() for m in _CAMEL.finditer(run)), len(run)]
        for a, b in pairwise(cuts):
            shape = skeleton(run[a:b])
            if shape:
                found.append((shape, start + a, start + b))
    return found


def same_word(written: str, wanted: str) -> bool:
    """True when ``written`` (a text's skeleton) spells ``wanted`` (a phrase word's),
    with ASCII digits for at most a third of the letters of a word of four or more."""
    if written == wanted:
        return True
    if len(written) != len(wanted) or len(written) < MIN_DIGIT_SPELLING:
        return False
    digits = 0
    for have, want in zip(written, wanted, strict=True):
        if have == want:
            continue
        if not (have.isascii() and have.isdigit() and want.isalpha()):
            return False
        digits += 1
    return digits <= len(written) // 3


def _same_words(written: list[str], wanted: tuple[str, ...]) -> bool:
    """``written`` matches ``wanted`` word for word in some order (small lists)."""
    if not written:
        return True
    head, rest = written[0], written[1:]
    for index, candidate in enumerate(wanted):
        if same_word(head, candidate) and _same_words(rest, wanted[:index] + wanted[index + 1 :]):
            return True
    return False


def _shape(items: Iterable[str]) -> tuple[int, tuple[int, ...]]:
    lengths = sorted(len(item) for item in items)
    return len(lengths), tuple(lengths)


@dataclass(frozen=True)
class Lookalikes:
    """The household's phrases by skeleton, compiled once (:meth:`build`)."""

    index: dict[tuple[int, tuple[int, ...]], list[tuple[tuple[str, ...], str]]] = field(
        default_factory=dict
    )
    longest: int = 0

    @classmethod
    def build(cls, phrases: Iterable[tuple[str, str]]) -> Lookalikes:
        """Compile ``(phrase, kind)`` pairs; the first kind for a spelling stays."""
        index: dict[tuple[int, tuple[int, ...]], list[tuple[tuple[str, ...], str]]] = {}
        seen: set[tuple[str, ...]] = set()
        for phrase, kind in phrases:
            shapes = tuple(shape for shape, _, _ in words(phrase))
            if sum(map(len, shapes)) < 2:
                continue
            for variant in {shapes, ("".join(shapes),)}:
                if variant not in seen:
                    seen.add(variant)
                    index.setdefault(_shape(variant), []).append((variant, kind))
        longest = max((count for count, _ in index), default=0)
        return cls(index, longest)

    def find(self, text: str) -> list[Match]:
        """Runs of words of ``text`` that spell a phrase (see the module docstring)."""
        if not self.index:
            return []
        found: list[Match] = []
        found_words = words(text)
        for start in range(len(found_words)):
            for count in range(1, self.longest + 1):
                run = found_words[start : start + count]
                if len(run) < count:
                    break
                shapes = [shape for shape, _, _ in run]
                for wanted, kind in self.index.get(_shape(shapes), ()):
                    if _same_words(shapes, wanted):
                        found.append((kind, run[0][1], run[-1][2]))
                        break
        return found


def mixed_script_words(text: str) -> list[Match]:
    """Each word of ``text`` whose letters come from more than one writing system and
    hold a letter TR39 reads as another (``Мaya``, ``okаfor``); ``iPhoneケース`` mixes
    scripts with no look-alike letter and is left alone."""
    found = []
    for start, end in runs(text):
        word = text[start:end]
        if word.isascii() or not is_mixed_script(word):
            continue
        if skeleton(word) != _unmarked(word).casefold():
            found.append((MIXED_SCRIPT, start, end))
    return found
