"""One Pi-hole v6 API session per device, shared by every invocation (RFC-0006, issue 32).

Pi-hole holds only a few API sessions at once (``webserver.api.max_sessions``, 16
by default), keeps each for ``webserver.session.timeout`` (1800 s) after its last
use, and keeps them across its own restarts. A client that logs in per question,
and never logs out, uses them all up: Pi-hole then answers every login, its own web
interface's included, ``429 {"error": {"key": "api_seats_exceeded"}}`` (FTL
``src/api/auth.c``). So:

- one session (SID) per device, shared under an ``asyncio`` lock: concurrent
  questions wait for the one login instead of each making its own;
- a 401 renews it once, and only if no other invocation renewed it meanwhile;
- a changed password or address logs the old session out before the new login;
- a refused login is shared too: the invocations that waited for it get its
  answer, so a burst of questions costs Pi-hole one login attempt, not one each;
- :meth:`PiholeSession.logout` (``DELETE /api/auth``) gives the seat back when the
  service stops (the registry's ``on_close``, run by the service's lifespan);
- ``api_seats_exceeded`` is told to the household plainly, with what to do.

The SID travels only in the ``X-FTL-SID`` header (never a query string, which
servers log); the password only in the body of ``POST /api/auth``.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from typing import Any, Protocol

import httpx

from sovereign.executor import CapabilityError

from ._household_http import JsonReply, make_client, request_json

logger = logging.getLogger(__name__)

SERVICE = "Pi-hole"
MAX_REPLY_BYTES = 262144
"""Cap on one Pi-hole response body, in bytes (a summary is about 2 KiB)."""
LOGOUT_TIMEOUT_SECONDS = 3.0
"""How long a logout at shutdown may take, in seconds (shutdown does not wait longer)."""

SEATS_EXCEEDED = (
    "Pi-hole has no free API session for me: it allows only a few logins at once (16 "
    "unless webserver.api.max_sessions says otherwise) and all of them are taken, by its "
    "web interface open in browsers or by other programs. Log out of Pi-hole's web "
    "interface where it is open, or raise webserver.api.max_sessions in Pi-hole "
    "(Settings > All settings > Webserver and API), then ask me again. Sessions left "
    "open also end by themselves after 30 minutes."
)
"""What the household is told when Pi-hole answers a login ``api_seats_exceeded``."""


class PiholeLogin(Protocol):
    """What a session needs of the settings: where Pi-hole is and its app password."""

    base_url: str
    password: str


class PiholeSession:
    """The Pi-hole API session of one device, shared by every invocation (module docstring).

    Safe for concurrent use within one event loop; not shared between processes.
    ``logins`` and ``logouts`` count what this session did (diagnostics and tests).
    """

    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self._sid: str | None = None
        self._owner: tuple[str, bytes] | None = None
        """The device and password digest the SID belongs to."""
        self._finished = 0
        """Login attempts finished so far (succeeded or refused)."""
        self._refused: tuple[int, str] | None = None
        """The last refused attempt's number (in ``_finished``) and its sentence."""
        self.logins = 0
        self.logouts = 0

    async def get(
        self, client: httpx.AsyncClient, settings: PiholeLogin, path: str, **params: Any
    ) -> dict[str, Any]:
        """GET ``path`` with the shared session, logging in first or again after a 401.

        Args:
            client: an HTTP client for ``settings.base_url`` (:func:`make_client`).
            settings: Pi-hole's address and app password.
            path: e.g. ``/api/stats/summary``; ``params`` go into its query string.

        Returns:
            The JSON object Pi-hole answered with.

        Raises:
            CapabilityError: login refused (:data:`SEATS_EXCEEDED` when Pi-hole has no
                free session), a second 401, a non-200 status, a non-object body, or
                any transport failure.
        """
        sid = await self._session(client, settings)
        reply = await self._get_once(client, path, params, sid)
        if reply.status == 401:
            sid = await self._session(client, settings, stale=sid)
            reply = await self._get_once(client, path, params, sid)
        if reply.status == 401:
            raise CapabilityError("Pi-hole refused a fresh session; try again in a minute.")
        if reply.status != 200 or not isinstance(reply.body, dict):
            raise CapabilityError(f"Pi-hole answered {path} with HTTP {reply.status}.")
        return reply.body

    async def logout(self) -> None:
        """Give the session back to Pi-hole (``DELETE /api/auth``); never raises.

        Run when the service stops. A Pi-hole that cannot be reached keeps the seat
        until its own timeout; that is logged, and shutdown goes on.
        """
        async with self._lock:
            sid, owner = self._sid, self._owner
            self._sid = self._owner = None
            if sid and owner is not None:
                await self._delete(owner[0], sid)

    async def _session(
        self, client: httpx.AsyncClient, settings: PiholeLogin, *, stale: str | None = None
    ) -> str:
        """The SID to use: the shared one, or a new one made under the lock. ``stale``:
        a SID Pi-hole just refused (renewed only if nobody renewed it meanwhile)."""
        asked = self._finished
        async with self._lock:
            owner = (settings.base_url, _digest(settings.password))
            if self._sid is not None and self._owner == owner and self._sid != stale:
                return self._sid
            if self._refused is not None and self._refused[0] > asked:
                # the login this call waited for, refused: the same words and reason
                raise CapabilityError(self._refused[1], reason=self._refused[2])
            if self._sid and self._owner is not None and self._owner != owner:
                await self._delete(self._owner[0], self._sid)  # free the old seat first
            self._sid = self._owner = None
            self._sid = await self._login(client, settings)
            self._owner = owner
            return self._sid

    async def _login(self, client: httpx.AsyncClient, settings: PiholeLogin) -> str:
        try:
            reply = await request_json(
                client, "POST", "/api/auth", service=SERVICE, max_bytes=MAX_REPLY_BYTES,
                json={"password": settings.password},
            )  # fmt: skip
            session = reply.body.get("session") if isinstance(reply.body, dict) else None
            if reply.status != 200 or not _valid(session):
                raise CapabilityError(login_failure(reply), reason=failure_reason(reply))
        except CapabilityError as exc:
            self._finished += 1
            self._refused = (self._finished, exc.message, exc.reason)
            raise
        self._finished += 1
        self.logins += 1
        sid = session.get("sid") if isinstance(session, dict) else None
        # A Pi-hole without a password answers valid with a null SID: no header needed.
        return sid if isinstance(sid, str) else ""

    async def _get_once(
        self, client: httpx.AsyncClient, path: str, params: dict[str, Any], sid: str
    ) -> JsonReply:
        headers = {"X-FTL-SID": sid} if sid else {}
        return await request_json(
            client, "GET", path, service=SERVICE, max_bytes=MAX_REPLY_BYTES,
            headers=headers, params=params,
        )  # fmt: skip

    async def _delete(self, base_url: str, sid: str) -> None:
        try:
            async with make_client(base_url, timeout_seconds=LOGOUT_TIMEOUT_SECONDS) as client:
                reply = await request_json(
                    client, "DELETE", "/api/auth", service=SERVICE,
                    max_bytes=MAX_REPLY_BYTES, headers={"X-FTL-SID": sid},
                )  # fmt: skip
        except CapabilityError as exc:
            logger.warning("Pi-hole session not logged out: %s", exc.message)
            return
        if reply.status in (200, 204, 401, 410):  # gone, or already gone
            self.logouts += 1
        else:
            logger.warning("Pi-hole answered the logout with HTTP %d", reply.status)


