"""Signed-in sessions of the Console, held in memory (console-auth).

A session has two halves, and a request acts only with both
(docs/decisions/cookie-is-not-a-session.md):

- the **session cookie**: a random id, host-only, HttpOnly, SameSite=Strict
  (``__Host-`` over TLS). Browsers send cookies to every port of a name, so a
  program listening on another port of ``sovereign.localhost`` can be sent it;
- a **tab secret**, one per signed-in page: returned only in the answer to a
  sign-in or setup, kept by that page (``sessionStorage``, which no other origin,
  and so no other port, can read) and sent back in ``X-CSRF-Token`` on every
  request. ``/auth/state`` never returns it.

Each sign-in on a browser whose session is live adds a tab secret to that session
(its other tabs stay signed in) and renews the cookie: a copy of the old one taken
earlier is worth nothing afterwards. At most :data:`MAX_TABS` tab secrets are kept,
the oldest dropped first. A session ends after ``idle_seconds`` without a request, after
``absolute_seconds`` whatever happens, on sign-out (every tab of that browser), or
when the password changes. A restart signs everyone out.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from sovereign.expiring import ExpiringMap

COOKIE_NAME = "sovereign_session"
SECURE_COOKIE_NAME = "__Host-" + COOKIE_NAME
IDLE_SECONDS = 8 * 3600.0
ABSOLUTE_SECONDS = 7 * 24 * 3600.0
MAX_SESSIONS = 64
MAX_TABS = 16
"""Most signed-in tabs of one browser at once; signing in a further tab drops the oldest."""


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
    created_at: float
    generation: str
    tabs: deque[str] = field(default_factory=lambda: deque(maxlen=MAX_TABS))
    """The tab secrets of its signed-in pages, oldest first."""

    def tab_matches(self, presented: str | None) -> bool:
        """True when ``presented`` is one of this session's tab secrets (constant time each)."""
        if not presented:
            return False
        given = presented.encode("utf-8", "replace")
        found = False
        for tab in list(self.tabs):
            found |= hmac.compare_digest(given, tab.encode())
        return found


class SessionStore:
    """Opens, looks up and ends sessions (an :class:`~sovereign.expiring.ExpiringMap`).

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
        self._sessions: ExpiringMap[str, Session] = ExpiringMap(
            ttl_seconds=idle_seconds, max_entries=max_sessions, clock=clock
        )

    def open(self) -> tuple[Session, str]:
        """Start a new session (random 256-bit id) with its first tab.

        Returns:
            ``(session, tab secret)``: the id goes into the cookie, the secret to the page.
        """
        session = Session(secrets.token_urlsafe(32), self._clock(), self._generation())
        self._sessions.put(session.id, session)
        return session, self.add_tab(session)

    def add_tab(self, session: Session) -> str:
        """A new tab secret (256 random bits) for ``session``; its oldest tab may drop out."""
        tab = secrets.token_urlsafe(32)
        session.tabs.append(tab)
        return tab

    def renew(self, session: Session) -> Session:
        """The same session (its tabs, its start) under a new random id; the old id ends."""
        renewed = Session(secrets.token_urlsafe(32), session.created_at, session.generation)
        renewed.tabs.extend(session.tabs)
        self._sessions.pop(session.id)
        self._sessions.put(renewed.id, renewed)
        return renewed

    def lookup(self, session_id: str | None) -> Session | None:
        """The live session with this id (its idle timer restarts), or ``None``."""
        if not session_id:
            return None
        session = self._sessions.get(session_id)
        if session is None:
            return None
        left = self.absolute_seconds - (self._clock() - session.created_at)
        if left <= 0 or session.generation != self._generation():
            self._sessions.pop(session_id)
            return None
        self._sessions.touch(session_id, ttl_seconds=min(self.idle_seconds, left))
        return session

    def end(self, session_id: str) -> None:
        """End one session and every tab of it (sign-out); unknown ids are ignored."""
        self._sessions.pop(session_id)

    def __len__(self) -> int:
        return len(self._sessions)
