"""Crash-safe file writes: temp file in the same directory, fsync, rename (DESIGN §4).

A reader sees the old file or the new one, never a torn one, whatever moment the
process dies at: the new content is complete and on disk before the rename, and
the rename is atomic within one filesystem.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import stat
import tempfile
import time
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

ORPHAN_AGE_SECONDS = 60.0
"""A temp file older than this (by mtime, seconds) belongs to no write in progress:
a write lasts milliseconds, so only a process killed mid-write leaves one."""


def write_json_atomic(path: Path, value: Any, *, exclusive: bool = False) -> None:
    """Write ``value`` as JSON to ``path`` atomically, mode 0600.

    Args:
        path: destination; its directory is created (mode 0700) when missing.
        value: anything ``json.dumps`` accepts.
        exclusive: when True, fail instead of replacing an existing file
            (atomic create-if-absent, via ``os.link``).

    Raises:
        FileExistsError: ``exclusive`` and the file already exists.
        OSError: the directory cannot be created or written.
    """
    data = (json.dumps(value, indent=2, sort_keys=True) + "\n").encode()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        _write_all(fd, data)
        os.fsync(fd)
        os.close(fd)
        fd = -1
        if exclusive:
            os.link(temp_name, path)
        else:
            os.replace(temp_name, path)
        _fsync_directory(path.parent)
    finally:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable (POSIX); a no-op where directories cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_orphans(
    directory: Path, *, older_than_seconds: float = ORPHAN_AGE_SECONDS, now: float | None = None
) -> list[Path]:
    """Delete the temp files killed writes left in ``directory``; returns those removed.

    Only regular files named like :func:`write_json_atomic`'s temp files
    (``.<name>.<random>.tmp``) and older than ``older_than_seconds`` are
    removed. A missing or unreadable directory removes nothing; a file that
    cannot be removed is logged and left.
    """
    now = time.time() if now is None else now
    removed = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    for entry in entries:
        if not (entry.name.startswith(".") and entry.name.endswith(".tmp")):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and now - info.st_mtime >= older_than_seconds:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError as exc:
            logger.warning("orphaned temp file %s not removed: %s", entry.path, exc)
    return removed
