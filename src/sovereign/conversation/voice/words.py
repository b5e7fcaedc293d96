"""Words as people write them: found with their spans, compared folded and by stem.

Used to tell whether a word of an outgoing query is one the household wrote
(:mod:`..approval.added_words`) and to find the time spans a question names
(:mod:`..offer.time_spans`). Language-independent except for the stemmer, which is
Snowball's for the question's language (``snowballstemmer``, the algorithms of
snowballstem.org for English, German, French, Spanish, Dutch and Italian).

- A **word** is a run of letters and digits (combining marks included), which may
  hold apostrophes or hyphens between two of its characters (``week-end``,
  ``quest'anno``, ``year's``): its **parts** are the pieces between them.
- The **fold** compares spellings of one word: Unicode NFKC (full-width and other
  compatibility forms), case folded, accents and other combining marks dropped
  (``Café`` is ``cafe``), every decimal digit written as an ASCII one (``٢٠٢٣`` is
  ``2023``). Letters of different scripts stay different: a Cyrillic a (U+0430)
  is not a Latin ``a``, so a look-alike spelling is another word.
- The **stem** is the Snowball stem of the case-folded word, then folded
  (``Weihnachtsmärkte`` and ``Weihnachtsmarkt`` share one, so do ``markets`` and
  ``market``). Irregular forms (``children``, ``mice``) keep their own.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

import snowballstemmer

__all__ = [
    "SNOWBALL",
    "PhraseIndex",
    "Word",
    "fold",
    "joined",
    "letters",
    "spaceless",
    "stem",
    "stop_words",
    "words",
]

SNOWBALL = {
    "en": "english",
    "de": "german",
    "fr": "french",
    "es": "spanish",
    "nl": "dutch",
    "it": "italian",
}
"""The Snowball algorithm for each language the product speaks (ISO 639-1)."""
CONNECTORS = frozenset("'\u2019\u02bc-\u2010\u2011")
"""Apostrophes (ASCII, right single quotation mark, modifier letter) and hyphens
(ASCII, Unicode hyphen, non-breaking hyphen) that join the parts of one word."""
V = TypeVar("V")
_STOP_WORDS = Path(__file__).resolve().parent / "stop_words"
_SPACELESS = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
"""Thai, Lao, Myanmar, kana and Han code points: scripts written without spaces."""


@dataclass(frozen=True)
class Word:
    """One word of a text: ``text[start:end]`` (code points), its parts as written
    (NFKC, case folded: what a stemmer reads) and its folded parts."""

    start: int
    end: int
    written: tuple[str, ...]
    parts: tuple[str, ...]

    @property
    def whole(self) -> str:
        """The folded parts run together (``week-end`` → ``weekend``)."""
        return "".join(self.parts)


def words(text: str) -> list[Word]:
    """Every word of ``text`` in order (see the module docstring)."""
    found = []
    for start, end in _runs(text):
        pieces = [_cased(piece) for piece in _split(text[start:end])]
        kept = [piece for piece in pieces if fold(piece)]
        if kept:
            found.append(Word(start, end, tuple(kept), tuple(fold(piece) for piece in kept)))
    return found


def _cased(word: str) -> str:
    return unicodedata.normalize("NFKC", word).casefold()


def _inside(char: str) -> bool:
    return char.isalnum() or unicodedata.combining(char) > 0


def _runs(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each word: characters inside words, and single connectors
    with such a character on each side."""
    start = None
    for index, char in enumerate(text):
        joined_here = (
            char in CONNECTORS
            and start is not None
            and index + 1 < len(text)
            and _inside(text[index + 1])
        )
        if _inside(char) or joined_here:
            start = index if start is None else start
        elif start is not None:
            yield start, index
            start = None
    if start is not None:
        yield start, len(text)


def _split(word: str) -> list[str]:
    pieces, current = [], []
    for char in word:
        if char in CONNECTORS:
            pieces.append("".join(current))
            current = []
        else:
            current.append(char)
    pieces.append("".join(current))
    return pieces


