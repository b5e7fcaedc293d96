"""``pihole.summary``: the household's ad-blocking totals (local, read_only, automatic).

Backed by Pi-hole v6's REST API on this device (default ``http://127.0.0.1:8080``,
DESIGN §5; RFC-0006). Only totals leave Pi-hole through this capability, never
per-client or per-domain query data.

Configuration lives in ``<data>/pihole.json`` (mode 0600)::

    {"password": "<app password>", "base_url": "http://127.0.0.1:8080"}

``base_url`` is optional and must name this device. The password is sent only
in the body of ``POST /api/auth``; it never reaches the model, a result, a
message or the audit log. Pi-hole answers with a session id (SID), kept and
shared by every invocation, renewed on a 401 and logged out when the service
stops, because Pi-hole holds only a few API sessions at once
(:mod:`.pihole_session`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sovereign.executor import (
    ABSENT,
    Capability,
    CapabilityError,
    Effect,
    FactSheet,
    Locality,
    Phrases,
    Registry,
    Statement,
    Topic,
    read_subjects,
    read_topic_words,
)

from ._household_http import make_client
from ._settings import SettingsError, check_base_url, content_refused, read_private_json
from .pihole_session import SEATS_REASON, PiholeSession

SETTINGS_FILENAME = "pihole.json"
DEFAULT_BASE_URL = "http://127.0.0.1:8080"
TIMEOUT_SECONDS = 10.0
"""Deadline of the whole invocation, in seconds."""

PERIODS: dict[str, int | None] = {
    # FTL's in-memory window: /api/stats/summary covers the last 24 hours
    # (webserver.api.maxHistory, 86400 s by default).
    "last_24_hours": None,
    # FTL's long-term database: /api/stats/database/summary?from=&until= (Unix
    # seconds); it keeps database.maxDBdays of history, 91 days by default.
    "last_7_days": 7 * 86400,
    "last_30_days": 30 * 86400,
}
"""Each ``period`` value → its span in seconds (None: Pi-hole's live 24-hour window)."""

ARGUMENTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "period": {
            "type": "string",
            "enum": list(PERIODS),
            "description": (
                "Time window of the totals: last_24_hours (default, live counters), "
                "last_7_days or last_30_days (from Pi-hole's long-term database)."
            ),
            # Offered to the model only when the question names a time scope, and
            # only the values of the length it names (sovereign.conversation.offer.guidance,
            # spans in days); else the live 24 hours apply.
            "x-time-window": {"last_24_hours": 1, "last_7_days": 7, "last_30_days": 30},
        }
    },
    "additionalProperties": False,
}

RESULT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": [
        "period",
        "queries_total",
        "queries_blocked",
        "percent_blocked",
        "domains_on_blocklist",
        "blocking_status",
        "retrieved_at",
    ],
    "properties": {
        "period": {"enum": list(PERIODS)},
        "queries_total": {"type": "integer", "minimum": 0},
        "queries_blocked": {"type": "integer", "minimum": 0},
        "percent_blocked": {"type": "number", "minimum": 0, "maximum": 100},
        "domains_on_blocklist": {"type": ["integer", "null"], "minimum": 0},
        "blocking_status": {"enum": ["enabled", "disabled", "failed", "unknown"]},
        "retrieved_at": {"type": "string"},
    },
    "additionalProperties": False,
}

_HOW_TO_CONFIGURE = (
    "create an app password in Pi-hole's web interface (Settings > Web interface / API) "
    'and save it as {{"password": "..."}} in {path} with mode 0600'
)


@dataclass(frozen=True)
class PiholeSettings:
    """The parsed ``pihole.json``: ``base_url`` and the app ``password`` (hidden from repr)."""

    base_url: str
    password: str = field(repr=False)


REFUSALS = {"pihole_password": "password must be a string."}
"""Why ``pihole.json``'s content is refused, by key, in English (said from the
``console`` catalog, context ``refused_<key>``; a ``base_url`` is refused as
:data:`._settings.BASE_URL_REFUSALS` says)."""


def read_settings(data_dir: Path) -> PiholeSettings | None:
    """Read ``<data_dir>/pihole.json``.

    Returns:
        The settings, or ``None`` when the file does not exist.

    Raises:
        SettingsError: the file is too open, corrupt or invalid (a keyed refusal
            naming the field, never its value).
    """
    path = Path(data_dir) / SETTINGS_FILENAME
    raw = read_private_json(path)
    if raw is None:
        return None
    password = raw.get("password")
    if not isinstance(password, str):
        raise content_refused(path, REFUSALS, "pihole_password")
    base_url = check_base_url(raw.get("base_url", DEFAULT_BASE_URL), path=path, loopback_only=True)
    return PiholeSettings(base_url=base_url, password=password)


