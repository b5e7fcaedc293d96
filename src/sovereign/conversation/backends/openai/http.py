"""One chat-completions request to an OpenAI-compatible server, plain or streamed (issue 20).

Every way the exchange can fail becomes one of three exceptions, each carrying
our own sentence; what the server said goes to the log only, shortened and on
one line (issue 13: a model server's text never reaches the household's client):

- :class:`~.base.ModelUnavailable` (503 MODEL_UNAVAILABLE): the server cannot
  be reached, does not answer in time, breaks off, or says it is not ready
  (HTTP 503 while loading, 429 when busy);
- :class:`~.base.ModelRejected` (502 MODEL_ERROR, never retried): any other
  HTTP error status, e.g. a request format the server does not accept;
  :class:`~.base.ContextTooLong` (413) when its text says the context is exceeded;
- :class:`~.base.ModelError` (502 after one retry): a 200 whose body is unusable.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import ssl
from collections.abc import AsyncIterator
from typing import Any

import httpx
from httpx_sse import EventSource, SSEError

from sovereign.executor import valid_value

from ..base import ContextTooLong, ModelError, ModelRejected, ModelUnavailable, is_context_overflow
from .deltas import finish_reason

logger = logging.getLogger(__name__)

LOG_EXCERPT_CHARS = 200
"""How much of a server's error text the log keeps."""
NOT_READY = frozenset({429, 503})
UNAVAILABLE = {
    "broke_off": "the model server broke off its reply",
    "timeout": "the model server at {url} did not answer in time",
    "unreachable": "the model server at {url} cannot be reached",
    "not_ready": "the model server is not ready (HTTP {status})",
}
"""Why the model server is unavailable, by key, in English (``sovereign doctor`` says
each from its catalog, context ``model_server:<key>``)."""
"""Statuses by which a server says "not now": unavailable, not an error of ours."""


