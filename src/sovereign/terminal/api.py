"""The service's HTTP API as a terminal client sees it (DESIGN §4, §5).

Every request names the service's own host in ``Host`` and its own origin in
``Origin``, as the Console does, so the service's Host and Origin pinning accepts it.
A ``*.localhost`` name is reached on 127.0.0.1 (RFC 6761 §6.3: such names are always
loopback, though the system resolver may not know them), keeping the name in ``Host``,
in TLS's SNI and in ``Origin``.

The session is the service's cookie, kept in this process only, with the tab secret
from the sign-in answer (sent as ``X-CSRF-Token``; the service hands it out nowhere
else). The password is sent once, to sign in, and never kept.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx

DEFAULT_URL = "http://sovereign.localhost:8092"
"""Where ``sovereign serve`` answers by default: the Console's own name on this device."""
TIMEOUT = httpx.Timeout(10.0, read=600.0)
"""Seconds: to connect and write, and (long, a model may think) to read a streamed answer."""
API = "/api/v1"

TokenSink = Callable[[str], Awaitable[None] | None]
EventSink = Callable[[str, Any], None]
"""Receives the stream's other events: ``("turn", {"id"})`` and ``("progress", {...})``."""


class ServiceFailure(Exception):
    """The service refused or failed a request, or could not be reached.

    Attributes:
        status: the HTTP status, 0 when the service could not be reached or the
            stream broke off.
        code: the envelope's ``UPPER_SNAKE`` code (``UNREACHABLE``,
            ``STREAM_ENDED`` for the two cases without an answer).
        message: the service's own sentence.
        body: the whole error body (a failed turn also holds ``receipts`` and
            ``citations``), ``{}`` when there was none.
        retry_after: seconds from ``Retry-After``, when given.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        body: dict[str, Any] | None = None,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.body = body or {}
        self.retry_after = retry_after


@dataclass(frozen=True)
class Target:
    """Where to connect, and the names to send: ``connect_url`` may differ from ``url``
    only in its host (127.0.0.1 for a ``*.localhost`` name)."""

    url: str
    connect_url: str
    host: str
    origin: str
    sni: str | None


def target(url: str) -> Target:
    """The :class:`Target` for a service URL such as ``http://sovereign.localhost:8092``.

    Raises:
        ValueError: not an http(s) URL with a host, or it has a path, query or user info.
    """
    parsed = httpx.URL(url)
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ValueError(f"{url!r} is not an http:// or https:// address of the service")
    if parsed.userinfo or parsed.query or parsed.path not in ("", "/"):
        raise ValueError(f"{url!r} must be the service's address alone, e.g. {DEFAULT_URL}")
    authority = parsed.netloc.decode("ascii")
    origin = f"{parsed.scheme}://{authority}"
    loopback_name = parsed.host.endswith(".localhost")
    connect = parsed.copy_with(host="127.0.0.1") if loopback_name else parsed
    sni = parsed.host if loopback_name and parsed.scheme == "https" else None
    return Target(origin, str(connect).rstrip("/"), authority, origin, sni)


class ServiceClient:
    """A signed-in (or not yet) conversation with one running service.

    Args:
        url: the service, e.g. :data:`DEFAULT_URL`.
        transport: an httpx transport (tests); by default a real connection that
            ignores proxy settings from the environment.
    """

    def __init__(self, url: str, *, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.target = target(url)
        self._csrf: str | None = None
        self._http = httpx.AsyncClient(
            base_url=self.target.connect_url,
            timeout=TIMEOUT,
            trust_env=False,
            transport=transport,
            follow_redirects=False,
        )

    async def __aenter__(self) -> ServiceClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Sign out (best effort) and close the connection."""
        if self._csrf is not None:
            with contextlib.suppress(ServiceFailure):
                await self._request("POST", "/auth/logout")
            self._csrf = None
        await self._http.aclose()

    async def state(self) -> dict[str, Any]:
        """``GET /auth/state``: ``{"setup_required", "signed_in"}`` (never a secret)."""
        return (await self._request("GET", "/auth/state")).json()

    async def sign_in(self, password: str) -> None:
        """``POST /auth/login``; afterwards every request carries the session.

        Raises:
            ServiceFailure: 401 BAD_CREDENTIALS, 409 SETUP_REQUIRED, 429 with
                ``retry_after``, or anything else the service answers.
        """
        response = await self._request("POST", "/auth/login", {"password": password})
        self._csrf = response.json()["csrf_token"]

    async def converse(
        self, payload: dict[str, Any], on_token: TokenSink, on_event: EventSink | None = None
    ) -> dict[str, Any]:
        """``POST /conversation/message`` as a stream: ``on_token(text)`` for each piece,
        ``on_event(kind, data)`` for the ``turn`` and ``progress`` events, then the
        result object (DESIGN §4's response).

        Raises:
            ServiceFailure: the ``error`` event or a non-2xx answer (its ``body`` keeps a
                failed turn's receipts and citations); status 0 when the service cannot
                be reached or the stream ends before its result.
        """
        headers = {"Accept": "text/event-stream"}
        try:
            async with self._http.stream(
                "POST", API + "/conversation/message", json=payload,
                headers=self._headers(headers), extensions=self._extensions(),
            ) as response:  # fmt: skip
                if response.status_code >= 400:
                    await response.aread()
                    raise _failure(response)
                if not response.headers.get("content-type", "").startswith("text/event-stream"):
                    return json.loads(await response.aread())
                return await _read_stream(response.aiter_lines(), on_token, on_event)
        except httpx.TransportError as exc:
            raise _unreachable(self.target.url, exc) from exc

    async def household_words(self) -> dict[str, Any]:
        """``GET /conversation/words``: the household's language and the words said before a
        turn is read, as ``{"language", "sending", "stopping"}`` (each a string; English's
        ``en`` and no words when the answer holds none usable).

        Raises:
            ServiceFailure: the service refused or could not be reached.
        """
        body = (await self._request("GET", "/conversation/words")).json()
        body = body if isinstance(body, dict) else {}
        said = body.get("words") if isinstance(body.get("words"), dict) else {}
        language = body.get("language")
        kept = {key: said[key] for key in ("sending", "stopping") if isinstance(said.get(key), str)}
        return {"language": language if isinstance(language, str) else "en", **kept}

    async def stop(self, turn_id: str) -> bool:
        """``POST /conversation/stop``: True when the turn is stopping, False when it
        had already finished.

        Raises:
            ServiceFailure: anything else the service answers.
        """
        try:
            await self._request("POST", "/conversation/stop", {"turn": turn_id})
        except ServiceFailure as failure:
            if failure.code == "TURN_NOT_RUNNING":
                return False
            raise
        return True

    async def _request(self, method: str, path: str, body: Any = None) -> httpx.Response:
        try:
            response = await self._http.request(
                method, API + path, json=body, headers=self._headers(),
                extensions=self._extensions(),
            )  # fmt: skip
        except httpx.TransportError as exc:
            raise _unreachable(self.target.url, exc) from exc
        if response.status_code >= 400:
            raise _failure(response)
        return response

    def _headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"Host": self.target.host, "Origin": self.target.origin, **(extra or {})}
        headers.setdefault("Accept", "application/json")
        if self._csrf is not None:
            headers["X-CSRF-Token"] = self._csrf
        return headers

    def _extensions(self) -> dict[str, Any]:
        return {"sni_hostname": self.target.sni} if self.target.sni else {}