@functools.lru_cache(maxsize=16384)
def fold(word: str) -> str:
    """``word`` as compared: NFKC, case folded, marks dropped, digits ASCII."""
    folded = unicodedata.normalize("NFKC", word).casefold()
    bare = "".join(c for c in unicodedata.normalize("NFKD", folded) if not unicodedata.combining(c))
    return "".join(_ascii_digit(c) for c in unicodedata.normalize("NFC", bare))


def _ascii_digit(char: str) -> str:
    value = unicodedata.decimal(char, None)
    return str(value) if value is not None else char


@functools.cache
def _stemmer(language: str) -> snowballstemmer.Stemmer | None:
    algorithm = SNOWBALL.get(language)
    return snowballstemmer.stemmer(algorithm) if algorithm else None


@functools.lru_cache(maxsize=16384)
def stem(word: str, language: str) -> str:
    """The folded Snowball stem of ``word`` in ``language`` (ISO 639-1); for a
    language without a stemmer, the fold alone."""
    stemmer = _stemmer(language)
    if stemmer is None:
        return fold(word)
    return fold(stemmer.stemWord(_cased(word)))


@functools.cache
def stop_words(language: str) -> frozenset[str]:
    """The folded stop words of ``language`` (ISO 639-1): articles, pronouns,
    prepositions, auxiliaries and the like, Snowball's list for the language
    (``stop_words/<language>.txt``, unchanged from snowballstem.org); empty for a
    language without one. A line's first word is the stop word; ``|`` starts a comment."""
    path = _STOP_WORDS / f"{language}.txt"
    if not SNOWBALL.get(language) or not path.is_file():
        return frozenset()
    listed = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = line.split("|", 1)[0].split()
        if entry:
            listed.add(fold(entry[0]))
    return frozenset(listed)


def letters(phrase: str) -> str:
    """The folded words of ``phrase`` run together: how a catalog phrase is matched, so
    case, accents, hyphens and the spaces between words do not count ("week-end",
    "week end" and "Weekend" are ``weekend``)."""
    return "".join(word.whole for word in words(phrase))


@dataclass(frozen=True)
class PhraseIndex(Generic[V]):
    """Catalog phrases by their :func:`letters`, each with a value, matched as runs of
    whole words: "week-end", "week end" and "Weekend" are one phrase, "weekends" another.

    Attributes:
        values: a phrase's letters → its value.
        longest: the most words of one phrase.
    """

    values: dict[str, V]
    longest: int = 1

    @classmethod
    def of(cls, phrases: Iterable[tuple[str, V]]) -> PhraseIndex[V]:
        """The index of ``(phrase, value)`` pairs; a phrase listed twice keeps its first
        value."""
        values: dict[str, V] = {}
        longest = 1
        for phrase, value in phrases:
            values.setdefault(letters(phrase), value)
            longest = max(longest, len(words(phrase)))
        return cls(values, longest)

    def longest_at(self, found: list[Word], start: int) -> tuple[V | None, int]:
        """The value of the longest phrase spelled by ``found[start:]`` and the index
        after its last word (``(None, start)`` when none begins there)."""
        run, best = "", (None, start)
        for end in range(start, min(len(found), start + self.longest)):
            run += found[end].whole
            if run in self.values:
                best = (self.values[run], end + 1)
        return best

    def in_text(self, text: str, skipped: frozenset[str] = frozenset()) -> bool:
        """Whether any phrase occurs in ``text`` as whole words, once the words whose
        :func:`letters` are in ``skipped`` are taken out (fillers such as "bitte")."""
        found = [word for word in words(text) if word.whole not in skipped]
        return any(self.longest_at(found, start)[1] > start for start in range(len(found)))


def joined(first: Word, second: Word) -> str:
    """Two words run together (``week`` ``end`` → ``weekend``)."""
    return first.whole + second.whole


def spaceless(word: str) -> bool:
    """Whether ``word`` holds a letter of a script written without spaces (CJK, Thai …),
    where a word cannot be told from its neighbours by spaces."""
    return _SPACELESS.search(word) is not None
