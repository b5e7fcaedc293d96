"""llama.cpp's own parsers, for tests: its grammar parser, and the default model's chat
template rendered the way llama-cpp-python's server renders it.

Only the default model's vocabulary is loaded (no weights: well under a second).
Tests that use it are skipped where llama-cpp-python or the model is not installed.
"""

from __future__ import annotations

import ctypes
import functools
import json
from typing import Any

import pytest

from sovereign.model import default_model_path


@functools.cache
def _vocab() -> Any:
    llama_cpp = pytest.importorskip("llama_cpp")
    path = default_model_path()
    if not path.is_file():
        pytest.skip(f"the default model is not installed at {path}")
    llama_cpp.llama_backend_init()
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = llama_cpp.llama_model_load_from_file(str(path).encode(), params)
    assert model, "llama.cpp could not read the model's vocabulary"
    return model, llama_cpp.llama_model_get_vocab(model)


def llama_grammar_accepts(schema: dict[str, Any]) -> bool:
    """True when llama.cpp parses the grammar llama-cpp-python writes for ``schema``."""
    llama_cpp = pytest.importorskip("llama_cpp")
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    _, vocab = _vocab()
    grammar = json_schema_to_gbnf(json.dumps(schema))
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode(), b"root")
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


def model_chat_template() -> str:
    """The default model's own chat template (GGUF ``tokenizer.chat_template``)."""
    llama_cpp = pytest.importorskip("llama_cpp")
    model, _ = _vocab()
    size = 1 << 16
    buffer = ctypes.create_string_buffer(size)
    length = llama_cpp.llama_model_meta_val_str(model, b"tokenizer.chat_template", buffer, size)
    assert 0 < length < size, "the model carries no chat template"
    return buffer.value.decode()


def render_like_llama_cpp_python(messages: list[dict[str, Any]], **options: Any) -> str:
    """The prompt llama-cpp-python's server builds from ``messages`` with the model's
    template (its default chat format for a GGUF that carries one)."""
    pytest.importorskip("llama_cpp")
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    formatter = Jinja2ChatFormatter(model_chat_template(), eos_token="<|im_end|>", bos_token="")
    return formatter(messages=messages, **options).prompt
