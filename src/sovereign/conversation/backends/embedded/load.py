"""Loading a GGUF model in-process for the embedded backend (issue 5, model backends 2).

The file is checked before it is loaded: by the ``verify`` the caller gives
(the service passes the default model's published size and SHA-256 check,
:func:`sovereign.service.wiring.embedded_load_options`), or, for a model path the
household chose, by its GGUF magic bytes. This module knows no model catalog
(DESIGN §1: the conversation layer imports only the executor). Every failure
becomes :class:`~..base.ModelUnavailable` carrying a sentence that says what to do.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
        model_path: the GGUF file to load (``None``: none configured, so nothing loads).
        verify: checks ``model_path`` before it is loaded and raises with a sentence
            that says what to do (any exception); ``None`` checks only that the file
            is a readable GGUF file (a model the household chose on purpose).
        n_ctx: the context window, in tokens (default 8192).
        n_threads: CPU threads for inference (default: the CPU count).
    """

    model_path: Path | None = None
    verify: Callable[[Path], None] | None = None
    n_ctx: int = 8192
    n_threads: int | None = None

    def threads(self) -> int:
        """``n_threads``, or the CPU count (at least 1)."""
        return self.n_threads or os.cpu_count() or 1


def check_model_file(options: LoadOptions) -> Path:
    """The path to load, once it has passed ``options.verify`` (or, without one, the
    GGUF check: the file exists and starts with the GGUF magic bytes).

    Raises:
        ModelUnavailable: no file is configured, or it is missing, unverified or not GGUF.
    """
    path = options.model_path
    if path is None:
        raise ModelUnavailable("No model file is configured for the embedded backend.")
    if options.verify is not None:
        try:
            options.verify(path)
        except Exception as error:  # the verifier's own sentence says what to do
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
