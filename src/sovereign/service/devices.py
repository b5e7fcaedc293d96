"""Browsers the owner has signed in from, each with a sign-in budget of its own (DESIGN §5).

After a successful sign-in a browser not known yet gets a **device credential** in
two halves: a random cookie (host-only, HttpOnly, SameSite=Strict; ``__Host-`` over
TLS) and a random key returned in the sign-in answer, which the page keeps in
``localStorage`` and sends back in the next sign-in's body. Its wrong passwords
then count against its own budget, not the owner budget every other client
shares, so whoever exhausts that one cannot lock the owner's browsers out.

Both halves are needed: cookies reach every port of a name, so a program on another
port of ``sovereign.localhost`` can be sent the cookie, but no other origin can read
the page's storage. The cookie alone counts as an unknown browser.

Only a SHA-256 digest of the two halves is kept, with its expiry and the password
generation it was issued under: in memory, and in ``<data>/known-browsers.json``
(mode 0600, atomic, one writer at a time: :mod:`.settings_store`) so that a restart
forgets no browser. At most :data:`MAX_DEVICES` are kept (the oldest dropped
first), each for :data:`DEVICE_SECONDS`; a password change forgets them all. See
``docs/decisions/sign-in-throttle.md``.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sovereign.expiring import ExpiringMap

from .settings_store import SettingsFile, SettingsKind, SettingsUnreadable

logger = logging.getLogger(__name__)

DEVICE_COOKIE = "sovereign_device"
DEVICE_SECONDS = 30 * 24 * 3600.0
MAX_DEVICES = 32
MAX_KEY_CHARACTERS = 128
"""Longest device key a sign-in may carry (ours are 43 characters)."""


def device_cookie_name(scheme: str) -> str:
    """The device cookie's name over ``scheme`` (``__Host-`` prefixed over TLS)."""
    return f"__Host-{DEVICE_COOKIE}" if scheme == "https" else DEVICE_COOKIE


def _digest(cookie: str, key: str) -> str:
    joined = f"{cookie}\n{key}".encode("utf-8", "replace")
    return hashlib.sha256(joined).hexdigest()


@dataclass(frozen=True)
class DeviceRecord:
    """One known browser as stored: digest of its two halves, wall-clock expiry
    (seconds since the epoch) and the password generation it was issued under."""

    digest: str
    expires_at: float
    generation: str


def _parse_records(value: Any) -> tuple[DeviceRecord, ...]:
    entries = value.get("browsers") if isinstance(value, dict) else None
    if not isinstance(entries, list):
        raise ValueError('must hold {"browsers": [...]}.')
    records = []
    for entry in entries:
        try:
            digest, generation = str(entry["digest"]), str(entry["generation"])
            records.append(DeviceRecord(digest, float(entry["expires_at"]), generation))
        except (KeyError, TypeError, ValueError):
            raise ValueError("holds a browser record that is not complete.") from None
    return tuple(records)


KNOWN_BROWSERS_FILE = SettingsKind(
    relative_path="known-browsers.json",
    default=(),
    parse=_parse_records,
    dump=lambda records: {"browsers": [vars(r) for r in records]},
    log_prefix="known browsers forgotten",
    private=True,
)


class KnownDevices:
    """Remembers device credentials and names the budget of a presented one.

    Args:
        generation: the owner account's password generation; credentials handed out
            under another one are no longer recognised.
        data_dir: where ``known-browsers.json`` lives; ``None`` keeps them in memory only.
        clock: monotonic clock in seconds.
        wall_clock: seconds since the epoch (for the stored expiry, which must
            survive a restart).
        lifetime_seconds: how long a credential is recognised after it was handed out.
        max_devices: most credentials remembered; remembering past it forgets the oldest.
    """

    def __init__(
        self,
        generation: Callable[[], str],
        *,
        data_dir: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        lifetime_seconds: float = DEVICE_SECONDS,
        max_devices: int = MAX_DEVICES,
    ) -> None:
        self._generation, self._wall = generation, wall_clock
        self.lifetime_seconds = lifetime_seconds
        self._file = SettingsFile(data_dir, KNOWN_BROWSERS_FILE) if data_dir else None
        self._known: ExpiringMap[str, DeviceRecord] = ExpiringMap(
            ttl_seconds=lifetime_seconds, max_entries=max_devices, clock=clock
        )
        self._load()

    def remember(self) -> tuple[str, str]:
        """A new credential for the browser that just signed in: ``(cookie, key)``,
        256 random bits each. Stored as a digest; a failed write is logged (the
        browser is still known until the next restart)."""
        cookie, key = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        record = DeviceRecord(
            _digest(cookie, key), self._wall() + self.lifetime_seconds, self._generation()
        )
        self._known.put(record.digest, record)
        self._store()
        return cookie, key

    def budget(self, cookie: str | None, key: str | None) -> str | None:
        """``"device:<digest>"`` when both halves name a live credential, else ``None``."""
        if not cookie or not key:
            return None
        digest = _digest(cookie, key)
        record = self._known.get(digest)
        if record is None:
            return None
        if record.generation != self._generation():
            self._known.pop(digest)
            return None
        return f"device:{digest}"

    def _load(self) -> None:
        if self._file is None:
            return
        reading = self._file.read()
        now, generation = self._wall(), self._generation()
        for record in reading.value:
            left = min(record.expires_at - now, self.lifetime_seconds)
            if left > 0 and record.generation == generation:
                self._known.put(record.digest, record, ttl_seconds=left)

    def _store(self) -> None:
        if self._file is None:
            return
        live = tuple(record for _, record in self._known.items())
        try:
            self._file.replace(live)
        except (OSError, SettingsUnreadable) as exc:
            logger.warning("known browsers not stored: %s", exc)
