"""Whole lines only: appending to, repairing and reading the audit file (DESIGN §2).

The audit file is JSON Lines. Three rules keep every line whole:

1. An append writes its bytes in a loop until all are written (a short write is
   continued, never taken as done) while holding an exclusive ``flock``, so two
   writers (the service and ``sovereign chat``) never interleave.
2. When an append fails part-way (a full filesystem, an I/O error), the file is
   truncated back to where the append started.
3. Before every append, and at start-up, the file's last byte is checked. A last
   line without its newline (a crash mid-write, or a truncation that failed too)
   is moved aside to ``<file>.corrupt`` and cut off, so the next record is never
   glued onto it. A fragment that is a whole record missing only its newline
   gets the newline instead.

Readers (:func:`read_records`) report each line that is not a JSON object as
``None`` instead of skipping it silently.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CORRUPT_SUFFIX = ".corrupt"
"""Torn lines set aside go to ``audit.jsonl.corrupt``, one per line."""
_CHUNK = 65536


@dataclass(frozen=True)
class FileOps:
    """The system calls the audit file is written with; tests inject failing ones.

    ``write(fd, data) -> bytes written`` may write less than asked (a short
    write) or raise ``OSError`` (``ENOSPC``, ``EIO``); ``fsync(fd)`` may raise.
    """

    write: Callable[[int, memoryview], int] = os.write
    fsync: Callable[[int], None] = os.fsync


def storage_problem(exc: OSError) -> str:
    """A short phrase for why storage refused a write, e.g. "the data filesystem is full"."""
    phrases = {
        errno.ENOSPC: "the data filesystem is full",
        errno.EDQUOT: "the data filesystem's quota is used up",
        errno.EROFS: "the data filesystem is read-only",
        errno.EACCES: "the service may not write there (permission denied)",
        errno.EPERM: "the service may not write there (operation not permitted)",
        errno.EIO: "the storage reported an input/output error",
    }
    if exc.errno in phrases:
        return phrases[exc.errno]
    return f"the data directory cannot be written ({exc.strerror or exc})"


def append_lines(path: Path, data: bytes, *, durable: bool, ops: FileOps) -> int:
    """Append ``data`` (whole lines, each ending in ``\\n``) to ``path``, mode 0600.

    Args:
        path: the audit file; its directory is created (mode 0700) when missing.
        data: one or more complete lines.
        durable: fsync the file before returning (the record is on disk, not
            only in the page cache).
        ops: the write and fsync calls to use.

    Returns:
        How many torn lines were set aside before appending (normally 0).

    Raises:
        OSError: nothing was appended (the file is as it was, or its torn tail
            was set aside).
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        set_aside = repair_tail(fd, corrupt_path(path), ops)
        start = os.fstat(fd).st_size
        try:
            write_all(fd, data, ops)
            if durable:
                ops.fsync(fd)
        except OSError:
            _truncate_quietly(fd, start)
            raise
        return set_aside
    finally:
        os.close(fd)  # closing releases the lock


def repair_file(path: Path, ops: FileOps) -> int:
    """Set a torn last line of ``path`` aside (see :func:`repair_tail`); returns 0 or 1.

    Raises:
        OSError: the file cannot be opened, or its tail neither set aside nor ended.
    """
    fd = os.open(path, os.O_RDWR | os.O_APPEND)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return repair_tail(fd, corrupt_path(path), ops)
    finally:
        os.close(fd)


def corrupt_path(path: Path) -> Path:
    """``audit.jsonl`` -> ``audit.jsonl.corrupt``."""
    return path.with_name(path.name + CORRUPT_SUFFIX)


def write_all(fd: int, data: bytes, ops: FileOps) -> None:
    """Write every byte of ``data``, continuing after short writes.

    Raises:
        OSError: the write failed (some bytes may have been written); a write
            that makes no progress is reported as ``EIO``.
    """
    view = memoryview(data)
    while view:
        written = ops.write(fd, view)
        if written <= 0:
            raise OSError(errno.EIO, "the write made no progress")
        view = view[written:]


def repair_tail(fd: int, corrupt: Path, ops: FileOps) -> int:
    """Make the file behind ``fd`` end with a whole line; returns the lines set aside (0 or 1).

    A torn last line is appended to ``corrupt`` (fsynced) and cut off. If it
    cannot be set aside, a newline ends it where it is, so it stays one
    unreadable line that readers count. A fragment that parses as a record
    only gets its missing newline.

    Raises:
        OSError: the tail could be neither set aside nor ended.
    """
    size = os.fstat(fd).st_size
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return 0
    start = _last_line_start(fd, size)
    fragment = os.pread(fd, size - start, start)
    if parse_record(fragment) is not None:
        write_all(fd, b"\n", ops)
        return 0
    try:
        _append_aside(corrupt, fragment, ops)
    except OSError:
        write_all(fd, b"\n", ops)
        return 0
    os.ftruncate(fd, start)
    ops.fsync(fd)
    return 1


def _append_aside(corrupt: Path, fragment: bytes, ops: FileOps) -> None:
    line = fragment.replace(b"\n", b" ") + b"\n"
    fd = os.open(corrupt, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        start = os.fstat(fd).st_size
        try:
            write_all(fd, line, ops)
            ops.fsync(fd)
        except OSError:
            _truncate_quietly(fd, start)
            raise
    finally:
        os.close(fd)


def _last_line_start(fd: int, size: int) -> int:
    """The offset just after the last ``\\n`` before ``size`` (0 when there is none)."""
    end = size
    while end > 0:
        begin = max(0, end - _CHUNK)
        chunk = os.pread(fd, end - begin, begin)
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            return begin + newline + 1
        end = begin
    return 0


def _truncate_quietly(fd: int, size: int) -> None:
    """Cut a partial append off; if that fails too, :func:`repair_tail` handles it next time."""
    try:
        if os.fstat(fd).st_size > size:
            os.ftruncate(fd, size)
    except OSError:
        pass


def parse_record(line: bytes) -> dict[str, Any] | None:
    """One line as a JSON object, or ``None`` when it is not one."""
    try:
        value = json.loads(line)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError
        return None
    return value if isinstance(value, dict) else None


def read_records(path: Path) -> Iterator[dict[str, Any] | None]:
    """Each line of ``path`` as a dict, or ``None`` for a line that cannot be read.

    An absent file yields nothing. A last line without its newline (a writer
    is in the middle of it, or it was torn) is reported as ``None`` too.

    Raises:
        OSError: the file exists but cannot be read.
    """
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return
    with handle:
        for line in handle:
            yield parse_record(line) if line.endswith(b"\n") else None


def count_lines(path: Path) -> int:
    """Lines in ``path`` (0 when absent): how many torn lines were set aside."""
    try:
        with path.open("rb") as handle:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(_CHUNK), b""))
    except FileNotFoundError:
        return 0
