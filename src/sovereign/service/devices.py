"""Browsers the owner has signed in from, each with a sign-in budget of its own (DESIGN §5).

After a successful sign-in the browser gets a second cookie, a random device token
(host-only, HttpOnly, SameSite=Strict; ``__Host-`` over TLS). When it signs in
again, its wrong passwords count against its own budget, not the owner budget
every other client shares, so whoever exhausts that one cannot lock the owner's
browsers out. Only a digest of each token is kept, in memory, for 30 days; a
restart or a password change forgets every device. See
``docs/decisions/sign-in-throttle.md``.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

DEVICE_COOKIE = "sovereign_device"
DEVICE_SECONDS = 30 * 24 * 3600.0
MAX_DEVICES = 32


def device_cookie_name(scheme: str) -> str:
    """The device cookie's name over ``scheme`` (``__Host-`` prefixed over TLS)."""
    return f"__Host-{DEVICE_COOKIE}" if scheme == "https" else DEVICE_COOKIE


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


class KnownDevices:
    """Remembers device tokens and names the budget of a presented one.

    Args:
        generation: the owner account's password generation; tokens handed out
            under another one are no longer recognised.
        clock: monotonic clock in seconds.
        lifetime_seconds: how long a token is recognised after it was handed out.
        max_devices: most tokens remembered; remembering past it forgets the oldest.
    """

    def __init__(
        self,
        generation: Callable[[], str],
        *,
        clock: Callable[[], float] = time.monotonic,
        lifetime_seconds: float = DEVICE_SECONDS,
        max_devices: int = MAX_DEVICES,
    ) -> None:
        self._generation, self._clock = generation, clock
        self.lifetime_seconds = lifetime_seconds
        self._max = max_devices
        self._lock = threading.Lock()
        self._devices: OrderedDict[str, tuple[float, str]] = OrderedDict()

    def remember(self) -> str:
        """A new device token (256 random bits) for the browser that just signed in."""
        token = secrets.token_urlsafe(32)
        with self._lock:
            self._devices[_digest(token)] = (self._clock(), self._generation())
            while len(self._devices) > self._max:
                self._devices.popitem(last=False)
        return token

    def budget(self, token: str | None) -> str | None:
        """``"device:<digest>"`` for a live token, ``None`` for a missing or unknown one."""
        if not token:
            return None
        digest = _digest(token)
        with self._lock:
            entry = self._devices.get(digest)
            if entry is None:
                return None
            issued, generation = entry
            if self._clock() - issued >= self.lifetime_seconds or generation != self._generation():
                del self._devices[digest]
                return None
        return f"device:{digest}"
