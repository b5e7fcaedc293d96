"""A model behind an OpenAI-compatible HTTP server (issue 5, DESIGN §4).

llama-server (the appliance's default, on 127.0.0.1:8081), llama-cpp-python's
server, Ollama and vLLM all speak ``POST {base_url}/chat/completions``. Two
ways of choosing tools:

- ``native``: the server's own tool calling (``tools``, ``tool_choice: auto``);
  replies are normalised by :mod:`.openai_wire`.
- ``schema``: the JSON-schema-constrained decision of :mod:`.decision`, sent as
  ``response_format: {"type": "json_schema", ...}``. Small models choose far
  better this way.

Either way, the prose answer (``tools=None``) is a plain request, streamed over
server-sent events into ``on_token`` when one is given.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import httpx

from .base import (
    ContextTooLong,
    Message,
    ModelError,
    ModelReply,
    ModelUnavailable,
    TokenSink,
    ToolDefinition,
    is_context_overflow,
)
from .decision import answer_messages, decision_messages, decision_schema, parse_decision
from .openai_wire import StreamAccumulator, reply_from_message, wire_messages

DEFAULT_BASE_URL = "http://127.0.0.1:8081/v1"
"""llama-server on the appliance (DESIGN §5)."""

Mode = Literal["native", "schema"]


class OpenAIBackend:
    """:class:`~.base.ModelBackend` for an OpenAI-compatible chat-completions server.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8081/v1``.
        model: the model name the server expects (llama-server accepts any).
        mode: ``"native"`` or ``"schema"`` tool choice (see the module docstring).
        timeout_seconds: deadline for one whole request, in seconds.
        max_tokens: cap on generated tokens per request.
        temperature: sampling temperature.
        api_key: sent as a bearer token when set (for servers that need one).
        transport: an httpx transport (tests); default: a plain connection,
            ignoring proxy environment variables.

    Errors (from :meth:`complete`): :class:`ModelUnavailable` when the server
    cannot be reached, times out or answers 503 (still loading);
    :class:`ModelError` for any other unusable answer, including a 500
    "Failed to parse", which a retry may cure.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        model: str = "local",
        *,
        mode: Mode = "native",
        timeout_seconds: float = 120.0,
        max_tokens: int = 512,
        temperature: float = 0.2,
        api_key: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if mode not in ("native", "schema"):
            raise ValueError(f"mode must be 'native' or 'schema', not {mode!r}")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.mode = model, mode
        self._timeout = timeout_seconds
        self._sampling = {"max_tokens": max_tokens, "temperature": temperature}
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._transport = transport

    async def complete(
        self,
        messages: list[Message],
        *,
        tools: list[ToolDefinition] | None,
        on_token: TokenSink | None = None,
    ) -> ModelReply:
        """Ask once; see :meth:`ModelBackend.complete <.base.ModelBackend.complete>`."""
        payload = self.payload(messages, tools)
        if tools is None and on_token is not None:
            message = await self._stream(payload, on_token)
        else:
            message = await self._post(payload)
        if tools is not None and self.mode == "schema":
            return parse_decision(message.get("content") or "", tools)
        return reply_from_message(message, tools)

    def payload(
        self, messages: list[Message], tools: list[ToolDefinition] | None
    ) -> dict[str, Any]:
        """The request body for ``messages`` and ``tools`` in this backend's mode."""
        body: dict[str, Any] = {"model": self.model, **self._sampling}
        if tools is None:
            history = answer_messages(messages) if self.mode == "schema" else messages
            body["messages"] = wire_messages(history)
        elif self.mode == "schema":
            body["messages"] = decision_messages(messages, tools)
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": "decision",
                    "strict": True,
                    "schema": decision_schema(tools),
                },
            }
        else:
            body.update(messages=wire_messages(messages), tools=tools, tool_choice="auto")
        return body

    async def _post(self, payload: dict[str, Any]) -> dict[str, Any]:
        async with self._client() as client:
            response = await self._send(client.post(self.url, json=payload))
            _raise_for_status(response.status_code, response.text)
            try:
                return _first_message(response.json())
            except ValueError as exc:
                raise ModelError("the model server's reply was not JSON") from exc

    async def _stream(self, payload: dict[str, Any], on_token: TokenSink) -> dict[str, Any]:
        accumulator = StreamAccumulator()
        async with self._client() as client:
            request = client.build_request("POST", self.url, json={**payload, "stream": True})
            response = await self._send(client.send(request, stream=True))
            try:
                if response.status_code != 200:
                    await response.aread()
                    _raise_for_status(response.status_code, response.text)
                async for data in _sse_data(response):
                    text = accumulator.add(_chunk(data))
                    if text:
                        await on_token(text)
            except httpx.HTTPError as exc:
                raise ModelUnavailable(f"the model server broke off its reply: {exc}") from exc
            finally:
                await response.aclose()
        return accumulator.message()

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            timeout=self._timeout,
            headers=self._headers,
            transport=self._transport,
            trust_env=False,
        )

    async def _send(self, pending: Any) -> httpx.Response:
        try:
            return await pending
        except httpx.TimeoutException as exc:
            raise ModelUnavailable(
                f"the model server at {self.url} did not answer in time"
            ) from exc
        except httpx.HTTPError as exc:
            raise ModelUnavailable(f"the model server at {self.url} cannot be reached") from exc


def _raise_for_status(status: int, body: str) -> None:
    """503 (loading) → ModelUnavailable; any other error → ModelError, which the turn
    loop retries: llama-server's 500 "Failed to parse ..." is the common case."""
    if status == 200:
        return
    message = _error_message(body)
    if status == 503:
        raise ModelUnavailable(f"the model server is not ready (503): {message}")
    if is_context_overflow(message):
        raise ContextTooLong(f"the model server answered {status}: {message}")
    raise ModelError(f"the model server answered {status}: {message}")


def _error_message(body: str) -> str:
    try:
        error = json.loads(body).get("error")
    except (ValueError, AttributeError):
        return body[:200]
    if isinstance(error, dict):
        return str(error.get("message", ""))[:200]
    return str(error)[:200]


def _first_message(body: Any) -> dict[str, Any]:
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ModelError("the model server's reply had no message") from exc
    if not isinstance(message, dict):
        raise ModelError("the model server's reply had no message")
    return message


async def _sse_data(response: httpx.Response):  # type: ignore[no-untyped-def]
    """Yield each ``data:`` payload of a server-sent-event stream until ``[DONE]``."""
    async for line in response.aiter_lines():
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return
        yield data


def _chunk(data: str) -> dict[str, Any]:
    try:
        chunk = json.loads(data)
    except ValueError as exc:
        raise ModelError("the model server streamed a chunk that is not JSON") from exc
    if not isinstance(chunk, dict):
        raise ModelError("the model server streamed a chunk that is not an object")
    if "error" in chunk:
        raise ModelError(f"the model server failed mid-answer: {_error_message(data)}")
    return chunk
