"""The approval cards this service has shown and nobody has answered yet, per session.

Activity lists them so a card whose tab was closed can still be answered or
withdrawn (issue: Activity). A card is remembered when a turn's answer carries a
``pending_confirmation`` and forgotten when its token is answered (or withdrawn) or
when it expires. Only the wire object the session already received is kept: the
token, the capability and the arguments shown on the card; nothing is written to disk.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


class OpenCards:
    """Open cards by token, each with its owner and the clock time it expires.

    Args:
        clock: monotonic seconds (the service's clock, so tests can expire cards).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._cards: dict[str, tuple[str, float, dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def remember(self, owner: str, wire: dict[str, Any]) -> None:
        """Keep the card of a turn's answer ``wire`` (nothing when it holds none)."""
        pending = wire.get("pending_confirmation")
        if not isinstance(pending, dict):
            return
        expires = self._clock() + float(pending.get("expires_in_seconds", 0))
        with self._lock:
            self._cards[str(pending["token"])] = (owner, expires, dict(pending))

    def forget(self, token: str) -> None:
        """The card was answered, withdrawn or refused: it no longer waits."""
        with self._lock:
            self._cards.pop(token, None)

    def of(self, owner: str) -> list[dict[str, Any]]:
        """``owner``'s cards still waiting, oldest first, each the ``pending_confirmation``
        wire object with ``expires_in_seconds`` counted down to now."""
        now = self._clock()
        with self._lock:
            for token in [t for t, (_, expires, _) in self._cards.items() if expires <= now]:
                del self._cards[token]
            mine = [(exp, card) for who, exp, card in self._cards.values() if who == owner]
        return [{**card, "expires_in_seconds": max(0, round(exp - now))} for exp, card in mine]
