"""Loading a GGUF model in-process for the embedded backend (issue 5, model backends 2).

The default model is accepted only after :func:`sovereign.model.verify_model`
has checked its size and SHA-256; a model path chosen by the household is
checked to be a GGUF file and loaded as is. Every failure becomes
:class:`~.base.ModelUnavailable` carrying a sentence that says what to do.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sovereign.model import DEFAULT_MODEL, ModelFileError, default_model_path, verify_model

from ..base import ModelUnavailable
from ..grammar_schema import grammar_schema

GGUF_MAGIC = b"GGUF"
RUNTIME_HINT = (
    "The embedded model runtime (llama-cpp-python) is not installed; "
    "run ./scripts/run, or install the 'embedded' extra: pip install 'sovereign[embedded]'."
)


@dataclass(frozen=True, kw_only=True)
class LoadOptions:
    """How the model is loaded.

    Attributes:
        model_path: a GGUF file, or ``None`` for the verified default model at
            ``<data dir>/models/`` (see ``sovereign model install``).
        n_ctx: the context window, in tokens (default 8192).
        n_threads: CPU threads for inference (default: the CPU count).
    """

    model_path: Path | None = None
    n_ctx: int = 8192
    n_threads: int | None = None

    def resolved_path(self) -> Path:
        """The file to load: ``model_path`` or the default model's place in the data dir."""
        return self.model_path or default_model_path()

    def threads(self) -> int:
        """``n_threads``, or the CPU count (at least 1)."""
        return self.n_threads or os.cpu_count() or 1


def check_model_file(options: LoadOptions) -> Path:
    """The path to load, once it has passed the checks for its kind.

    The default model must match its published size and SHA-256 (hashing
    ~1.1 GB takes a second or two, once per process). Another configured path
    must exist and start with the GGUF magic bytes.

    Raises:
        ModelUnavailable: the file is missing, unverified or not GGUF.
    """
    path = options.resolved_path()
    if options.model_path is None:
        try:
            verify_model(path, DEFAULT_MODEL)
        except (ModelFileError, OSError) as error:
            raise ModelUnavailable(str(error)) from error
        return path
    try:
        with path.open("rb") as stream:
            magic = stream.read(len(GGUF_MAGIC))
    except OSError as error:
        raise ModelUnavailable(
            f"The configured model file {path} cannot be read: {error}."
        ) from error
    if magic != GGUF_MAGIC:
        raise ModelUnavailable(f"The configured model file {path} is not a GGUF model.")
    return path


def load_llama(options: LoadOptions) -> Any:
    """Check the model file, then load it with llama-cpp-python (slow: seconds).

    Returns:
        A ``llama_cpp.Llama`` using the model's own chat template.

    Raises:
        ModelUnavailable: llama-cpp-python is not installed, or the file fails
            :func:`check_model_file`, or llama.cpp cannot load it.
    """
    try:
        from llama_cpp import Llama
    except ImportError as error:
        raise ModelUnavailable(RUNTIME_HINT) from error
    path = check_model_file(options)
    try:
        return Llama(
            model_path=str(path),
            n_ctx=options.n_ctx,
            n_threads=options.threads(),
            n_threads_batch=options.threads(),
            verbose=False,
        )
    except (ValueError, RuntimeError, OSError) as error:
        raise ModelUnavailable(f"llama.cpp could not load {path}: {error}.") from error


def json_schema_grammar(schema_json: str) -> Any:
    """A llama.cpp grammar that admits only JSON matching ``schema_json`` (a JSON Schema text),
    reduced by :func:`~.grammar_schema.grammar_schema` to what llama.cpp compiles safely."""
    from llama_cpp import LlamaGrammar

    schema = grammar_schema(json.loads(schema_json))
    return LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
