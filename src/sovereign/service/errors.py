"""The one error envelope every failure leaves the service in (DESIGN §4).

``{"error": {"code": "UPPER_SNAKE", "message": "human sentence"}}``. Routes raise
:class:`ServiceError`; middleware answers with :func:`error_response`; the
handlers installed by :func:`install_error_handlers` turn everything else
(validation failures, unknown routes, wrong methods, refused writes, bugs) into
the same shape, so bad input never falls through to a bare 500 and a full or
read-only data filesystem is a 503 that says so.

The boundary's refusals of a request's shape (not JSON, not an object, a field
missing, unknown or of the wrong type, text over its limit, a body too large or
repeating a key, no such address or method, no session, no tab secret) are said in
the language the request asks for (``Accept-Language``, negotiated as sign-in's
words are: :func:`boundary_voice`), whether or not it is signed in; the code never
changes. docs/decisions/household-language.md says why.
"""

from __future__ import annotations

import logging
from typing import Any

from babel.lists import format_list
from babel.numbers import format_decimal
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Scope

from sovereign.conversation.voice.catalogs import Voice
from sovereign.executor.audit_file import storage_problem

from .bodies import ValidJSONResponse as JSONResponse
from .console_words import CATALOG, DOMAIN, browser_language

logger = logging.getLogger(__name__)

_STATUS_CODES = {
    400: "BAD_REQUEST",
    401: "NOT_SIGNED_IN",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    413: "REQUEST_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
}

_HTTP_SENTENCES = {
    404: ("request_not_found", "There is nothing at this address."),
    405: ("request_method", "This address does not accept that method."),
}
NOT_ACCEPTED = ("not_accepted", "The request was not accepted.")

MALFORMED_JSON = ("request_malformed_json", "The request body is not valid JSON.")
NOT_AN_OBJECT = (
    "request_not_an_object",
    "The request body must be a JSON object (Content-Type: application/json).",
)
TOO_LONG = (
    "request_too_long",
    "{what} is {length} characters long; at most {limit} are accepted. Nothing was cut or "
    "sent: shorten it and send it again.",
)
_WHAT = {
    "message": ("request_what_message", "Your message"),
    "confirmation.reason": ("request_what_reason", "The reason"),
}
"""What a too-long field is called in the sentence (others by their path)."""
WHAT_FIELD = ("request_what_field", "The field {where}")
FIELD_SENTENCES = {
    "missing": ("request_missing", "{where}: this field is required."),
    "extra_forbidden": ("request_extra", "{where}: this field is not accepted here."),
    "string_type": ("request_string_type", "{where}: must be text."),
    "int_type": ("request_int_type", "{where}: must be a whole number."),
    "bool_type": ("request_bool_type", "{where}: must be true or false."),
    "list_type": ("request_list_type", "{where}: must be a list."),
    "dict_type": ("request_object_type", "{where}: must be an object."),
    "model_type": ("request_object_type", "{where}: must be an object."),
    "model_attributes_type": ("request_object_type", "{where}: must be an object."),
    "literal_error": ("request_literal", "{where}: must be {expected}."),
    "too_long": ("request_too_many", "{where}: at most {max_length} items are accepted."),
    "string_too_short": (
        "request_too_short", "{where}: must have at least {min_length} characters."
    ),
}
"""Sentences for the failures of a field, by pydantic's error type; any other keeps
pydantic's English sentence after the field's path."""
TOO_LARGE = ("request_too_large", "The request body is larger than {limit} bytes.")
REPEATED_KEY = (
    "request_repeated_key", "The request body repeats the key {key}; send each key once."
)
AMBIGUOUS_LENGTH = (
    "request_ambiguous_length",
    "The request gives both Content-Length and Transfer-Encoding; send one.",
)
NO_SESSION = ("request_not_signed_in", "Sign in to the Console first.")
NO_TAB_SECRET = ("request_csrf", "The {header} header is missing or wrong.")
OTHER_HOST = (
    "request_other_host",
    "This service answers only at its own address, such as {console_url}; the request "
    "named another host.",
)
OTHER_ORIGIN = (
    "request_other_origin",
    "This request came from another site or page, and only the Console itself may make it.",
)
SENTENCES = [
    *_HTTP_SENTENCES.values(), NOT_ACCEPTED, MALFORMED_JSON, NOT_AN_OBJECT, TOO_LONG,
    *_WHAT.values(), WHAT_FIELD, *FIELD_SENTENCES.values(), TOO_LARGE, REPEATED_KEY,
    AMBIGUOUS_LENGTH, NO_SESSION, NO_TAB_SECRET, OTHER_HOST, OTHER_ORIGIN,
]  # fmt: skip
"""Every sentence of this module's own, as (catalog key, English)."""


def boundary_voice(scope: Scope) -> Voice:
    """The ``console`` catalog in the language the request asks for: its
    ``Accept-Language``, negotiated against the product's (English without one)."""
    header = None
    for name, value in scope.get("headers", ()):
        if name == b"accept-language":
            header = value.decode("latin-1")
            break
    return Voice(browser_language(header), CATALOG, DOMAIN)


_NOT_AN_OBJECT = frozenset({"model_attributes_type", "dict_type", "missing"})
"""Validation error types meaning the body as a whole was not a JSON object."""


