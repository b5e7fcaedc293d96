"""The embedded default backend: a GGUF model run in-process by llama-cpp-python (issue 5).

No server is needed. The model is loaded lazily, once, on the first request,
and every inference runs on one dedicated worker thread, so the event loop is
never blocked and only one inference runs at a time (the single worker is the
lock; later requests queue behind it).

Tool choice has two modes:

- ``"schema"`` (default): the reply is constrained by a llama.cpp grammar built
  from :func:`~.decision.decision_schema` to one JSON decision, read with
  :func:`~.decision.parse_decision`. Small models choose well this way.
- ``"native"``: the tools go to the model's own chat template and the reply is
  read like an OpenAI-compatible server's (:func:`~.openai_wire.reply_from_message`):
  calls written in its text count, leniently, for the offered tools only.

With ``tools=None`` the prose answer is written with the model's own chat
template, unconstrained, and streamed piece by piece into ``on_token``.

Schema mode is fast on repeated turns (issue 14, ``docs/decisions/embedded-prompt-reuse.md``):
every request starts with a rendered system message (for a decision: system
prompt, decision instructions, tool catalog; for the answer: the system prompt
alone), whose evaluated state :class:`~.embedded_run.Runner` keeps, live in the
KV cache or saved in a bounded :class:`~.embedded_cache.PrefixStates`, so a
request evaluates only its new tokens: the answer after an "answer" decision
restores its system prompt's state and reads the question alone, not a second
full prompt. It keeps the answer layout of :func:`~.decision.answer_messages`;
continuing the decision request instead measured worse answers (a requested
haiku refused, a translation answered in English).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import threading
from collections.abc import AsyncIterator, Callable, Generator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from ..base import (
    BackendProgress,
    ContextTooLong,
    Message,
    ModelError,
    ModelReply,
    TokenSink,
    ToolChoice,
    ToolDefinition,
    forced_tools,
    is_context_overflow,
    only_forced,
)
from ..call_markup import MarkupGate, answer_text
from ..decision import (
    answer_messages,
    decision_messages,
    decision_or_cut_off,
    decision_schema,
)
from ..jsontext import parse_arguments
from ..openai.deltas import finish_reason, is_cut_off
from ..openai.wire import reply_from_message
from ..repeats import loop_cut
from ..template_tokens import prompt_messages, prompt_tools
from .cache import DEFAULT_CACHE_BYTES, CacheFigures, PrefixStates
from .llama import LlamaModel
from .load import LoadOptions, json_schema_grammar, load_llama
from .run import Generation, Runner, drain

ToolMode = Literal["schema", "native"]
Emit = Callable[[str | None], None]
"""Hands one answer piece to the event loop; ``None`` marks the end."""


@dataclass(frozen=True, kw_only=True)
class Sampling:
    """Generation limits and temperatures.

    Attributes:
        answer_max_tokens: the longest prose answer, in tokens (default 512).
        decision_max_tokens: the longest tool decision, in tokens (default 256).
        answer_temperature: sampling temperature for prose (default 0.3).
        decision_temperature: sampling temperature for tool choice (default 0, greedy).
    """

    answer_max_tokens: int = 512
    decision_max_tokens: int = 256
    answer_temperature: float = 0.3
    decision_temperature: float = 0.0


def load_model(options: LoadOptions) -> LlamaModel:
    """The default loader: :func:`~.embedded_load.load_llama`, seen token by token.

    Raises:
        ModelUnavailable: as :func:`~.embedded_load.load_llama`, or the model has no
            chat template.
    """
    return LlamaModel(load_llama(options))


@dataclass
class EmbeddedBackend:
    """A :class:`~.base.ModelBackend` running a GGUF model in this process.

    Args:
        load: which model and how (default: the verified default model, a
            context of 8192 tokens, one thread per CPU).
        mode: ``"schema"`` (default) or ``"native"`` tool choice.
        sampling: token limits and temperatures.
        cache_bytes: the bound on saved prompt-prefix states, in bytes (default
            256 MiB, beyond the loaded model and its own KV cache; 0 keeps only
            the live KV cache).
        loader: builds the model from ``load`` (tests pass a fake; the default,
            :func:`load_model`, checks the file and loads it with llama-cpp-python).
    """

    load: LoadOptions = field(default_factory=LoadOptions)
    mode: ToolMode = "schema"
    sampling: Sampling = field(default_factory=Sampling)
    cache_bytes: int = DEFAULT_CACHE_BYTES
    loader: Callable[[LoadOptions], Any] = load_model
    _runner: Runner | None = field(default=None, init=False, repr=False)
    _grammars: dict[str, Any] = field(default_factory=dict, init=False, repr=False)
    _worker: ThreadPoolExecutor = field(init=False, repr=False)
    _in_flight: int = field(default=0, init=False, repr=False)
    """Requests submitted and not finished (event-loop side): another one waits."""

    def __post_init__(self) -> None:
        if self.mode not in ("schema", "native"):
            raise ValueError(f"tool mode must be 'schema' or 'native', not {self.mode!r}")
        self._states = PrefixStates(self.cache_bytes)
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sovereign-model")

    async def complete(
        self,
        messages: list[Message],
        *,
        tools: list[ToolDefinition] | None,
        on_token: TokenSink | None = None,
        on_progress: BackendProgress | None = None,
        tool_choice: ToolChoice = "auto",
    ) -> ModelReply:
        """Ask the model once (see :meth:`ModelBackend.complete`).

        Every text goes through :func:`~..template_tokens.prompt_messages` first (valid,
        special-token spellings neutralised). With ``tools``, the reply is one decision
        (schema mode) or the model's text with any calls it wrote (native mode); nothing
        is streamed. With ``tools=None``, the prose answer is streamed into ``on_token``,
        never call markup (:class:`~..call_markup.MarkupGate`). A reply that stopped at
        its token limit comes back with ``cut_off`` set (and no calls).
        ``on_progress`` hears ``queued`` when another request holds the model,
        ``loading_model`` before the first load, and ``started``. ``tool_choice``
        ``required`` takes "answer" out of the decision grammar (schema mode; native
        mode leaves the choice to the chat template).

        Raises:
            ModelUnavailable: llama-cpp-python or the model file is missing,
                unverified or unloadable (the message says how to install it).
            ModelError: llama.cpp failed while generating, e.g. a conversation
                longer than the context window.
        """
        messages, tools = prompt_messages(messages), prompt_tools(tools)
        async with self._request(on_progress) as announce:
            if tools:
                if self.mode == "schema":
                    job = functools.partial(
                        self._decide,
                        required=tool_choice == "required",
                        forced=forced_tools(tool_choice),
                    )
                else:
                    job, (tools, _) = self._native, only_forced(tools, tool_choice)
                return await self._in_worker(announce.started(self._loaded, job), messages, tools)
            shown = MarkupGate(on_token) if on_token is not None else None
            text, cut_off = await self._stream(messages, shown, announce)
            answer = answer_text(text)
            if shown is not None:
                await shown.finish(answer)
            return ModelReply(content=answer, cut_off=cut_off)

    async def yes_odds(
        self, prompts: Sequence[list[Message]], *, on_progress: BackendProgress | None = None
    ) -> list[float]:
        """The log-odds of "yes" over "no" as the model's next word after each prompt
        (:meth:`~.base.YesNoJudge.yes_odds`, :meth:`~.run.Runner.yes_odds`), on the same
        worker as every other request, one prompt after another: each evaluates only its
        tokens after its fixed prefix (saved and restored as a decision's is).
        ``on_progress`` as for :meth:`complete`.

        Raises:
            ModelUnavailable: as :meth:`complete`.
            ModelError: llama.cpp failed, or a prompt is longer than the context.
        """
        shown = [prompt_messages(list(prompt)) for prompt in prompts]
        async with self._request(on_progress) as announce:
            return await self._in_worker(announce.started(self._loaded, self._judge), shown)

    def close(self) -> None:
        """Free the model and stop the worker thread (waits for a running inference).

        The backend cannot be used afterwards.
        """
        self._worker.shutdown(wait=True)
        self._states.clear()
        runner, self._runner = self._runner, None
        if runner is not None and hasattr(runner.model, "close"):
            runner.model.close()

    def forget_prompts(self) -> None:
        """Drop every saved prompt state and the live KV cache: the next request evaluates
        its whole prompt, as the first one after loading does (benchmarks' uncached path)."""
        self._states.clear()
        if self._runner is not None:
            self._runner.model.truncate(0)

    def cache_figures(self) -> CacheFigures:
        """What the prompt-prefix cache holds now (entries, bytes within its bound, hits)."""
        return self._states.figures()

    @contextlib.asynccontextmanager
    async def _request(self, on_progress: BackendProgress | None) -> AsyncIterator[_Announcer]:
        """One request while it is in flight: ``queued`` said first when another one
        holds the model; the :class:`_Announcer` of its other waits."""
        announce = _Announcer(asyncio.get_running_loop(), on_progress)
        if self._in_flight:
            await announce.now("queued")
        self._in_flight += 1
        try:
            yield announce
        finally:
            self._in_flight -= 1

    async def _in_worker(self, job: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._worker, job, *args)

    def _loaded(self) -> bool:
        return self._runner is not None

    def _run(self) -> Runner:
        """The runner over the loaded model, loading it on first use (worker thread only)."""
        if self._runner is None:
            self._runner = Runner(self.loader(self.load), self._states)
        return self._runner

    def _decide(
        self,
        messages: list[Message],
        tools: list[ToolDefinition],
        *,
        required: bool = False,
        forced: tuple[str, ...] | None = None,
    ) -> ModelReply:
        """One decision under the grammar of ``tools``. With ``forced`` (tools' names),
        the grammar admits a call of one of those tools alone. One forced tool is
        written by the grammar, name and shape (what to choose is said in the messages),
        and the instructions list the other tools, as the decision before did: the
        prompt up to the new messages is the one already evaluated (the prefix cache
        serves it). Among several the model chooses, so every tool stays listed."""
        listed = tools
        if forced is not None:
            if len(forced) == 1:
                listed = [t for t in tools if t["function"]["name"] not in forced]
            tools, required = [t for t in tools if t["function"]["name"] in forced], True
        schema_json = json.dumps(decision_schema(tools, required=required), sort_keys=True)
        request = Generation(
            messages=decision_messages(messages, listed),
            grammar=self._grammar(schema_json),
            max_tokens=self.sampling.decision_max_tokens,
            temperature=self.sampling.decision_temperature,
        )
        text, cut_off = drain(self._pieces(request))
        return decision_or_cut_off(text, cut_off, tools, messages)

    def _native(self, messages: list[Message], tools: list[ToolDefinition]) -> ModelReply:
        reply = self._chat(
            native_messages(messages),
            tools=tools,
            max_tokens=self.sampling.decision_max_tokens,
            temperature=self.sampling.decision_temperature,
        )
        cut_off = is_cut_off(finish_reason(reply))
        return reply_from_message(reply["choices"][0]["message"], tools, messages, cut_off=cut_off)

    def _grammar(self, schema_json: str) -> Any:
        if schema_json not in self._grammars:
            self._grammars.clear()  # one tool set per deployment; keep only the latest
            self._grammars[schema_json] = json_schema_grammar(schema_json)
        return self._grammars[schema_json]

    def _chat(self, messages: list[Message], **options: Any) -> Any:
        model = self._run().model
        try:
            return model.chat(messages, **options)
        except (ValueError, RuntimeError) as error:
            raise _model_error(error) from error

    def _judge(self, prompts: list[list[Message]]) -> list[float]:
        runner = self._run()
        try:
            return [runner.yes_odds(prompt) for prompt in prompts]
        except (ValueError, RuntimeError) as error:
            raise _model_error(error) from error

    def _pieces(self, request: Generation) -> Generator[str, None, bool]:
        try:
            return (yield from self._run().pieces(request))
        except (ValueError, RuntimeError) as error:
            raise _model_error(error) from error

    async def _stream(
        self, messages: list[Message], on_token: TokenSink | None, announce: _Announcer
    ) -> tuple[str, bool]:
        """Generate the prose answer in the worker, handing each piece to ``on_token``;
        returns the whole text and whether it was cut off."""
        loop = asyncio.get_running_loop()
        pieces: asyncio.Queue[str | None] = asyncio.Queue()
        stop = threading.Event()

        def emit(piece: str | None) -> None:
            try:
                loop.call_soon_threadsafe(pieces.put_nowait, piece)
            except RuntimeError:  # the event loop is gone: nobody is listening any more
                stop.set()

        generate = announce.started(self._loaded, self._generate)
        job = loop.run_in_executor(self._worker, generate, messages, emit, stop)
        try:
            while (piece := await pieces.get()) is not None:
                if on_token is not None:
                    await on_token(piece)
        except BaseException:
            stop.set()  # the caller went away or on_token failed: stop generating
            job.add_done_callback(_retrieve_outcome)
            raise
        return await job

    def _generate(
        self, messages: list[Message], emit: Emit, stop: threading.Event
    ) -> tuple[str, bool]:
        """Stream the answer (worker thread); returns the whole text and whether it was
        cut off, emits ``None`` at the end. A text that starts looping is cut after its
        first copy of the repeated block (:func:`~..repeats.loop_cut`) and is cut off."""
        text = ""
        pieces, cut_off = self._answer_pieces(messages), True
        try:
            while not stop.is_set():
                try:
                    piece = next(pieces)
                except StopIteration as end:
                    cut_off = bool(end.value)
                    break
                text += piece
                emit(piece)
                if (cut := loop_cut(text)) is not None:
                    text = text[:cut]
                    break
        finally:
            pieces.close()
            emit(None)
        return text, cut_off

    def _answer_pieces(self, messages: list[Message]) -> Generator[str, None, bool]:
        if self.mode == "native":
            return self._native_answer(messages)
        return self._pieces(
            Generation(
                messages=answer_messages(messages),
                max_tokens=self.sampling.answer_max_tokens,
                temperature=self.sampling.answer_temperature,
            )
        )

    def _native_answer(self, messages: list[Message]) -> Generator[str, None, bool]:
        chunks = self._chat(
            native_messages(messages),
            stream=True,
            max_tokens=self.sampling.answer_max_tokens,
            temperature=self.sampling.answer_temperature,
        )
        reason = None
        try:
            for chunk in chunks:
                choice = chunk["choices"][0]
                reason = choice.get("finish_reason") or reason
                piece = choice["delta"].get("content")
                if piece:
                    yield piece
        except (ValueError, RuntimeError) as error:
            raise _model_error(error) from error
        finally:
            getattr(chunks, "close", lambda: None)()
        return is_cut_off(reason)


def native_messages(messages: list[Message]) -> list[Message]:
    """``messages`` as a chat template with tool support expects them.

    Content is never null, and call arguments given as JSON text become
    objects (templates serialise them again; text would be encoded twice).
    Arguments that are not a JSON object become ``{}``.

    Returns:
        A new list; ``messages`` is not changed.
    """
    converted = []
    for message in messages:
        message = {**message, "content": message.get("content") or ""}
        if message.get("tool_calls"):
            message["tool_calls"] = [_call_with_object_arguments(c) for c in message["tool_calls"]]
        converted.append(message)
    return converted


def _call_with_object_arguments(call: dict[str, Any]) -> dict[str, Any]:
    function = dict(call.get("function", {}))
    arguments, _problem = parse_arguments(function.get("arguments"))
    function["arguments"] = arguments or {}
    return {**call, "function": function}


class _Announcer:
    """Tells ``on_progress`` (an event-loop coroutine function) of a request's waits,
    from the event loop or from the worker thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop, on_progress: BackendProgress | None):
        self._loop, self._sink = loop, on_progress
        self._sent: set[asyncio.Future[None]] = set()

    async def now(self, event: str) -> None:
        if self._sink is not None:
            await self._sink(event)

    def started(self, loaded: Callable[[], bool], job: Callable[..., Any]) -> Callable[..., Any]:
        """``job`` that first announces ``loading_model`` (when nothing is loaded yet) and
        ``started`` from the worker thread."""

        def announced(*args: Any) -> Any:
            if not loaded():
                self._from_worker("loading_model")
            self._from_worker("started")
            return job(*args)

        return announced

    def _from_worker(self, event: str) -> None:
        if self._sink is None:
            return
        future = asyncio.run_coroutine_threadsafe(self._sink(event), self._loop)
        self._sent.add(future)  # type: ignore[arg-type]
        future.add_done_callback(self._sent.discard)  # type: ignore[arg-type]


def _retrieve_outcome(job: asyncio.Future[Any]) -> None:
    """Mark an abandoned generation's outcome as seen, so asyncio does not log it."""
    if not job.cancelled():
        job.exception()


def _model_error(error: Exception) -> ModelError:
    if is_context_overflow(str(error)):
        return ContextTooLong(f"the conversation is longer than the model's context: {error}")
    return ModelError(f"the embedded model failed: {error}")
