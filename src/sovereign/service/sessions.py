"""Signed-in sessions of the Console, held in memory (console-auth).

A session is a random id (sent as a host-only, HttpOnly, SameSite=Strict cookie) plus a
per-session CSRF token. It ends after ``idle_seconds`` without a request, after
``absolute_seconds`` whatever happens, on sign-out, or when the password changes.
A restart signs everyone out, which a household appliance can afford.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

COOKIE_NAME = "sovereign_session"
SECURE_COOKIE_NAME = "__Host-" + COOKIE_NAME
IDLE_SECONDS = 8 * 3600.0
ABSOLUTE_SECONDS = 7 * 24 * 3600.0
MAX_SESSIONS = 64


def cookie_name(scheme: str) -> str:
    """The session cookie's name for a request served over ``scheme`` (DESIGN §5).

    Over TLS the ``__Host-`` prefix makes browsers refuse the cookie unless it is
    Secure, host-only (no ``Domain``) and ``Path=/``, so no other name or scheme can
    set or shadow it. Over plain HTTP the prefix would be refused, so the bare name
    is used, still host-only.
    """
    return SECURE_COOKIE_NAME if scheme == "https" else COOKIE_NAME


@dataclass
class Session:
    """One signed-in browser. Times are from the store's monotonic clock, in seconds."""

    id: str
    csrf_token: str
    created_at: float
    last_seen: float
    generation: str

    def csrf_matches(self, presented: str | None) -> bool:
        """Constant-time comparison of a presented CSRF token with this session's."""
        return presented is not None and hmac.compare_digest(
            presented.encode(), self.csrf_token.encode()
        )


class SessionStore:
    """Opens, looks up and ends sessions.

    Args:
        generation: returns the owner account's current password generation;
            a session opened under another generation is no longer valid.
        clock: monotonic clock in seconds (inject a fake one in tests).
        idle_seconds / absolute_seconds: expiry limits, in seconds.
        max_sessions: most sessions held at once; opening past it ends the oldest.
    """

    def __init__(
        self,
        generation: Callable[[], str],
        *,
        clock: Callable[[], float] = time.monotonic,
        idle_seconds: float = IDLE_SECONDS,
        absolute_seconds: float = ABSOLUTE_SECONDS,
        max_sessions: int = MAX_SESSIONS,
    ) -> None:
        self._generation = generation
        self._clock = clock
        self.idle_seconds = idle_seconds
        self.absolute_seconds = absolute_seconds
        self._max = max_sessions
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, Session] = OrderedDict()

    def open(self) -> Session:
        """Start a new session with fresh random id and CSRF token (256 bits each)."""
        now = self._clock()
        session = Session(
            id=secrets.token_urlsafe(32),
            csrf_token=secrets.token_urlsafe(32),
            created_at=now,
            last_seen=now,
            generation=self._generation(),
        )
        with self._lock:
            while len(self._sessions) >= self._max:
                self._sessions.popitem(last=False)
            self._sessions[session.id] = session
        return session

    def lookup(self, session_id: str | None) -> Session | None:
        """The live session with this id (its idle timer restarts), or ``None``."""
        if not session_id:
            return None
        now = self._clock()
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None:
                return None
            if not self._alive(session, now):
                del self._sessions[session_id]
                return None
            session.last_seen = now
            return session

    def end(self, session_id: str) -> None:
        """End one session (sign-out); unknown ids are ignored."""
        with self._lock:
            self._sessions.pop(session_id, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    def _alive(self, session: Session, now: float) -> bool:
        return (
            now - session.last_seen < self.idle_seconds
            and now - session.created_at < self.absolute_seconds
            and session.generation == self._generation()
        )
