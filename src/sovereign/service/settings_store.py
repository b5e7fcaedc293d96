"""The one settings store: every small JSON file the CLI and the service both write.

A file's *content* is typed (:class:`SettingsKind`: its name, default, a parser
that raises ``ValueError`` with a sentence, and its JSON shape); the *mechanism*
is one, here (:class:`SettingsFile`):

- **Reads** never raise and take no lock. They open the file without following a
  symbolic link, require a small regular file and read it strictly
  (:mod:`sovereign.strict_json`). A missing file is the default; an unusable one
  is the default too, with a ``problem`` sentence, logged once per distinct
  problem and reported by ``sovereign doctor``. A parsed value is reused while
  the file's bytes stay the same.
- **Writes** are atomic (:mod:`.atomic`: temp file, fsync, rename; mode 0600).
- **One writer at a time**, across processes and threads: every change is a
  read-change-write under an exclusive ``flock`` on the file's *directory* (the
  data file itself is replaced by each write, so it cannot carry the lock, and a
  lock file beside it would be litter). A ``sovereign sites block`` racing the
  Console or another CLI process therefore never loses a write.
- **Nothing lost**: :meth:`SettingsFile.update` refuses to change a file that
  exists but cannot be read (:class:`SettingsUnreadable`), so a hand edit gone
  wrong is left for the household to fix. :meth:`SettingsFile.replace` (a whole
  new value the household chose) may overwrite it.

Decision record: docs/decisions/settings-store.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from sovereign.cli_words import CliWords
from sovereign.file_problems import PROBLEMS, FileProblem
from sovereign.strict_json import StrictJSONError, loads_strict

from .atomic import write_json_atomic

logger = logging.getLogger(__name__)

T = TypeVar("T")
MAX_FILE_BYTES = 256 * 1024
"""Largest settings file read, in bytes; a bigger one is reported as unusable."""


def say_problem(problem: str, words: CliWords) -> str:
    """A settings file's problem in ``words``' language
    (:class:`~sovereign.file_problems.FileProblem`, context ``settings:<key>``), its
    values said as :func:`.console_words.file_problem_values` says them (the system's
    reason for an unreadable file, what is wrong with its content). A problem given as a
    plain sentence stays as it was written."""
    if not isinstance(problem, FileProblem):
        return problem
    from .console_words import file_problem_values  # here: console_words imports this module

    values = file_problem_values(problem, words.language)
    return words.phrase(f"settings:{problem.key}", PROBLEMS[problem.key], **values)


class SettingsUnreadable(ValueError):
    """The file exists but cannot be used; changing it is refused so nothing in it is lost.

    The message is the problem sentence followed by what to do, in English (the commands'
    sentence ``settings_left_alone``); ``problem`` is the problem alone, as read.
    """

    def __init__(self, problem: str) -> None:
        super().__init__(CliWords().say("settings_left_alone", problem=problem))
        self.problem = problem


def say_unreadable(refused: SettingsUnreadable, words: CliWords) -> str:
    """A change refused because the file must be fixed first, in ``words``' language."""
    return words.say("settings_left_alone", problem=say_problem(refused.problem, words))


@dataclass(frozen=True)
class Reading(Generic[T]):
    """What a settings file says.

    Attributes:
        value: what is in effect (the default when the file is absent or unusable).
        problem: a sentence naming the file and what is wrong, or ``None``.
        usable: False when the file exists but its content could not be used.
    """

    value: T
    problem: str | None = None
    usable: bool = True


@dataclass(frozen=True)
class SettingsKind(Generic[T]):
    """The typed content of one settings file.

    Attributes:
        relative_path: where the file lives under the data directory.
        default: the value of a missing (or unusable) file.
        parse: JSON value → typed value; raises ``ValueError`` with a sentence.
        dump: typed value → JSON value, as written.
        log_prefix: what the log says before a problem ("web search treated as off").
        private: the file holds something others must not read: one readable or
            writable by the group or others is unusable (else it is used, and its
            mode reported only when ``report_mode``).
        report_mode: report a file others can read as a problem (its value still used).
    """

    relative_path: str
    default: T
    parse: Callable[[Any], T]
    dump: Callable[[T], Any]
    log_prefix: str
    private: bool = False
    report_mode: bool = False