class ChatClient:
    """``POST {base_url}/chat/completions``, one request per call, no retries.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8081/v1``.
        timeout_seconds: deadline for connecting and for each read, in seconds.
        api_key: sent as a bearer token when set.
        transport: an httpx transport (tests); default: a plain connection that
            ignores proxy environment variables.
    """

    def __init__(
        self,
        base_url: str,
        *,
        timeout_seconds: float = 120.0,
        api_key: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self._timeout = timeout_seconds
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._transport = transport

    async def post(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Send ``payload``; returns the reply's JSON object.

        Raises:
            ModelUnavailable, ModelRejected, ContextTooLong, ModelError: see the module.
        """
        async with self._client() as client:
            response = await self._send(client, payload, stream=False)
            _check_status(response.status_code, response.text)
            return _json_object(response.text)

    async def stream(self, payload: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
        """Send ``payload`` with ``stream: true``; yields each ``chat.completion.chunk``.

        A server that answers with one JSON body instead (it does not stream)
        yields that reply once, as a single chunk whose delta is the whole message.
        A stream that breaks off after the server began it (the connection closed
        mid-body, a read timed out) just ends: its last chunk is then no terminal
        event, and the reply counts as cut off.

        Raises:
            ModelUnavailable, ModelRejected, ContextTooLong, ModelError: see the module.
        """
        async with self._client() as client:
            response = await self._send(client, {**payload, "stream": True}, stream=True)
            try:
                async for chunk in _chunks(response):
                    yield chunk
            except httpx.HTTPError as exc:
                if response.status_code != 200:
                    raise _unavailable("broke_off") from exc
                # The reply ends here, without its terminal event: the reader of the
                # chunks (:class:`~.deltas.StreamAccumulator`) takes it as cut off.
                logger.warning("model server broke off its streamed reply: %s", excerpt(str(exc)))
            finally:
                await response.aclose()

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            timeout=self._timeout,
            headers=self._headers,
            transport=self._transport,
            verify=_tls_context(),  # built once: loading the CA bundle costs ~40 ms a request
            trust_env=False,
        )

    async def _send(
        self, client: httpx.AsyncClient, payload: dict[str, Any], *, stream: bool
    ) -> httpx.Response:
        request = client.build_request("POST", self.url, json=payload)
        try:
            return await client.send(request, stream=stream)
        except httpx.TimeoutException as exc:
            raise _unavailable("timeout", url=self.url) from exc
        except httpx.HTTPError as exc:
            logger.warning("model server at %s: %s", self.url, excerpt(str(exc)))
            raise _unavailable("unreachable", url=self.url) from exc


async def _chunks(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    if response.status_code != 200:
        await response.aread()
        _check_status(response.status_code, response.text)
    if "text/event-stream" not in response.headers.get("content-type", ""):
        await response.aread()
        yield whole_reply_chunk(_json_object(response.text))
        return
    try:
        async for event in EventSource(response).aiter_sse():
            if event.data.strip() == "[DONE]":
                return
            if event.data.strip():
                yield _chunk(event.data)
    except SSEError as exc:
        raise ModelError("the model server's stream was not server-sent events") from exc


def whole_reply_chunk(body: dict[str, Any]) -> dict[str, Any]:
    """A non-streamed reply as one chunk: its message becomes the delta (calls indexed),
    with its ``finish_reason`` (``"stop"`` when it gives none: a whole body is a whole
    answer). Its ``object`` stays ``chat.completion``, so it can be told from a real chunk."""
    message = first_message(body)
    listed = message.get("tool_calls")
    calls = [
        {**call, "index": n}
        for n, call in enumerate(listed if isinstance(listed, list) else [])
        if isinstance(call, dict)
    ]
    choice = {"delta": {**message, "tool_calls": calls}, "finish_reason": finish_reason(body)}
    return {"object": "chat.completion", "choices": [choice]}


def first_message(body: Any) -> dict[str, Any]:
    """``body["choices"][0]["message"]``.

    Raises:
        ModelError: the body holds no such object.
    """
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ModelError("the model server's reply had no message") from exc
    if not isinstance(message, dict):
        raise ModelError("the model server's reply had no message")
    return message


def _unavailable(key: str, **values: str) -> ModelUnavailable:
    """The error whose sentence is ``UNAVAILABLE[key]`` filled with ``values``."""
    return ModelUnavailable(UNAVAILABLE[key].format(**values), key=key, **values)


def _check_status(status: int, body: str) -> None:
    if status == 200:
        return
    logger.warning("model server answered HTTP %d: %s", status, excerpt(error_text(body)))
    if status in NOT_READY:
        raise _unavailable("not_ready", status=str(status))
    if is_context_overflow(error_text(body)):
        raise ContextTooLong(f"the model server found the conversation too long (HTTP {status})")
    raise ModelRejected(
        f"the model server refused the request (HTTP {status}); the service log has its reply"
    )


def _json_object(text: str) -> dict[str, Any]:
    """The reply (or one chunk) as JSON, every string in it valid where it enters:
    a lone surrogate (half an emoji) becomes U+FFFD (:func:`sovereign.executor.valid_value`)."""
    try:
        body = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ModelError("the model server's reply was not JSON") from exc
    if not isinstance(body, dict):
        raise ModelError("the model server's reply was not a JSON object")
    return valid_value(body)


def _chunk(data: str) -> dict[str, Any]:
    chunk = _json_object(data)
    if "error" in chunk:
        logger.warning("model server failed mid-answer: %s", excerpt(error_text(data)))
        raise ModelError("the model server failed in the middle of its answer")
    return chunk


def error_text(body: str) -> str:
    """The ``error.message`` of an OpenAI-style error body, else the body itself."""
    try:
        error = json.loads(body).get("error")
    except (ValueError, AttributeError, RecursionError):
        return body
    if isinstance(error, dict):
        return str(error.get("message", ""))
    return str(error)


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def excerpt(text: str) -> str:
    """``text`` for one log line: control characters and line breaks become one space,
    at most :data:`LOG_EXCERPT_CHARS` characters (then ``…``)."""
    flat = " ".join(_CONTROL.sub(" ", text).split())
    if len(flat) <= LOG_EXCERPT_CHARS:
        return flat
    return flat[:LOG_EXCERPT_CHARS] + "…"


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The default verifying TLS context (system CA bundle), created once per process."""
    return ssl.create_default_context()
