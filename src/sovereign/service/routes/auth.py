"""console-auth routes: sign-in state, first-run setup, sign-in, sign-out.

``/state``, ``/setup`` and ``/login`` need no session (and so no CSRF token);
``/logout`` needs both, like every other ``/api/v1/`` route.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from ..bodies import ValidTextRoute
from ..devices import KnownDevices, device_cookie_name
from ..errors import ServiceError, storage_error
from ..owner import MAX_PASSWORD_LENGTH, PasswordRejected
from ..session_auth import cookie_value, session_of
from ..sessions import Session, cookie_name
from ..state import Services, services
from ..throttle import OWNER_BUDGET, SETUP_BUDGET, SignInThrottle

router = APIRouter(prefix="/api/v1/auth", tags=["console-auth"], route_class=ValidTextRoute)
Deps = Annotated[Services, Depends(services)]


class AuthState(BaseModel):
    """What a freshly loaded Console page needs to know."""

    setup_required: bool
    signed_in: bool
    csrf_token: str | None


class SignedIn(BaseModel):
    """The CSRF token to send back in ``X-CSRF-Token`` on every later request."""

    csrf_token: str


class SetupRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    setup_token: str = Field(min_length=1, max_length=256)
    password: str = Field(max_length=MAX_PASSWORD_LENGTH)


class LoginRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    password: str = Field(max_length=MAX_PASSWORD_LENGTH)


@router.get("/state")
async def auth_state(request: Request, deps: Deps) -> AuthState:
    """Whether setup is needed, whether this browser is signed in, and its CSRF token."""
    session = session_of(request.scope)
    return AuthState(
        setup_required=not deps.owner.is_set_up(),
        signed_in=session is not None,
        csrf_token=session.csrf_token if session else None,
    )


@router.post("/setup")
async def setup(body: SetupRequest, request: Request, response: Response, deps: Deps) -> SignedIn:
    """Set the first password with the one-time setup token, and sign in.

    Errors: 409 ALREADY_SET_UP, 403 INVALID_SETUP_TOKEN, 422 WEAK_PASSWORD,
    429 TOO_MANY_ATTEMPTS, 503 PASSWORD_NOT_SAVED (the data directory refused the write).
    """
    if deps.owner.is_set_up():
        raise ServiceError(409, "ALREADY_SET_UP", "A password is already set; sign in instead.")
    async with deps.password_lock:
        _check_throttle(deps.setup_throttle, SETUP_BUDGET)
        try:
            done = await asyncio.to_thread(
                deps.owner.complete_setup, body.setup_token, body.password
            )
        except PasswordRejected as exc:
            raise ServiceError(422, "WEAK_PASSWORD", str(exc)) from exc
        except OSError as exc:  # the setup link stays valid: try again once there is room
            what = "The password could not be saved"
            raise storage_error(exc, what, "PASSWORD_NOT_SAVED") from exc
    if not done:
        deps.setup_throttle.failed(SETUP_BUDGET)
        raise ServiceError(403, "INVALID_SETUP_TOKEN", "The setup link is not valid (any more).")
    deps.setup_throttle.succeeded(SETUP_BUDGET)
    return _sign_in(deps, request, response)


@router.post("/login")
async def login(body: LoginRequest, request: Request, response: Response, deps: Deps) -> SignedIn:
    """Sign in with the owner's password.

    Failures count against this browser's own budget when it signed in before
    (its device cookie), else against the owner budget every other client shares;
    never against an address (see :mod:`~sovereign.service.throttle`).

    Errors: 401 BAD_CREDENTIALS, 409 SETUP_REQUIRED, 429 TOO_MANY_ATTEMPTS
    (with ``Retry-After`` in seconds).
    """
    if not deps.owner.is_set_up():
        raise ServiceError(409, "SETUP_REQUIRED", "No password is set yet; use the setup link.")
    device = cookie_value(request.scope, device_cookie_name(request.url.scheme))
    budget = deps.devices.budget(device) or OWNER_BUDGET
    async with deps.password_lock:
        _check_throttle(deps.throttle, budget)
        valid = await asyncio.to_thread(deps.owner.verify, body.password)
    if not valid:
        deps.throttle.failed(budget)
        raise ServiceError(401, "BAD_CREDENTIALS", "That password is not right.")
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


def _check_throttle(throttle: SignInThrottle, budget: str) -> None:
    wait = throttle.retry_after(budget)
    if wait > 0:
        seconds = int(wait) + 1
        raise ServiceError(
            429,
            "TOO_MANY_ATTEMPTS",
            f"Too many failed attempts; try again in {seconds} seconds.",
            {"Retry-After": str(seconds)},
        )


def _sign_in(
    deps: Services, request: Request, response: Response, *, known_device: bool = False
) -> SignedIn:
    previous = session_of(request.scope)
    if previous is not None:
        deps.sessions.end(previous.id)
    session = deps.sessions.open()
    _set_cookie(response, session, scheme=request.url.scheme, deps=deps)
    if not known_device:
        _set_device_cookie(response, deps.devices, scheme=request.url.scheme)
    return SignedIn(csrf_token=session.csrf_token)


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


def _set_device_cookie(response: Response, devices: KnownDevices, *, scheme: str) -> None:
    """The browser's own sign-in budget from now on (:mod:`~sovereign.service.devices`)."""
    response.set_cookie(
        device_cookie_name(scheme),
        devices.remember(),
        max_age=int(devices.lifetime_seconds),
        path="/",
        secure=scheme == "https",
        httponly=True,
        samesite="strict",
    )