class SettingsFile(Generic[T]):
    """One settings file of one data directory (see the module docstring).

    Args:
        data_dir: the service's data directory.
        kind: the file's typed content.
    """

    def __init__(self, data_dir: Path, kind: SettingsKind[T]) -> None:
        self.kind = kind
        self.path = Path(data_dir) / kind.relative_path
        self._thread_lock = threading.Lock()
        self._cache: tuple[bytes, Reading[T]] | None = None
        self._last_problem: str | None = None

    def read(self, *, log: bool = True) -> Reading[T]:
        """The file now; never raises. ``log``: log a new problem (once per distinct one)."""
        reading = self._read()
        if log and reading.problem and reading.problem != self._last_problem:
            logger.warning("%s: %s", self.kind.log_prefix, reading.problem)
        self._last_problem = reading.problem
        return reading

    def update(self, change: Callable[[T], T]) -> T:
        """Read, ``change`` and write the value as one step no other writer interleaves with.

        Args:
            change: current value → new value; whatever it raises propagates and
                the file stays as it was.

        Returns:
            The value written.

        Raises:
            SettingsUnreadable: the file exists but cannot be used (it is left alone).
            OSError: the data directory cannot be written (the old file stays).
        """
        with self._exclusive():
            reading = self._read()
            if not reading.usable:
                raise SettingsUnreadable(reading.problem or "")
            value = change(reading.value)
            write_json_atomic(self.path, self.kind.dump(value))
        return value

    def replace(self, value: T) -> T:
        """Write ``value`` whatever the file held (a whole value chosen by the household).

        Raises:
            OSError: the data directory cannot be written (the old file stays).
        """
        with self._exclusive():
            write_json_atomic(self.path, self.kind.dump(value))
        return value

    @contextlib.contextmanager
    def _exclusive(self) -> Iterator[None]:
        """Hold the directory's lock: one writer in this process, then one across processes."""
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with self._thread_lock:
            fd = os.open(self.path.parent, os.O_RDONLY | os.O_DIRECTORY)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)  # closing releases the flock

    def _read(self) -> Reading[T]:
        default = self.kind.default
        try:
            raw, mode = _read_small_file(self.path)
        except FileNotFoundError:
            return Reading(default)
        except _Unusable as exc:
            return Reading(default, FileProblem(exc.key, path=self.path, **exc.values),
                           usable=False)  # fmt: skip
        if self.kind.private and mode & 0o077:
            return Reading(default, _mode_problem(self.path, mode, secret=True), usable=False)
        cached = self._cache
        if cached is not None and cached[0] == raw:
            reading = cached[1]
        else:
            reading = self._parse(raw)
            self._cache = (raw, reading)
        if reading.usable and self.kind.report_mode and mode & 0o077:
            return Reading(reading.value, _mode_problem(self.path, mode, secret=False))
        return reading

    def _parse(self, raw: bytes) -> Reading[T]:
        try:
            value = loads_strict(raw)
        except StrictJSONError as exc:
            problem = FileProblem(f"json_{exc.why}", path=self.path, **exc.values)
            return Reading(self.kind.default, problem, usable=False)
        try:
            return Reading(self.kind.parse(value))
        except ValueError as exc:
            problem = FileProblem("content", path=self.path, problem=exc)
            return Reading(self.kind.default, problem, usable=False)


class _Unusable(Exception):
    """The file exists but is not a small regular file we may read: ``key`` of
    :data:`PROBLEMS` says why, with ``values``."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


def _read_small_file(path: Path) -> tuple[bytes, int]:
    """``(bytes, mode)`` of a regular file of at most :data:`MAX_FILE_BYTES`, never
    through a symbolic link.

    Raises:
        FileNotFoundError: there is no file.
        _Unusable: anything else that keeps it from being read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise _Unusable("unreadable", reason=exc.strerror, errno=exc.errno) from exc
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):  # checked before fdopen, which refuses a directory
        os.close(fd)
        raise _Unusable("not_regular")
    with os.fdopen(fd, "rb") as handle:
        try:
            raw = handle.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise _Unusable("unreadable", reason=exc.strerror, errno=exc.errno) from exc
    if len(raw) > MAX_FILE_BYTES:
        raise _Unusable("too_large", limit=MAX_FILE_BYTES)
    return raw, stat.S_IMODE(info.st_mode)


def _mode_problem(path: Path, mode: int, *, secret: bool) -> FileProblem:
    return FileProblem("secret_open" if secret else "others_read", path=path,
                           mode=f"{mode:04o}")  # fmt: skip
