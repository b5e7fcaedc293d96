"""``create_app(settings)``: the Conversation Service as one ASGI app (DESIGN §1, §4).

Layers, outside in (DESIGN §5): security headers on every response → Host and
Origin pinning (421/403, before anything else looks at the request) →
one framing per body (400) → request-size limit → session lookup (401 on guarded
paths) → CSRF check (403) → one meaning per JSON body (400: a repeated key) →
routes. One set of exception handlers turns every error into
``{"error": {"code", "message"}}``.
The Console's static files, when present, are served at ``/``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from datetime import date
from pathlib import Path

from argon2 import PasswordHasher
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from sovereign import __version__
from sovereign.conversation import PendingTurnStore, TurnLoop
from sovereign.conversation.backends.base import ModelBackend
from sovereign.executor import AuditLog, ConfirmationStore, Executor, Registry

from .api_docs import add_api_docs
from .atomic import remove_orphans
from .bodies import ValidJSONResponse
from .body_limit import BodyLimitMiddleware
from .csrf import CSRFMiddleware
from .devices import KnownDevices
from .errors import install_error_handlers
from .host_pinning import HostOriginMiddleware
from .household_settings import HouseholdSettingsStore
from .household_sources import HouseholdSources
from .open_cards import OpenCards
from .owner import OwnerAccount
from .policy import PolicyStore
from .retained import RetainedAnswers
from .routes import (
    auth,
    conversation,
    egress_settings,
    household_settings,
    operations,
    policy,
    private_words,
)
from .security_headers import SecurityHeadersMiddleware
from .session_auth import SessionAuthMiddleware
from .sessions import SessionStore
from .settings import Settings
from .state import Services
from .strict_body import DuplicateKeyMiddleware, FramingMiddleware
from .throttle import SETUP_MAX_SECONDS, SignInThrottle
from .turn_control import StoppableBackend
from .wiring import build_registry, make_backend, policy_reader

logger = logging.getLogger(__name__)

CONSOLE_DIR = Path(__file__).resolve().parent.parent / "console"


def create_app(
    settings: Settings,
    *,
    backend: ModelBackend | None = None,
    clock: Callable[[], float] = time.monotonic,
    registry: Registry | None = None,
    password_hasher: PasswordHasher | None = None,
    console_dir: Path = CONSOLE_DIR,
    household: HouseholdSources | None = None,
) -> FastAPI:
    """Build the service.

    Args:
        settings: data directory, backend choice and the rest (see :class:`Settings`).
        backend: a model backend to use instead of the one ``settings`` names
            (tests pass a ``ScriptedBackend``).
        clock: monotonic clock in seconds for sessions, throttling, confirmation
            tokens and pending turns (tests pass a fake one to expire things).
        registry: capabilities to use instead of every family (tests).
        password_hasher: argon2 parameters (tests pass cheap ones).
        console_dir: the Console's static files, served at ``/`` when the directory exists.
        household: the household-identifier check's sources (tests point them at
            their own device files); default: this device's.

    Returns:
        A FastAPI app; ``app.state.services`` holds the shared objects and
        ``app.state.services.owner.setup_token()`` the first-run token.
    """
    household = household or HouseholdSources(settings.data_dir)
    services = _build_services(settings, backend, clock, registry, password_hasher, household)
    app = _ServiceApp(
        title="Sovereign Conversation Service",
        version=__version__,
        docs_url=None,  # served below from local assets: no page loads anything off-device
        redoc_url=None,
        openapi_url="/api/openapi.json",
        lifespan=_lifespan,
        default_response_class=ValidJSONResponse,
    )
    app.state.services = services
    install_error_handlers(app)
    routers = (operations, auth, conversation, policy, private_words, egress_settings,
               household_settings)
    for module in routers:
        app.include_router(module.router)
    add_api_docs(app)
    if console_dir.is_dir():
        # the fallback, not a mount at "/": a wrong method on an API route stays a 405
        app.router.default = StaticFiles(directory=console_dir, html=True)
    app.add_middleware(DuplicateKeyMiddleware)
    app.add_middleware(CSRFMiddleware)
    app.add_middleware(SessionAuthMiddleware, sessions=services.sessions)
    app.add_middleware(BodyLimitMiddleware)
    app.add_middleware(FramingMiddleware)
    app.add_middleware(
        HostOriginMiddleware, pins=settings.host_pins, console_url=settings.console_url()
    )
    return app


class _ServiceApp(FastAPI):
    """FastAPI with the security headers outside even its own error layer, so that a
    500 answer carries them too."""

    def build_middleware_stack(self):  # type: ignore[no-untyped-def]
        return SecurityHeadersMiddleware(super().build_middleware_stack())


def _build_services(
    settings: Settings,
    backend: ModelBackend | None,
    clock: Callable[[], float],
    registry: Registry | None,
    password_hasher: PasswordHasher | None,
    household: HouseholdSources,
) -> Services:
    owner = OwnerAccount(settings.data_dir, password_hasher)
    store = PolicyStore(settings.data_dir)
    backend = backend or make_backend(settings)
    audit = start_up_storage(settings)
    if registry is None:
        registry = build_registry(
            settings, on_home_assistant_names=household.entity_names.remember
        )
    turns = build_turn_loop(
        settings,
        backend=StoppableBackend(backend),  # a streamed turn's Stop cuts its model requests
        clock=clock,
        registry=registry,
        audit=audit,
        household=household,
    )
    return Services(
        settings=settings,
        owner=owner,
        sessions=SessionStore(owner.generation, clock=clock),
        throttle=SignInThrottle(clock=clock),
        setup_throttle=SignInThrottle(clock=clock, max_seconds=SETUP_MAX_SECONDS),
        devices=KnownDevices(owner.generation, data_dir=settings.data_dir, clock=clock),
        policy=store,
        turn_policy=policy_reader(settings, store),
        turns=turns,
        backend=backend,
        registry=registry,
        answers=RetainedAnswers(clock=clock),
        household=household,
        open_cards=OpenCards(clock=clock),
    )


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """On shutdown, release what the capabilities hold (Pi-hole's API session is logged
    out: :meth:`Registry.close`) and free the model backend (the embedded model and its
    worker thread)."""
    yield
    services = app.state.services
    await services.registry.close()
    close = getattr(services.backend, "close", None)
    if callable(close):
        await asyncio.to_thread(close)


def start_up_storage(settings: Settings) -> AuditLog:
    """At service start: remove temp files killed writes left behind, set a torn
    audit line aside and close the approvals a restart left unanswered (as
    ``expired``). Problems are logged; the service starts anyway, and a call
    whose audit record cannot be written is refused when it is proposed.

    Returns:
        The service's audit log.
    """
    for directory in (settings.data_dir, settings.data_dir / "capabilities"):
        for path in remove_orphans(directory):
            logger.info("removed %s, left by an interrupted write", path)
    audit = AuditLog(settings.data_dir)
    audit.prepare(close_open_asks=True)
    return audit


def build_turn_loop(
    settings: Settings,
    *,
    backend: ModelBackend | None = None,
    clock: Callable[[], float] = time.monotonic,
    registry: Registry | None = None,
    audit: AuditLog | None = None,
    household: HouseholdSources | None = None,
    today: Callable[[], date] = date.today,
    model_chooses_passages: bool | None = None,
) -> TurnLoop:
    """The turn loop over every capability family, audited into ``settings.data_dir``.

    Used by the service and by ``sovereign chat``. Arguments as for
    :func:`create_app`; ``audit`` defaults to a log in ``settings.data_dir``;
    ``household`` are the sources of the household-identifier check run on every
    card (default: this device's, for ``settings.data_dir``). The household's language
    (:mod:`.household_settings`) is read from ``settings.data_dir`` for every turn;
    ``today`` is the household's date (default: this device's).
    ``model_chooses_passages`` (default: no for the verified default model that
    ``settings`` load, :func:`default_model`; yes for any other model, and for an
    injected ``backend``) says who chooses the passage a web answer quotes.
    """
    household = household or HouseholdSources(settings.data_dir)
    confirmations = ConfirmationStore(clock=clock)
    if registry is None:
        registry = build_registry(settings, on_home_assistant_names=household.entity_names.remember)
    executor = Executor(
        registry,
        confirmations=confirmations,
        audit=audit if audit is not None else AuditLog(settings.data_dir),
        flag_check=household.flag_check,
    )
    pending = PendingTurnStore(
        ttl_seconds=confirmations.ttl_seconds, clock=clock, on_forget=confirmations.discard
    )
    if model_chooses_passages is None:
        model_chooses_passages = backend is not None or not default_model(settings)
    return TurnLoop(
        executor,
        backend or make_backend(settings),
        pending=pending,
        household_language=HouseholdSettingsStore(settings.data_dir).language,
        today=today,
        model_chooses_passages=model_chooses_passages,
    )


def default_model(settings: Settings) -> bool:
    """Whether ``settings`` run the embedded backend on its verified default model.

    That model chose the first of the passages it was shown in a list after a web
    result in every measured answer, so a loop over it does not list them: it judges
    each alone and quotes the one judged likeliest to answer
    (:class:`~sovereign.conversation.TurnLoop`, ``model_chooses_passages``);
    a model of the household's own (``model_path``, an OpenAI-compatible server)
    keeps the choice.
    """
    return settings.backend == "embedded" and settings.model_path is None
