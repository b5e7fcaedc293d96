"""console-auth routes: sign-in state, first-run setup, sign-in, sign-out.

``/state``, ``/words``, ``/setup`` and ``/login`` need no session (and so no CSRF token);
``/logout`` needs both, like every other ``/api/v1/`` route. The tab secret sent
back in ``X-CSRF-Token`` is returned by ``/setup`` and ``/login`` only: a request
carrying nothing but the cookies learns no secret and can change nothing
(docs/decisions/cookie-is-not-a-session.md).
"""

from __future__ import annotations

import asyncio
import math
from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from sovereign.conversation.voice.catalogs import Voice

from ..bodies import ValidTextRoute
from ..console_words import before_sign_in, browser_language
from ..csrf import tab_secret
from ..devices import MAX_KEY_CHARACTERS, KnownDevices, device_cookie_name
from ..errors import ServiceError, boundary_voice, storage_error
from ..owner import MAX_PASSWORD_LENGTH, PasswordRejected
from ..session_auth import cookie_value, session_of
from ..sessions import Session, cookie_name
from ..state import Services, services
from ..throttle import OWNER_BUDGET, SETUP_BUDGET, SignInThrottle

router = APIRouter(prefix="/api/v1/auth", tags=["console-auth"], route_class=ValidTextRoute)
Deps = Annotated[Services, Depends(services)]


class AuthState(BaseModel):
    """What a freshly loaded Console page needs to know. ``signed_in`` is true only
    when the request carries both the session cookie and one of its tab secrets."""

    setup_required: bool
    signed_in: bool


class SignedIn(BaseModel):
    """What a page keeps after signing in.

    ``csrf_token``: this tab's secret, sent back in ``X-CSRF-Token`` on every later
    request (kept in ``sessionStorage``). ``device_key``: when this browser was not
    known yet, the page's half of its sign-in budget (kept in ``localStorage`` and
    sent with the next sign-in); ``null`` otherwise.
    """

    csrf_token: str
    device_key: str | None = None


class SetupRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    setup_token: str = Field(min_length=1, max_length=256)
    password: str = Field(max_length=MAX_PASSWORD_LENGTH)


class LoginRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    password: str = Field(max_length=MAX_PASSWORD_LENGTH)
    device_key: str | None = Field(default=None, max_length=MAX_KEY_CHARACTERS)


@router.get("/state")
async def auth_state(request: Request, deps: Deps) -> AuthState:
    """Whether setup is needed, and whether this tab is signed in (cookie and tab
    secret both valid). Never returns a secret."""
    session = session_of(request.scope)
    signed_in = session is not None and session.tab_matches(tab_secret(request.scope))
    return AuthState(setup_required=not deps.owner.is_set_up(), signed_in=signed_in)


@router.get("/words")
async def sign_in_words(request: Request, response: Response) -> dict[str, object]:
    """The words of the sign-in and setup pages in the browser's language (its
    ``Accept-Language``, negotiated against the product's languages; else English).

    Before a session the household's setting is not read, so a stranger learns nothing
    of it here. Answers ``{"language", "console": {key: word}, "run_time": {key: word}}``
    (:func:`sovereign.service.console_words.before_sign_in`).
    """
    response.headers["Vary"] = "Accept-Language"
    return before_sign_in(browser_language(request.headers.get("accept-language")))


ALREADY_SET_UP = ("signin_already_set_up", "A password is already set; sign in instead.")
SETUP_LINK = ("signin_setup_link_invalid", "The setup link is not valid (any more).")
SETUP_REQUIRED = ("signin_setup_required", "No password is set yet; use the setup link.")
"""Sign-in's refusals before a session, as (catalog key, English): said in the
browser's language (:func:`browser_voice`)."""


@router.post("/setup")
async def setup(body: SetupRequest, request: Request, response: Response, deps: Deps) -> SignedIn:
    """Set the first password with the one-time setup token, and sign in.

    Errors: 409 ALREADY_SET_UP, 403 INVALID_SETUP_TOKEN, 422 WEAK_PASSWORD (its rule said
    in the browser's language), 429 TOO_MANY_ATTEMPTS, 503 PASSWORD_NOT_SAVED (the data
    directory refused the write).
    """
    if deps.owner.is_set_up():
        raise ServiceError(409, "ALREADY_SET_UP", browser_voice(request).say(*ALREADY_SET_UP))
    async with deps.password_lock:
        _check_throttle(deps.setup_throttle, SETUP_BUDGET, browser_voice(request))
        try:
            done = await asyncio.to_thread(
                deps.owner.complete_setup, body.setup_token, body.password
            )
        except PasswordRejected as exc:
            sentence = browser_voice(request).say(exc.key, exc.english, count=exc.count)
            raise ServiceError(422, "WEAK_PASSWORD", sentence) from exc
        except OSError as exc:  # the setup link stays valid: try again once there is room
            what = "The password could not be saved"
            raise storage_error(exc, what, "PASSWORD_NOT_SAVED") from exc
    if not done:
        deps.setup_throttle.failed(SETUP_BUDGET)
        raise ServiceError(403, "INVALID_SETUP_TOKEN", browser_voice(request).say(*SETUP_LINK))
    deps.setup_throttle.succeeded(SETUP_BUDGET)
    return _sign_in(deps, request, response)


