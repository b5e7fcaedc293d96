"""The one error envelope every failure leaves the service in (DESIGN §4).

``{"error": {"code": "UPPER_SNAKE", "message": "human sentence"}}``. Routes raise
:class:`ServiceError`; middleware answers with :func:`error_response`; the
handlers installed by :func:`install_error_handlers` turn everything else
(validation failures, unknown routes, wrong methods, refused writes, bugs) into
the same shape, so bad input never falls through to a bare 500 and a full or
read-only data filesystem is a 503 that says so.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from sovereign.executor.audit_file import storage_problem

from .bodies import ValidJSONResponse as JSONResponse

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
    404: "There is nothing at this address.",
    405: "This address does not accept that method.",
}


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


def describe_validation_error(exc: RequestValidationError) -> tuple[str, str]:
    """``(code, sentence)`` for a request body or query that failed validation."""
    errors = exc.errors()
    first = errors[0] if errors else {}
    if first.get("type") == "json_invalid":
        return "MALFORMED_JSON", "The request body is not valid JSON."
    if tuple(first.get("loc", ())) == ("body",) and first.get("type") in _NOT_AN_OBJECT:
        return "INVALID_REQUEST", (
            "The request body must be a JSON object (Content-Type: application/json)."
        )
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body") or "body"
    if first.get("type") == "string_too_long" and isinstance(first.get("input"), str):
        return "TOO_LONG", _too_long(where, len(first["input"]), first.get("ctx", {}))
    message = str(first.get("msg", "is invalid")).removeprefix("Value error, ")
    return "INVALID_REQUEST", f"{where}: {message}"


_WHAT = {"message": "Your message", "confirmation.reason": "The reason"}
"""What a too-long field is called in the sentence (others by their path)."""


def _too_long(where: str, length: int, ctx: dict[str, Any]) -> str:
    """The sentence for text over its limit: its length, the limit, and that nothing was cut."""
    limit = int(ctx.get("max_length", 0))
    what = _WHAT.get(where, f"The field {where}")
    return (
        f"{what} is {length:,} characters long; at most {limit:,} are accepted. Nothing was "
        "cut or sent: shorten it and send it again."
    )


async def _service_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ServiceError)
    return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    code, message = describe_validation_error(exc)
    status = 400 if code == "MALFORMED_JSON" else 422
    return error_response(status, code, message)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _STATUS_CODES.get(exc.status_code, "HTTP_ERROR")
    message = _HTTP_SENTENCES.get(exc.status_code, "The request was not accepted.")
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