async def _read_stream(
    lines: AsyncIterator[str], on_token: TokenSink, on_event: EventSink | None
) -> dict[str, Any]:
    async for event, data in sse_events(lines):
        if event in ("turn", "progress") and on_event is not None:
            on_event(event, data)
        elif event == "token":
            shown = on_token(str(data.get("text", "")))
            if shown is not None:
                await shown
        elif event == "result":
            return data
        elif event == "error":
            error = data.get("error", {})
            raise ServiceFailure(200, error.get("code", "ERROR"), error.get("message", ""), data)
    raise ServiceFailure(0, "STREAM_ENDED", "The answer stopped before it was complete.")


async def sse_events(lines: AsyncIterator[str]) -> AsyncIterator[tuple[str, Any]]:
    """``(event, data)`` for each server-sent event of the service's stream.

    The HTML standard's wire format, as the service writes it: ``event:`` and
    ``data:`` fields, frames ended by a blank line, several ``data:`` lines joined
    with newlines, comments (``:``) ignored. ``data`` is parsed as JSON.

    Raises:
        ServiceFailure: a frame whose data is not JSON (``GARBLED_STREAM``).
    """
    event, data = "message", []
    async for line in lines:
        if line == "":
            if data:
                yield event, _json(data)
            event, data = "message", []
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)


def _json(data: list[str]) -> Any:
    try:
        return json.loads("\n".join(data))
    except json.JSONDecodeError as exc:
        raise ServiceFailure(0, "GARBLED_STREAM", "The answer arrived garbled.") from exc


def _failure(response: httpx.Response) -> ServiceFailure:
    try:
        body = response.json()
    except ValueError:
        body = {}
    error = body.get("error", {}) if isinstance(body, dict) else {}
    retry = response.headers.get("retry-after", "")
    return ServiceFailure(
        response.status_code,
        error.get("code", f"HTTP_{response.status_code}"),
        error.get("message") or f"The service answered HTTP {response.status_code}.",
        body if isinstance(body, dict) else {},
        int(retry) if retry.isdigit() else None,
    )


def _unreachable(url: str, exc: Exception) -> ServiceFailure:
    return ServiceFailure(
        0, "UNREACHABLE", f"The service at {url} could not be reached ({type(exc).__name__})."
    )
