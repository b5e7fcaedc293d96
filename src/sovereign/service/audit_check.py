"""For ``sovereign doctor``: can the audit log be written and read, and is there room for it?

A call whose "executing" record cannot be written does not run, so an audit log
that cannot be written switches every capability off. These checks say so
before the household finds out, with the fix for each problem.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from sovereign.capabilities.system import disk_space, existing_ancestor
from sovereign.cli_words import CliWords
from sovereign.executor.audit_file import corrupt_path, count_lines, read_records, storage_problem

from .audit_summary import audit_path

MIN_FREE_BYTES = 64 * 1024 * 1024
"""Below this much free space on the data filesystem (bytes), writes will soon be refused.

An audit line is about 350 bytes, so the log itself needs little; the margin is
for the filesystem's own reserve, the model server and settings written atomically
(each needs a second copy of its file for a moment)."""

CheckResult = tuple[str, bool, str, str | None]
"""``(check name, ok, detail sentence, fix or None)``."""


def check_audit_log(data_dir: Path, words: CliWords | None = None) -> list[CheckResult]:
    """Three results: the log is writable, it is readable line by line, there is room;
    said in ``words``' language (English by default)."""
    words = words or CliWords()
    path = audit_path(data_dir)
    return [_writable(path, words), _readable(path, words), _room(data_dir, words)]


def _writable(path: Path, words: CliWords) -> CheckResult:
    name = "audit log writable"
    try:
        if path.exists():
            os.close(os.open(path, os.O_WRONLY | os.O_APPEND))
        else:
            _probe_directory(existing_ancestor(path.parent))
    except OSError as exc:
        return (
            name,
            False,
            words.say("check_audit_unwritable", path=path, reason=storage_problem(exc)),
            words.say("check_audit_unwritable_fix", directory=path.parent),
        )
    key = "check_audit_writable" if path.exists() else "check_audit_writable_new"
    return name, True, words.say(key, path=path), None


def _probe_directory(directory: Path) -> None:
    """Create, write, fsync and remove a temp file in ``directory`` (raises OSError)."""
    fd, temp = tempfile.mkstemp(prefix=".doctor.", suffix=".tmp", dir=directory)
    try:
        os.write(fd, b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
        os.unlink(temp)


def _readable(path: Path, words: CliWords) -> CheckResult:
    name = "audit log readable"
    set_aside = count_lines(corrupt_path(path))
    aside = (
        words.say_count("check_audit_set_aside", set_aside, name=corrupt_path(path).name)
        if set_aside
        else ""
    )
    try:
        lines = list(read_records(path))
        torn = path.exists() and not _ends_whole(path)
    except OSError as exc:
        detail = words.say("check_audit_unreadable", path=path, reason=storage_problem(exc))
        return name, False, detail, words.say("check_audit_storage")
    unreadable = sum(record is None for record in lines)
    if torn:
        return (
            name,
            False,
            words.say("check_audit_torn", path=path, aside=aside),
            words.say("check_audit_torn_fix"),
        )
    if unreadable:
        return (
            name,
            False,
            words.say_count(
                "check_audit_lines_unreadable",
                len(lines),
                path=path,
                aside=aside,
                unreadable=words.number(unreadable),
            ),
            words.say("check_audit_lines_fix", path=path),
        )
    return name, True, words.say_count("check_audit_readable", len(lines), aside=aside), None


def _ends_whole(path: Path) -> bool:
    with path.open("rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        if size == 0:
            return True
        handle.seek(size - 1)
        return handle.read(1) == b"\n"


def _room(data_dir: Path, words: CliWords) -> CheckResult:
    name = "data filesystem space"
    where = existing_ancestor(Path(data_dir))
    usage = shutil.disk_usage(where)
    space = disk_space(usage)  # as system.health says it: the share is of the whole disk
    detail = (
        words.say(
            "check_audit_room",
            free=words.decimal(space["free_gb"]),
            total=words.decimal(space["total_gb"]),
            used=words.percent(space["used_percent"] / 100),
            where=where,
        )
        if usage.total
        else words.say("check_audit_room_unknown", where=where)
    )
    if usage.free >= MIN_FREE_BYTES:
        return name, True, detail, None
    return (
        name,
        False,
        words.say("check_audit_room_low", detail=detail),
        words.say("check_audit_room_fix"),
    )