class ServiceError(Exception):
    """A failure with an HTTP status, a machine code and one human sentence.

    Args:
        status: HTTP status (4xx for the caller's mistakes, 5xx for ours or a backend's).
        code: UPPER_SNAKE code, e.g. ``INVALID_CONFIRMATION``.
        message: one sentence for a person; never secrets.
        headers: extra response headers (e.g. ``Retry-After``).
        extra: further top-level members of the body beside ``error`` (a failed
            turn's ``citations``, ``receipts`` and ``receipt``); never an ``error`` key.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        headers: dict[str, str] | None = None,
        *,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers = headers or {}
        self.extra = {key: value for key, value in (extra or {}).items() if key != "error"}

    def body(self) -> dict[str, Any]:
        """The response body: the envelope, plus :attr:`extra`."""
        return {**envelope(self.code, self.message), **self.extra}


def storage_error(
    exc: OSError,
    what: str = "The device could not save its data",
    code: str = "STORAGE_UNAVAILABLE",
) -> ServiceError:
    """A 503 for a write the data directory refused, with the reason and the way out.

    Args:
        exc: the refused write (ENOSPC, EROFS, EACCES, EIO, ...).
        what: the sentence's start, saying what was not saved.
        code: the machine code (e.g. ``POLICY_NOT_SAVED``).
    """
    return ServiceError(
        503,
        code,
        f"{what}: {storage_problem(exc)}. Free space on the device's data filesystem or fix "
        "its permissions (sovereign doctor checks it), then try again.",
    )


def envelope(code: str, message: str) -> dict[str, Any]:
    """``{"error": {"code": code, "message": message}}``."""
    return {"error": {"code": code, "message": message}}


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    """A JSON response holding the envelope; also usable as an ASGI app by middleware."""
    return JSONResponse(envelope(code, message), status_code=status, headers=headers)


def describe_validation_error(
    exc: RequestValidationError, voice: Voice | None = None
) -> tuple[str, str]:
    """``(code, sentence)`` for a request body or query that failed validation, the
    sentence said by ``voice`` (English by default)."""
    voice = voice or Voice("en", CATALOG, DOMAIN)
    errors = exc.errors()
    first = errors[0] if errors else {}
    kind = first.get("type")
    if kind == "json_invalid":
        return "MALFORMED_JSON", voice.say(*MALFORMED_JSON)
    if tuple(first.get("loc", ())) == ("body",) and kind in _NOT_AN_OBJECT:
        return "INVALID_REQUEST", voice.say(*NOT_AN_OBJECT)
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body") or "body"
    ctx = first.get("ctx") or {}
    if kind == "string_too_long" and isinstance(first.get("input"), str):
        return "TOO_LONG", _too_long(where, len(first["input"]), ctx, voice)
    if kind in FIELD_SENTENCES:
        return "INVALID_REQUEST", _field_sentence(voice, kind, where, ctx)
    message = str(first.get("msg", "is invalid")).removeprefix("Value error, ")
    return "INVALID_REQUEST", f"{where}: {message}"


def _field_sentence(voice: Voice, kind: str, where: str, ctx: dict[str, Any]) -> str:
    values: dict[str, object] = {"where": where}
    for name in ("max_length", "min_length"):
        if name in ctx:
            values[name] = format_decimal(int(ctx[name]), locale=voice.language)
    if kind == "literal_error":
        values["expected"] = _choice(str(ctx.get("expected", "")), voice.language)
    return voice.say(*FIELD_SENTENCES[kind], **values)


def _choice(expected: str, language: str) -> str:
    """pydantic's ``'a', 'b' or 'c'`` written with ``language``'s "or" (CLDR)."""
    head, _, last = expected.rpartition(" or ")
    items = [*head.split(", "), last] if head else [last]
    return format_list(items, style="or", locale=language) if language != "en" else expected


def _too_long(where: str, length: int, ctx: dict[str, Any], voice: Voice) -> str:
    """The sentence for text over its limit: its length, the limit, and that nothing was cut."""
    limit = int(ctx.get("max_length", 0))
    what = voice.say(*_WHAT[where]) if where in _WHAT else voice.say(*WHAT_FIELD, where=where)
    return voice.say(
        *TOO_LONG,
        what=what,
        length=format_decimal(length, locale=voice.language),
        limit=format_decimal(limit, locale=voice.language),
    )


async def _service_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ServiceError)
    return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    code, message = describe_validation_error(exc, boundary_voice(request.scope))
    status = 400 if code == "MALFORMED_JSON" else 422
    return error_response(status, code, message)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _STATUS_CODES.get(exc.status_code, "HTTP_ERROR")
    said = _HTTP_SENTENCES.get(exc.status_code, NOT_ACCEPTED)
    message = boundary_voice(request.scope).say(*said)
    return error_response(exc.status_code, code, message, dict(exc.headers or {}))


async def _storage_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, OSError)
    logger.error("storage failure on %s %s: %s", request.method, request.url.path, exc)
    error = storage_error(exc)
    return error_response(error.status, error.code, error.message)


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    logger.exception("unhandled error on %s %s", request.method, request.url.path)
    return error_response(500, "INTERNAL_ERROR", "Something went wrong inside the service.")


def install_error_handlers(app: FastAPI) -> None:
    """Route every exception type through the envelope (one lookup by class, like Starlette)."""
    app.add_exception_handler(ServiceError, _service_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(OSError, _storage_error)  # a refused write is a 503, never a 500
    app.add_exception_handler(Exception, _unexpected)
