"""The household's private words (names, street, school) for the identifier check (DESIGN §4).

``<data>/private-words.json`` holds ``{"words": ["Maya Okafor", "Juniper Lane"]}``,
mode 0600, kept by the one settings store (:mod:`.settings_store`: atomic writes,
one writer at a time). It is read fresh whenever a card is issued. A missing file
means no words. A corrupt one means no words too (the check still runs its
grammars), is logged, reported by ``sovereign doctor`` and shown in the Console;
it is never written over, so a hand edit gone wrong is not lost: adding or
removing a word is refused until the file is fixed or removed.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sovereign.cli_words import CliWords
from sovereign.egress import SettingRefused, find_invisible

from .settings_store import SettingsFile, SettingsKind, say_problem

FILENAME = "private-words.json"
MAX_WORDS = 500
MAX_WORD_CHARS = 100


REFUSALS = {
    "private_word_not_text": "A private word must be text.",
    "private_word_invisible": "The private word contains {kind} ({character}) at position "
    "{position}.",
    "private_word_too_long": "A private word can be at most {limit} characters.",
    "private_word_too_few_letters": "A private word needs at least two letters or digits.",
    "private_words_full": "The list holds at most {limit} words.",
}
"""Why a word is refused, by key, in English (said from the ``console`` catalog, context
``refused_<key>``, by the Console and the commands alike)."""


class PrivateWordsError(SettingRefused):
    """A word the list cannot take: a keyed refusal (``str()`` is its English sentence).

    Args:
        key: one of :data:`REFUSALS`. values: what fills its sentence.
    """

    def __init__(self, key: str, /, **values: object) -> None:
        super().__init__(key, REFUSALS[key], **values)


@dataclass(frozen=True)
class PrivateWordsReading:
    """What the file says: ``words`` in effect, and a ``problem`` sentence or ``None``.

    ``writable`` is False when the file exists but cannot be read as a list of words.
    """

    words: tuple[str, ...] = ()
    problem: str | None = None
    writable: bool = True


def clean_word(word: object) -> str:
    """A word as stored: visible characters only, NFC, spaces trimmed and merged.

    Raises:
        PrivateWordsError: not text, empty, longer than :data:`MAX_WORD_CHARS`, with
            fewer than two letters or digits, or holding an invisible character.
    """
    if not isinstance(word, str):
        raise PrivateWordsError("private_word_not_text")
    invisible = find_invisible(word)
    if invisible is not None:
        raise PrivateWordsError("private_word_invisible", kind=invisible.kind,
                                character=invisible.label, position=invisible.position)  # fmt: skip
    cleaned = " ".join(unicodedata.normalize("NFC", word).split())
    if len(cleaned) > MAX_WORD_CHARS:
        raise PrivateWordsError("private_word_too_long", limit=MAX_WORD_CHARS)
    if sum(character.isalnum() for character in cleaned) < 2:
        raise PrivateWordsError("private_word_too_few_letters")
    return cleaned


def _parse(value: Any) -> tuple[str, ...]:
    """The stored words; ``SettingRefused`` for a file that is not ``{"words": [text, …]}``."""
    if not isinstance(value, dict) or not isinstance(value.get("words"), list):
        raise SettingRefused("private_words_shape", _SHAPE)
    try:
        words = [clean_word(word) for word in value["words"]]
    except PrivateWordsError:
        raise SettingRefused("private_words_shape", _SHAPE) from None
    return tuple(words[:MAX_WORDS])


_SHAPE = 'is not valid: it must hold {{"words": ["…", …]}}.'
PRIVATE_WORDS_FILE = SettingsKind(
    relative_path=FILENAME,
    default=(),
    parse=_parse,
    dump=lambda words: {"words": sorted(words, key=str.casefold)},
    log_prefix="private words",
    report_mode=True,
)
"""``private-words.json``: no words when absent or unusable; a file others can read
is used and reported."""


class PrivateWordsStore:
    """Reads and changes ``<data_dir>/private-words.json`` (through :mod:`.settings_store`).

    Args:
        data_dir: the service's data directory.
    """

    def __init__(self, data_dir: Path) -> None:
        self._file = SettingsFile(data_dir, PRIVATE_WORDS_FILE)
        self.path = self._file.path

    def read(self, *, log: bool = True) -> PrivateWordsReading:
        """The words in effect now; never raises (an unusable file reads as no words)."""
        reading = self._file.read(log=log)
        return PrivateWordsReading(reading.value, reading.problem, reading.usable)

    def add(self, word: object) -> PrivateWordsReading:
        """Add ``word`` (no-op when it is there already, ignoring case).

        Raises:
            PrivateWordsError: a bad word or a full list.
            SettingsUnreadable: the file must be fixed or removed first (it is left as it is).
            OSError: the data directory cannot be written (the old file is untouched).
        """
        cleaned = clean_word(word)

        def added(words: tuple[str, ...]) -> tuple[str, ...]:
            if cleaned.casefold() in {w.casefold() for w in words}:
                return words
            if len(words) >= MAX_WORDS:
                raise PrivateWordsError("private_words_full", limit=MAX_WORDS)
            return (*words, cleaned)

        return self._change(added)

    def remove(self, word: object) -> PrivateWordsReading:
        """Remove ``word`` (ignoring case); removing a word not on the list is a no-op.

        Raises:
            PrivateWordsError: ``word`` is not text.
            SettingsUnreadable: as for :meth:`add`.
            OSError: as for :meth:`add`.
        """
        if not isinstance(word, str):
            raise PrivateWordsError("private_word_not_text")
        wanted = " ".join(word.split()).casefold()
        return self._change(lambda words: tuple(w for w in words if w.casefold() != wanted))

    def _change(self, change: Callable[[tuple[str, ...]], tuple[str, ...]]) -> PrivateWordsReading:
        self._file.update(change)
        return self.read(log=False)


def check_private_words_file(data_dir: Path, words: CliWords | None = None) -> tuple[bool, str]:
    """For ``sovereign doctor``: ``(ok, sentence)`` about the private-words file, said in
    ``words``' language (English by default; the file's problem as the store says it)."""
    words = words or CliWords()
    reading = PrivateWordsStore(data_dir).read(log=False)
    if reading.problem:
        return False, say_problem(reading.problem, words)
    return True, words.say_count("check_private_words", len(reading.words))
