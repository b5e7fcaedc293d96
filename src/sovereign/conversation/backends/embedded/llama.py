"""The token-level face of a loaded ``llama_cpp.Llama``, as :class:`~.embedded_run.Runner` uses it.

Everything the embedded backend asks of llama-cpp-python goes through
:class:`LlamaModel`: rendering messages with the GGUF's own chat template,
tokenising, evaluating and generating (``Llama.eval`` and ``Llama.generate``,
whose prefix match against the KV cache skips tokens already evaluated), reading
the scores of the token after the last evaluated,
detokenising one token at a time, and saving and restoring the KV cells of
sequence 0 (``llama_state_seq_get_data`` / ``llama_state_seq_set_data``). Native
tool mode, which needs the template's own tool handling, uses
``create_chat_completion`` through :meth:`LlamaModel.chat`.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator, Sequence
from typing import Any

from ..base import Message, ModelError, ModelUnavailable

NO_TEMPLATE = (
    "The model file has no chat template (tokenizer.chat_template); the embedded backend "
    "needs a chat model that has one."
)
SAMPLING = {"top_k": 40, "top_p": 0.95, "min_p": 0.05, "repeat_penalty": 1.0}
"""``create_chat_completion``'s own defaults, so answers sample as they did through it."""


class LlamaModel:
    """A loaded model, token by token.

    Args:
        llama: a ``llama_cpp.Llama``.

    Raises:
        ModelUnavailable: the model has no chat template.
    """

    def __init__(self, llama: Any) -> None:
        from llama_cpp import llama_chat_format
        from llama_cpp import llama_cpp as api

        template = llama.metadata.get("tokenizer.chat_template")
        if not template:
            raise ModelUnavailable(NO_TEMPLATE)
        self.llama, self._api = llama, api
        self._vocab = api.llama_model_get_vocab(llama.model)
        eos, bos = self._text(llama.token_eos()), self._text(llama.token_bos())
        formatter = llama_chat_format.Jinja2ChatFormatter
        self._prompt = formatter(template=template, eos_token=eos, bos_token=bos)
        self._opening = formatter(
            template=template, eos_token=eos, bos_token=bos, add_generation_prompt=False
        )

    @property
    def n_ctx(self) -> int:
        """The context window, in tokens."""
        return int(self.llama.n_ctx())

    def render(self, messages: list[Message], *, generation_prompt: bool = True) -> str:
        """``messages`` in the chat template, ending with the assistant's header unless
        ``generation_prompt`` is false."""
        formatter = self._prompt if generation_prompt else self._opening
        return formatter(messages=messages).prompt

    def tokenize(self, text: str) -> list[int]:
        """Tokens of rendered template text (special tokens such as ``<|im_start|>`` parsed)."""
        return list(self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def evaluated(self) -> list[int]:
        """The tokens the KV cache holds now."""
        return [int(t) for t in self.llama.input_ids[: self.llama.n_tokens]]

    def truncate(self, keep: int) -> None:
        """Forget every evaluated token after the first ``keep``."""
        llama = self.llama
        self._api.llama_memory_seq_rm(self._api.llama_get_memory(llama.ctx), 0, keep, -1)
        llama.n_tokens = min(llama.n_tokens, keep)
        if hasattr(llama, "_requires_eval"):  # the logits no longer belong to the last token
            llama._requires_eval = True

    def evaluate(self, tokens: Sequence[int]) -> None:
        """Evaluate ``tokens`` after those already evaluated."""
        self.llama.eval(list(tokens))

    def next_scores(self, tokens: Sequence[int]) -> list[float]:
        """The scores (logits) of ``tokens`` as the next token after the last one
        evaluated (``llama_get_logits_ith(ctx, -1)``: a context without ``logits_all``
        keeps the last evaluated token's row)."""
        row = self._api.llama_get_logits_ith(self.llama.ctx, -1)
        return [float(row[token]) for token in tokens]

    def generate(self, tokens: Sequence[int], *, temperature: float, grammar: Any) -> Iterator[int]:
        """Tokens sampled after ``tokens`` (``Llama.generate``: the longest prefix already in
        the KV cache is not evaluated again), until the caller stops."""
        return self.llama.generate(list(tokens), temp=temperature, grammar=grammar, **SAMPLING)

    def is_end(self, token: int) -> bool:
        """Whether ``token`` ends generation (end of turn or of text)."""
        return bool(self._api.llama_vocab_is_eog(self._vocab, token))

    def piece(self, token: int) -> bytes:
        """The bytes of one generated token (possibly part of a UTF-8 character)."""
        return bytes(self.llama.detokenize([token]))

    def save(self) -> bytes:
        """The KV cells of sequence 0."""
        ctx = self.llama.ctx
        size = self._api.llama_state_seq_get_size(ctx, 0)
        buffer = (ctypes.c_uint8 * size)()
        written = self._api.llama_state_seq_get_data(ctx, buffer, size, 0)
        return ctypes.string_at(buffer, written)

    def restore(self, tokens: Sequence[int], state: bytes) -> None:
        """Make ``state``, saved when the KV cache held exactly ``tokens``, the KV cache.

        Raises:
            ModelError: llama.cpp refused the state.
        """
        self.truncate(0)
        buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
        if self._api.llama_state_seq_set_data(self.llama.ctx, buffer, len(state), 0) != len(state):
            raise ModelError("the embedded model could not restore a saved prompt state")
        self.llama.input_ids[: len(tokens)] = list(tokens)
        self.llama.n_tokens = len(tokens)

    def chat(self, messages: list[Message], **options: Any) -> Any:
        """``Llama.create_chat_completion`` (native tool mode)."""
        return self.llama.create_chat_completion(messages=messages, **options)

    def close(self) -> None:
        """Free the model."""
        close = getattr(self.llama, "close", None)
        if callable(close):
            close()

    def _text(self, token: int) -> str:
        if token < 0:
            return ""
        return self._api.llama_vocab_get_text(self._vocab, token).decode("utf-8", "replace")
