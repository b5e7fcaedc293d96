"""The household's private words (names, street, school) for the identifier check (DESIGN §4).

``<data>/private-words.json`` holds ``{"words": ["Maya Okafor", "Juniper Lane"]}``,
mode 0600, written atomically (:mod:`.atomic`). It is read fresh whenever a card
is issued. A missing file means no words. A corrupt one means no words too (the
check still runs its grammars), is logged, reported by ``sovereign doctor`` and
shown in the Console; it is never written over, so a hand edit gone wrong is not
lost: adding or removing a word is refused until the file is fixed or removed.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from sovereign.egress import require_visible
from sovereign.strict_json import StrictJSONError, loads_strict

from .atomic import write_json_atomic

logger = logging.getLogger(__name__)

FILENAME = "private-words.json"
MAX_WORDS = 500
MAX_WORD_CHARS = 100
MAX_FILE_BYTES = 256 * 1024
"""Largest file read, in bytes; a bigger one is reported as corrupt."""


class PrivateWordsError(ValueError):
    """A word the list cannot take, or a file that must be fixed first; one sentence."""


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
        raise PrivateWordsError("A private word must be text.")
    try:
        require_visible(word, "private word")
    except ValueError as exc:
        raise PrivateWordsError(str(exc)) from exc
    cleaned = " ".join(unicodedata.normalize("NFC", word).split())
    if len(cleaned) > MAX_WORD_CHARS:
        raise PrivateWordsError(f"A private word can be at most {MAX_WORD_CHARS} characters.")
    if sum(character.isalnum() for character in cleaned) < 2:
        raise PrivateWordsError("A private word needs at least two letters or digits.")
    return cleaned


class PrivateWordsStore:
    """Reads and changes ``<data_dir>/private-words.json``.

    Args:
        data_dir: the service's data directory.
    """

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / FILENAME
        self._lock = threading.Lock()
        self._last_problem: str | None = None

    def read(self, *, log: bool = True) -> PrivateWordsReading:
        """The words in effect now; never raises (an unusable file reads as no words)."""
        reading = _parse(self.path)
        if log and reading.problem and reading.problem != self._last_problem:
            logger.warning("private words: %s", reading.problem)
        self._last_problem = reading.problem
        return reading

    def add(self, word: object) -> PrivateWordsReading:
        """Add ``word`` (no-op when it is there already, ignoring case).

        Raises:
            PrivateWordsError: a bad word, a full list, or a file that must be fixed first.
            OSError: the data directory cannot be written (the old file is untouched).
        """
        cleaned = clean_word(word)
        with self._lock:
            words = list(self._writable().words)
            if cleaned.casefold() not in {w.casefold() for w in words}:
                if len(words) >= MAX_WORDS:
                    raise PrivateWordsError(f"The list holds at most {MAX_WORDS} words.")
                words.append(cleaned)
            return self._write(words)

    def remove(self, word: object) -> PrivateWordsReading:
        """Remove ``word`` (ignoring case); removing a word not on the list is a no-op.

        Raises:
            PrivateWordsError: ``word`` is not text, or the file must be fixed first.
            OSError: as for :meth:`add`.
        """
        if not isinstance(word, str):
            raise PrivateWordsError("A private word must be text.")
        wanted = " ".join(word.split()).casefold()
        with self._lock:
            words = [w for w in self._writable().words if w.casefold() != wanted]
            return self._write(words)

    def _writable(self) -> PrivateWordsReading:
        reading = _parse(self.path)
        if not reading.writable:
            raise PrivateWordsError(
                f"{reading.problem} Fix or remove it first; it is left as it is so "
                "nothing in it is lost."
            )
        return reading

    def _write(self, words: list[str]) -> PrivateWordsReading:
        write_json_atomic(self.path, {"words": sorted(words, key=str.casefold)})
        return _parse(self.path)


def _parse(path: Path) -> PrivateWordsReading:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return PrivateWordsReading()
    except OSError as exc:
        return PrivateWordsReading((), f"{path} cannot be read ({exc.strerror}).", False)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        raw = handle.read(MAX_FILE_BYTES + 1)
    if not stat.S_ISREG(info.st_mode) or len(raw) > MAX_FILE_BYTES:
        return PrivateWordsReading((), f"{path} is not a small regular file.", False)
    words = _words_of(raw)
    if words is None:
        problem = f'{path} is not valid: it must hold {{"words": ["…", …]}}.'
        return PrivateWordsReading((), problem, False)
    if info.st_mode & 0o077:
        mode = stat.S_IMODE(info.st_mode)
        problem = f"{path} can be read by other users (mode {mode:04o}); run: chmod 600 {path}"
        return PrivateWordsReading(words, problem, True)
    return PrivateWordsReading(words)


def _words_of(raw: bytes) -> tuple[str, ...] | None:
    """The stored words, or ``None`` for a file that is not ``{"words": [text, …]}``."""
    try:
        value = loads_strict(raw)
    except StrictJSONError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("words"), list):
        return None
    words = []
    for word in value["words"]:
        try:
            words.append(clean_word(word))
        except PrivateWordsError:
            return None
    return tuple(words[:MAX_WORDS])


def check_private_words_file(data_dir: Path) -> tuple[bool, str]:
    """For ``sovereign doctor``: ``(ok, sentence)`` about the private-words file."""
    reading = _parse(Path(data_dir) / FILENAME)
    if reading.problem:
        return False, reading.problem
    return True, f"{len(reading.words)} private word(s) checked before anything leaves"
