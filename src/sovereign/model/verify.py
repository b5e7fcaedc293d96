"""Checking a model file against its published size and SHA-256 before use."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from sovereign.model.catalog import DEFAULT_MODEL, ModelSpec
from sovereign.model.errors import ModelMismatch, ModelMissing, ModelUnreadable

Progress = Callable[[int], None]
"""Called with the number of bytes just processed (an increment, not a total)."""

CHUNK_BYTES = 1 << 20  # read and hash in 1 MiB pieces


def sha256_of(path: Path, *, on_progress: Progress | None = None) -> str:
    """The SHA-256 of the file at ``path`` as lowercase hex, reading it in 1 MiB pieces.

    Raises:
        OSError: the file cannot be read.
    """
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(CHUNK_BYTES):
            digest.update(chunk)
            if on_progress:
                on_progress(len(chunk))
    return digest.hexdigest()


def verify_model(
    path: Path, spec: ModelSpec = DEFAULT_MODEL, *, on_progress: Progress | None = None
) -> None:
    """Accept the file at ``path`` only if it is exactly ``spec``'s published file.

    The size is checked first (cheap), then the SHA-256 of every byte.

    Raises:
        ModelMissing: there is no file at ``path``.
        ModelMismatch: the size or the SHA-256 differs from ``spec``.
        ModelUnreadable: the file (or its directory) cannot be read, e.g. permissions.
    """
    try:
        _verify(path, spec, on_progress)
    except OSError as exc:
        raise ModelUnreadable.keyed("unreadable", path=path, reason=exc.strerror or exc) from exc


def _verify(path: Path, spec: ModelSpec, on_progress: Progress | None) -> None:
    if not path.is_file():
        raise ModelMissing.keyed("missing", path=path)
    size = path.stat().st_size
    if size != spec.size_bytes:
        raise ModelMismatch.keyed("wrong_size", path=path, size=size, expected=spec.size_bytes)
    actual = sha256_of(path, on_progress=on_progress)
    if actual != spec.sha256:
        raise ModelMismatch.keyed("wrong_sha256", path=path, sha256=actual, expected=spec.sha256)
