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

from sovereign.capabilities.system import existing_ancestor
from sovereign.executor.audit_file import corrupt_path, count_lines, read_records, storage_problem

from .audit_summary import audit_path

MIN_FREE_BYTES = 64 * 1024 * 1024
"""Below this much free space on the data filesystem (bytes), writes will soon be refused.

An audit line is about 350 bytes, so the log itself needs little; the margin is
for the filesystem's own reserve, the model server and settings written atomically
(each needs a second copy of its file for a moment)."""

CheckResult = tuple[str, bool, str, str | None]
"""``(check name, ok, detail sentence, fix or None)``."""


def check_audit_log(data_dir: Path) -> list[CheckResult]:
    """Three results: the log is writable, it is readable line by line, there is room."""
    path = audit_path(data_dir)
    return [_writable(path), _readable(path), _room(data_dir)]


def _writable(path: Path) -> CheckResult:
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
            f"{path} cannot be written: {storage_problem(exc)}. Until it can, no capability "
            "runs (each call is refused with AUDIT_UNAVAILABLE).",
            "free space on the data filesystem, remount it read-write, or give the service's "
            f"user write access to {path.parent}",
        )
    where = path if path.exists() else f"{path} (created at the first call)"
    return name, True, f"{where} can be written", None


def _probe_directory(directory: Path) -> None:
    """Create, write, fsync and remove a temp file in ``directory`` (raises OSError)."""
    fd, temp = tempfile.mkstemp(prefix=".doctor.", suffix=".tmp", dir=directory)
    try:
        os.write(fd, b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
        os.unlink(temp)


def _readable(path: Path) -> CheckResult:
    name = "audit log readable"
    set_aside = count_lines(corrupt_path(path))
    aside = (
        f"; {set_aside} torn line(s) were set aside in {corrupt_path(path).name}"
        if set_aside
        else ""
    )
    try:
        lines = list(read_records(path))
        torn = path.exists() and not _ends_whole(path)
    except OSError as exc:
        return name, False, f"{path} cannot be read: {storage_problem(exc)}.", "check the storage"
    unreadable = sum(record is None for record in lines)
    if torn:
        return (
            name,
            False,
            f"{path} ends with a torn line{aside}.",
            "restart the service (sovereign serve): it sets the torn line aside at start-up",
        )
    if unreadable:
        return (
            name,
            False,
            f"{unreadable} of {len(lines)} line(s) of {path} cannot be read{aside}.",
            f"keep the file as the record it is and start a new one: mv {path} {path}.old",
        )
    return name, True, f"{len(lines)} record(s), every line readable{aside}", None


def _ends_whole(path: Path) -> bool:
    with path.open("rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        if size == 0:
            return True
        handle.seek(size - 1)
        return handle.read(1) == b"\n"


def _room(data_dir: Path) -> CheckResult:
    name = "data filesystem space"
    where = existing_ancestor(Path(data_dir))
    usage = shutil.disk_usage(where)
    detail = (
        f"{usage.free / 1e9:.1f} GB free of {usage.total / 1e9:.1f} GB "
        f"({100 * usage.used / usage.total:.0f}% used) on the filesystem of {where}"
        if usage.total
        else f"the filesystem of {where} reports no size"
    )
    if usage.free >= MIN_FREE_BYTES:
        return name, True, detail, None
    return (
        name,
        False,
        f"{detail}: writes will soon be refused, and a call whose audit record cannot be "
        "written does not run.",
        "free space there (sovereign audit and the Activity panel keep working)",
    )