@router.post("/login")
async def login(body: LoginRequest, request: Request, response: Response, deps: Deps) -> SignedIn:
    """Sign in with the owner's password.

    Failures count against this browser's own budget when it signed in before
    (its device cookie *and* the ``device_key`` its page kept), else against the
    owner budget every other client shares; never against an address (see
    :mod:`~sovereign.service.throttle`).

    Errors: 401 BAD_CREDENTIALS, 409 SETUP_REQUIRED, 429 TOO_MANY_ATTEMPTS
    (with ``Retry-After`` in seconds). A wrong password's sentence says how many
    wrong tries are left before sign-in pauses, or how long the pause it started
    lasts, in the browser's language (``Accept-Language``; English without one); the body
    also carries ``tries_left`` and ``retry_after_seconds``.
    """
    if not deps.owner.is_set_up():
        raise ServiceError(409, "SETUP_REQUIRED", browser_voice(request).say(*SETUP_REQUIRED))
    device = cookie_value(request.scope, device_cookie_name(request.url.scheme))
    budget = deps.devices.budget(device, body.device_key) or OWNER_BUDGET
    async with deps.password_lock:
        _check_throttle(deps.throttle, budget, browser_voice(request))
        valid = await asyncio.to_thread(deps.owner.verify, body.password)
    if not valid:
        pause = deps.throttle.failed(budget)
        raise wrong_password(pause, deps.throttle.tries_left(budget), browser_voice(request))
    deps.throttle.succeeded(budget)
    return _sign_in(deps, request, response, known_device=budget != OWNER_BUDGET)


@router.post("/logout", status_code=204)
async def logout(request: Request, deps: Deps) -> Response:
    """End this session on the server and clear its cookie."""
    session = session_of(request.scope)
    if session is not None:
        deps.sessions.end(session.id)
    response = Response(status_code=204)
    secure = request.url.scheme == "https"
    response.delete_cookie(
        cookie_name(request.url.scheme), path="/", secure=secure, httponly=True, samesite="strict"
    )
    return response


def browser_voice(request: Request) -> Voice:
    """The Console's catalog in the browser's language: sign-in comes before a session,
    so its sentences follow ``Accept-Language``, never the household's setting."""
    return boundary_voice(request.scope)


def wrong_password(pause: float, tries_left: int, voice: Voice) -> ServiceError:
    """``401 BAD_CREDENTIALS`` saying what comes next: the wrong tries left before sign-in
    pauses, or the pause this failure started (``pause`` seconds), said by ``voice``."""
    if pause > 0:
        seconds = math.ceil(pause)
        sentence = voice.say_count(
            "signin_wrong_paused",
            "That password is not right; sign-in is paused for {n} second.",
            "That password is not right; sign-in is paused for {n} seconds.",
            seconds,
            n=seconds,
        )
    elif tries_left == 0:
        seconds = 0
        sentence = voice.say(
            "signin_wrong_last",
            "That password is not right; the next wrong password pauses sign-in.",
        )
    else:
        seconds = 0
        sentence = voice.say_count(
            "signin_wrong_tries",
            "That password is not right; {n} more wrong try before sign-in pauses.",
            "That password is not right; {n} more wrong tries before sign-in pauses.",
            tries_left,
            n=tries_left,
        )
    extra = {"tries_left": tries_left, "retry_after_seconds": seconds}
    headers = {"Retry-After": str(seconds)} if seconds else None
    return ServiceError(401, "BAD_CREDENTIALS", sentence, headers, extra=extra)


def _check_throttle(throttle: SignInThrottle, budget: str, voice: Voice) -> None:
    wait = throttle.retry_after(budget)
    if wait > 0:
        seconds = math.ceil(wait)
        raise ServiceError(
            429,
            "TOO_MANY_ATTEMPTS",
            voice.say_count(
                "signin_paused",
                "Sign-in is paused after several wrong passwords; try again in {n} second.",
                "Sign-in is paused after several wrong passwords; try again in {n} seconds.",
                seconds,
                n=seconds,
            ),
            {"Retry-After": str(seconds)},
            extra={"retry_after_seconds": seconds},
        )


def _sign_in(
    deps: Services, request: Request, response: Response, *, known_device: bool = False
) -> SignedIn:
    """A new tab secret: in the browser's live session when it has one (its other
    tabs stay signed in; its cookie is renewed), else in a new session."""
    session = session_of(request.scope)
    if session is None:
        session, tab = deps.sessions.open()
    else:
        session = deps.sessions.renew(session)
        tab = deps.sessions.add_tab(session)
    _set_cookie(response, session, scheme=request.url.scheme, deps=deps)
    device_key = None
    if not known_device:
        device_key = _set_device_cookie(response, deps.devices, scheme=request.url.scheme)
    return SignedIn(csrf_token=tab, device_key=device_key)


def _set_cookie(response: Response, session: Session, *, scheme: str, deps: Services) -> None:
    """Host-only (no ``Domain``): only this exact name gets it, never a sibling service."""
    response.set_cookie(
        cookie_name(scheme),
        session.id,
        max_age=int(deps.sessions.absolute_seconds),
        path="/",
        secure=scheme == "https",
        httponly=True,
        samesite="strict",
    )


def _set_device_cookie(response: Response, devices: KnownDevices, *, scheme: str) -> str:
    """The browser's own sign-in budget from now on (:mod:`~sovereign.service.devices`):
    sets the cookie half and returns the page's half."""
    cookie, key = devices.remember()
    response.set_cookie(
        device_cookie_name(scheme),
        cookie,
        max_age=int(devices.lifetime_seconds),
        path="/",
        secure=scheme == "https",
        httponly=True,
        samesite="strict",
    )
    return key
