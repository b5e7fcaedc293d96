"""A small real filesystem for storage-fault tests: a tmpfs that can fill up or go read-only.

Mounting needs CAP_SYS_ADMIN (root in a container or CI runner); without it the
tests that need a real filesystem are skipped, and the injected-writer tests
cover the same code paths.
"""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def mounted_tmpfs(mount_point: Path, size: str = "64k") -> Iterator[Path]:
    """Mount a tmpfs of ``size`` (mount(8) syntax) at ``mount_point``, or skip the test."""
    mount_point.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(mount_point)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs CAP_SYS_ADMIN)")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def remount(mount_point: Path, options: str) -> None:
    """Change a mounted tmpfs's options, e.g. ``"ro"``, ``"rw"`` or ``"size=512k"``."""
    subprocess.run(["mount", "-o", f"remount,{options}", str(mount_point)], check=True)


def fill(directory: Path) -> Path:
    """Write a filler file in ``directory`` until its filesystem is full; returns the filler."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        block = b"\0" * 4096
        while True:
            try:
                os.write(fd, block)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                break
        while True:  # the last partial page
            try:
                os.write(fd, b"\0")
            except OSError:
                break
    finally:
        os.close(fd)
    return filler