def load_settings(data_dir: Path) -> PiholeSettings:
    """Read ``<data_dir>/pihole.json`` for an invocation.

    Raises:
        CapabilityError: EXECUTION_FAILED when the file is absent (the message says
            how to configure Pi-hole), too open, corrupt or invalid.
    """
    try:
        settings = read_settings(data_dir)
    except SettingsError as exc:
        raise CapabilityError(f"Pi-hole settings are unusable: {exc}") from exc
    if settings is None:
        path = Path(data_dir) / SETTINGS_FILENAME
        raise CapabilityError(
            "Pi-hole is not configured: " + _HOW_TO_CONFIGURE.format(path=path) + "."
        )
    return settings


def settings_problem(data_dir: Path) -> str | None:
    """Why ``pihole.json`` is unusable, as one sentence (a
    :class:`~sovereign.file_problems.FileProblem`), or None when usable or absent."""
    try:
        read_settings(data_dir)
    except SettingsError as exc:
        return exc.problem
    return None


def is_configured(data_dir: Path) -> bool:
    """Whether ``<data_dir>/pihole.json`` exists and is usable (private, valid), so
    ``pihole.summary`` can run; read fresh on every call, never raises."""
    try:
        return read_settings(data_dir) is not None
    except SettingsError:
        return False


async def read_summary(
    session: PiholeSession, settings: PiholeSettings, period: str, *, now: float
) -> dict[str, Any]:
    """Collect the totals for ``period`` from Pi-hole.

    Args:
        session: the reusable Pi-hole session.
        settings: from :func:`load_settings`.
        period: a key of :data:`PERIODS`.
        now: the current time in Unix seconds (end of a database window).

    Returns:
        A result matching :data:`RESULT_SCHEMA`.

    Raises:
        CapabilityError: Pi-hole unreachable, login refused, or an unexpected reply.
    """
    async with make_client(settings.base_url, timeout_seconds=TIMEOUT_SECONDS - 1) as client:
        live = await session.get(client, settings, "/api/stats/summary")
        blocking = await session.get(client, settings, "/api/dns/blocking")
        span = PERIODS[period]
        if span is None:
            total = _count(live, "queries", "total")
            blocked = _count(live, "queries", "blocked")
        else:
            stored = await session.get(
                client,
                settings,
                "/api/stats/database/summary",
                **{"from": int(now) - span, "until": int(now)},
            )
            total = _count(stored, "sum_queries")
            blocked = _count(stored, "sum_blocked")
    gravity = live.get("gravity")
    listed = gravity.get("domains_being_blocked") if isinstance(gravity, dict) else None
    status = blocking.get("blocking")
    return {
        "period": period,
        "queries_total": total,
        "queries_blocked": min(blocked, total),
        "percent_blocked": round(100 * min(blocked, total) / total, 1) if total else 0.0,
        "domains_on_blocklist": listed if _is_count(listed) else None,
        "blocking_status": status if status in ("enabled", "disabled", "failed") else "unknown",
        "retrieved_at": datetime.fromtimestamp(now, UTC).isoformat(timespec="seconds"),
    }


def _count(body: dict[str, Any], *keys: str) -> int:
    value: Any = body
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    if not _is_count(value):
        raise CapabilityError(f"Pi-hole's reply lacks {'.'.join(keys)}; is this Pi-hole v6?")
    return value


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


CATALOG = Path(__file__).resolve().parent / "locale"
_PERIOD = {"period": "period"}