SEATS_REASON = "api_seats_exceeded"
"""The failure's label (its audit reason, and the key of the household's sentence in
``pihole.PHRASES.failures``) when Pi-hole has no free API session."""


def failure_reason(reply: JsonReply) -> str | None:
    """:data:`SEATS_REASON` for FTL's ``429 api_seats_exceeded``, else ``None``."""
    error = reply.body.get("error") if isinstance(reply.body, dict) else None
    key = error.get("key") if isinstance(error, dict) else None
    return SEATS_REASON if reply.status == 429 and key == SEATS_REASON else None


def login_failure(reply: JsonReply) -> str:
    """The household's sentence for a refused ``POST /api/auth`` (FTL's status and key)."""
    error = reply.body.get("error") if isinstance(reply.body, dict) else None
    key = error.get("key") if isinstance(error, dict) else None
    if reply.status == 429 and key == "api_seats_exceeded":
        return SEATS_EXCEEDED
    if reply.status in (200, 401):
        return (
            "Pi-hole rejected the password in pihole.json; create a new app password "
            "(Settings > Web interface / API) and save it there."
        )
    if reply.status == 400:
        return (
            "Pi-hole asked for a two-factor code; use an app password in pihole.json, "
            "which needs none."
        )
    if reply.status == 429:
        return "Pi-hole is limiting how often anyone may log in; ask me again in a minute."
    return f"Pi-hole answered the login with HTTP {reply.status}."


def _valid(session: Any) -> bool:
    return isinstance(session, dict) and session.get("valid") is True


def _digest(password: str) -> bytes:
    return hashlib.sha256(password.encode("utf-8", "surrogatepass")).digest()
