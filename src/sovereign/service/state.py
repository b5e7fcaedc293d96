"""The objects one running service shares between requests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request

from sovereign.executor import Registry

from .devices import KnownDevices
from .open_cards import OpenCards
from .owner import OwnerAccount
from .policy import PolicyStore
from .retained import RetainedAnswers
from .sessions import SessionStore
from .settings import Settings
from .throttle import SignInThrottle
from .turn_control import RunningTurns


@dataclass
class Services:
    """Everything the routes need, built once by ``create_app``.

    Attributes:
        turn_policy: returns the per-request policy mapping, read fresh each call
            (web search from the policy file, Home Assistant's key from its own file).
        turns: the conversation's turn loop (``TurnLoop``).
        backend: the model backend behind it (closed at shutdown when it can be).
        registry: the capabilities the turn loop runs (closed at shutdown: what they
            hold, such as Pi-hole's API session, is released).
    """

    settings: Settings
    owner: OwnerAccount
    sessions: SessionStore
    throttle: SignInThrottle
    """Failures of the owner's password: the owner budget and each known device's."""
    setup_throttle: SignInThrottle
    """Failures of the setup token (one budget)."""
    devices: KnownDevices
    policy: PolicyStore
    turn_policy: Callable[[], Mapping[str, bool]]
    turns: Any
    backend: Any
    registry: Registry
    household: Any = None
    """The household-identifier check's sources (``HouseholdSources``): private words and
    the automatic ones, for the settings routes."""
    answers: RetainedAnswers = field(default_factory=RetainedAnswers)
    """Outcomes of answered confirmations, kept for their session (dropped connections)."""
    open_cards: OpenCards = field(default_factory=OpenCards)
    """The approval cards shown and not yet answered, for Activity."""
    running: RunningTurns = field(default_factory=RunningTurns)
    """The streamed turns running now, which their session may stop."""
    password_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held while argon2 runs (64 MiB per hash): one hash at a time, and the
    throttle is checked under it so parallel guesses cannot slip past."""


def services(request: Request) -> Services:
    """FastAPI dependency: the app's :class:`Services`."""
    return request.app.state.services