FACTS = FactSheet(
    kinds={
        "period": "state",
        "queries_total": "count",
        "queries_blocked": "count",
        "percent_blocked": "percent",
        "domains_on_blocklist": "count",
        "blocking_status": "state",
    },
    topics=(
        Topic(
            name="status",
            means="whether ad blocking is switched on",
            statements=(
                Statement(
                    text="Ad blocking is {status}.",
                    values={"status": "blocking_status"},
                    when={"blocking_status": ("enabled", "disabled")},
                    states="blocking",
                ),
                Statement(
                    text="Pi-hole reports that ad blocking has failed.",
                    when={"blocking_status": "failed"},
                ),
                Statement(
                    text="Pi-hole did not say whether ad blocking is on.",
                    when={"blocking_status": "unknown"},
                ),
            ),
        ),
        Topic(
            name="queries",
            means="how many DNS queries the network made",
            statements=(
                Statement(
                    text="Your network made {total} DNS query {period}.",
                    plural="Your network made {total} DNS queries {period}.",
                    count="total",
                    values={"total": "queries_total", **_PERIOD},
                    states="period",
                ),
            ),
        ),
        Topic(
            name="blocked",
            means="how many queries (ads and trackers) were blocked, and what share of all",
            statements=(
                Statement(
                    text="Pi-hole blocked {blocked} of {total} DNS query {period}.",
                    plural="Pi-hole blocked {blocked} of {total} DNS queries {period}.",
                    count="total",
                    values={
                        "blocked": "queries_blocked",
                        "total": "queries_total",
                        **_PERIOD,
                    },
                    states="period",
                ),
                Statement(
                    text="{percent} of all DNS queries were blocked {period}.",
                    values={"percent": "percent_blocked", **_PERIOD},
                    states="period",
                ),
            ),
        ),
        Topic(
            name="blocklist",
            means="how many domains are on the blocklist",
            statements=(
                Statement(
                    text="{domains} domain is on the blocklist.",
                    plural="{domains} domains are on the blocklist.",
                    count="domains",
                    values={"domains": "domains_on_blocklist"},
                ),
                Statement(
                    text="Pi-hole did not say how many domains are on its blocklist.",
                    when={"domains_on_blocklist": ABSENT},
                ),
            ),
        ),
    ),
    summary=("status", "blocked"),
    asked_by=read_topic_words(CATALOG.parent / "subjects" / "pihole_topics.json"),
    words={
        "blocking": {"enabled": "on", "disabled": "switched off"},
        "period": {
            "last_24_hours": "in the last 24 hours",
            "last_7_days": "in the last 7 days",
            "last_30_days": "in the last 30 days",
        },
    },
    catalog=CATALOG,
    domain="pihole",
)
"""How ``pihole.summary`` is said (DESIGN §4): every figure from its own field."""

PHRASES = Phrases(
    denied="You declined reading Pi-hole's totals, so I didn't check Pi-hole.",
    expired="The approval request for Pi-hole's totals expired before you answered, "
    "so I didn't check Pi-hole.",
    failed="I tried to read Pi-hole's totals, but it failed, so I have no figures from it.",
    not_asked="You declined an earlier request, so I didn't ask you about Pi-hole's totals "
    "either.",
    unavailable="Pi-hole is not set up on this device, so I can't read its ad-blocking totals.",
    failures={
        SEATS_REASON: "Pi-hole has no free login for me: all the sessions it allows are taken, "
        "usually by its web page left open in browsers. Close Pi-hole's web page where it is "
        "open (or log out there), then ask me again; unused sessions also end by themselves "
        "after 30 minutes.",
    },
    stands_for="asks about ad or tracker blocking, or the DNS queries of this network",
    subjects=read_subjects(CATALOG.parent / "subjects" / "pihole.json"),
    parts=read_subjects(CATALOG.parent / "subjects" / "pihole_parts.json"),
    catalog=CATALOG,
    domain="pihole",
)


def register(registry: Registry, *, data_dir: Path) -> PiholeSession:
    """Add ``pihole.summary`` v1 to ``registry``.

    Args:
        registry: where to register.
        data_dir: the service's data directory; ``pihole.json`` is read from it
            on every invocation, so a changed password needs no restart.

    Returns:
        The :class:`PiholeSession` every invocation shares; the registry logs it out
        when it is closed (:meth:`Registry.close`, at the service's shutdown).
    """
    session = PiholeSession()
    registry.on_close(session.logout)

    async def execute(arguments: dict[str, Any]) -> dict[str, Any]:
        settings = load_settings(data_dir)
        period = arguments.get("period", "last_24_hours")
        return await read_summary(session, settings, period, now=time.time())

    registry.add(
        Capability(
            name="pihole.summary",
            version=1,
            description=(
                "Read Pi-hole's network-wide ad-blocking totals: DNS queries, how many were "
                "blocked and what percentage, domains on the blocklist and whether blocking "
                "is on. Totals only, never per-device or per-domain data."
            ),
            arguments_schema=ARGUMENTS_SCHEMA,
            result_schema=RESULT_SCHEMA,
            facts=FACTS,
            phrases=PHRASES,
            effect=Effect.READ_ONLY,
            locality=Locality.LOCAL,
            available=lambda: is_configured(data_dir),
            execute=execute,
            timeout_seconds=TIMEOUT_SECONDS,
            max_result_bytes=4096,
            max_invocations_per_turn=2,
        )
    )
    return session
