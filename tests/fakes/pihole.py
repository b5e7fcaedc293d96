"""A fake Pi-hole v6 REST API on 127.0.0.1.

Response shapes follow Pi-hole FTL's own OpenAPI specification (repository
``pi-hole/FTL``, ``src/api/docs/content/specs/``):

- ``auth.yaml``: ``POST /api/auth`` with ``{"password": ...}`` answers
  ``{"session": {"valid", "totp", "sid", "csrf", "validity"}, "took"}`` (example
  ``login_okay``: sid ``"vFA+EP4MQ5JJvJg+3Q2Jnw="``, validity 300); a wrong
  password answers 401 with ``session.valid: false``; a Pi-hole without a
  password answers ``valid: true`` with ``sid: null`` (``no_login_required``).
  ``DELETE /api/auth`` ends the session: 204, or 401 without a valid session.
- ``src/api/auth.c``: a login when every seat (``webserver.api.max_sessions``, 16
  by default) is taken answers ``429 {"error": {"key": "api_seats_exceeded",
  "message": "API seats exceeded", "hint": "increase webserver.api.max_sessions"}}``.
- ``main.yaml``: the SID is accepted as the ``sid`` query parameter, the ``sid``
  cookie or header, or the ``X-FTL-SID`` header.
- ``common.yaml``: an unauthenticated request answers 401 with
  ``{"error": {"key": "unauthorized", "message": "Unauthorized", "hint": null}}``.
- ``stats.yaml``: ``GET /api/stats/summary`` (schema ``queries``: ``queries.total``,
  ``.blocked``, ``.percent_blocked``, ``.unique_domains``, ``.forwarded``,
  ``.cached``, ``.types``, ``.status``, ``.replies``; ``clients.active/total``;
  ``gravity.domains_being_blocked``), and ``GET /api/stats/database/summary?from=&until=``
  (schema ``database_summary``: ``sum_queries``, ``sum_blocked``,
  ``percent_blocked``, ``total_clients``). Example numbers are the spec's.
- ``dns.yaml``: ``GET /api/dns/blocking`` answers ``{"blocking": "enabled", "timer": null}``.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from typing import Any

from ._loopback import LoopbackServer, Reply, Request

UNAUTHORIZED = {"error": {"key": "unauthorized", "message": "Unauthorized", "hint": None}}

SUMMARY: dict[str, Any] = {
    "queries": {
        "total": 7497,
        "blocked": 3465,
        "percent_blocked": 34.5,
        "unique_domains": 445,
        "forwarded": 4574,
        "cached": 9765,
        "types": {"A": 3643, "AAAA": 123, "HTTPS": 4, "OTHER": 845},
        "status": {"GRAVITY": 72, "FORWARDED": 533, "CACHE": 32},
        "replies": {"NODATA": 72, "NXDOMAIN": 533, "IP": 84},
    },
    "clients": {"active": 10, "total": 22},
    "gravity": {"domains_being_blocked": 104756},
    "took": 0.003,
}

DATABASE_SUMMARY: dict[str, Any] = {
    "sum_queries": 29160,
    "sum_blocked": 6379,
    "percent_blocked": 21.9,
    "total_clients": 10,
    "took": 0.003,
}


SEATS_EXCEEDED = {
    "error": {
        "key": "api_seats_exceeded",
        "message": "API seats exceeded",
        "hint": "increase webserver.api.max_sessions",
    },
    "took": 0.001,
}


class FakePihole(LoopbackServer):
    """Pi-hole v6 with one app password (``None``: no password set) and a seat limit.

    Attributes:
        logins: successful ``POST /api/auth`` calls; login_attempts: every one with the
            right password (seats are counted after the password, as FTL does).
        sessions: the SIDs currently valid; issued_sids: every SID ever handed out;
        logged_out: the SIDs ended by ``DELETE /api/auth``.
        max_sessions: seats (``webserver.api.max_sessions``); a login past them is
            refused ``429 api_seats_exceeded``.
        peak_sessions: the most sessions held at once.
        blocking: what ``/api/dns/blocking`` reports.
        redirect_to: when set, every request is answered 302 to it.
        delay_seconds: how long every answer waits (to let requests overlap).
    """

    def __init__(self, password: str | None = "app-password", max_sessions: int = 16) -> None:
        super().__init__(self._route)
        self.password = password
        self.max_sessions = max_sessions
        self.logins = 0
        self.login_attempts = 0
        self.peak_sessions = 0
        self.delay_seconds = 0.0
        self.sessions: set[str] = set()
        self.issued_sids: list[str] = []
        self.logged_out: list[str] = []
        self.blocking = "enabled"
        self.redirect_to: str | None = None
        self.reject_all_sessions = False
        self._lock = threading.Lock()

    def expire_sessions(self) -> None:
        """Forget every SID, as Pi-hole does after ``validity`` seconds idle."""
        with self._lock:
            self.sessions.clear()

    def take_seats(self, count: int) -> list[str]:
        """Sessions held by someone else (a browser, another program): SIDs made valid
        without a login through this fake's counters."""
        sids = [secrets.token_urlsafe(16) for _ in range(count)]
        with self._lock:
            self.sessions.update(sids)
        return sids

    def _route(self, request: Request) -> Reply:
        if self.delay_seconds:
            time.sleep(self.delay_seconds)
        if self.redirect_to:
            return Reply(302, {}, {"Location": self.redirect_to})
        if request.path == "/api/auth" and request.method == "POST":
            return self._login(request)
        if request.path == "/api/auth" and request.method == "DELETE":
            return self._logout(request)
        if not self._authorised(request):
            return Reply(401, {**UNAUTHORIZED, "took": 0.001})
        if request.path == "/api/stats/summary":
            return Reply(200, SUMMARY)
        if request.path == "/api/stats/database/summary":
            if "from" not in request.query or "until" not in request.query:
                return Reply(400, {"error": {"key": "bad_request", "message": "from/until"}})
            return Reply(200, DATABASE_SUMMARY)
        if request.path == "/api/dns/blocking":
            return Reply(200, {"blocking": self.blocking, "timer": None, "took": 0.001})
        return Reply(404, {"error": {"key": "not_found", "message": "Not found", "hint": None}})

    def _login(self, request: Request) -> Reply:
        try:
            password = json.loads(request.body).get("password")
        except (ValueError, AttributeError):
            return Reply(400, {"error": {"key": "bad_request", "message": "No valid JSON"}})
        if self.password is None:
            return Reply(200, _session(valid=True, sid=None, validity=-1))
        if password != self.password:
            return Reply(401, _session(valid=False, sid=None, validity=-1))
        sid = secrets.token_urlsafe(16)
        with self._lock:
            self.login_attempts += 1
            if len(self.sessions) >= self.max_sessions:
                return Reply(429, SEATS_EXCEEDED)
            self.sessions.add(sid)
            self.issued_sids.append(sid)
            self.logins += 1
            self.peak_sessions = max(self.peak_sessions, len(self.sessions))
        return Reply(200, _session(valid=True, sid=sid, validity=300))

    def _logout(self, request: Request) -> Reply:
        sid = request.headers.get("x-ftl-sid")
        with self._lock:
            if sid not in self.sessions:
                return Reply(401, {**UNAUTHORIZED, "took": 0.001})
            self.sessions.discard(sid)
            self.logged_out.append(sid)
        return Reply(204, b"")

    def _authorised(self, request: Request) -> bool:
        if self.password is None:
            return True
        sid = request.headers.get("x-ftl-sid") or (request.query.get("sid") or [None])[0]
        with self._lock:
            return not self.reject_all_sessions and sid in self.sessions


def _session(*, valid: bool, sid: str | None, validity: int) -> dict[str, Any]:
    csrf = secrets.token_urlsafe(16) if sid else None
    return {
        "session": {"valid": valid, "totp": False, "sid": sid, "csrf": csrf, "validity": validity},
        "took": 0.002,
    }
