"""Error codes of the capability contract and who each one is for (DESIGN §2).

Every code an :class:`~sovereign.executor.invoke.Outcome` can carry is listed in
:data:`CODES` with the audit outcome it is recorded as and the HTTP status a
service uses when the code reaches a client directly. Nothing else in the code
decides those mappings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class ErrorCode(StrEnum):
    """Outcome codes of :func:`invoke`; the stage that yields each is in :class:`Stage`."""

    UNKNOWN_CAPABILITY = "UNKNOWN_CAPABILITY"
    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
    POLICY_DISABLED = "POLICY_DISABLED"
    INVOCATION_LIMIT_REACHED = "INVOCATION_LIMIT_REACHED"
    CONFIRMATION_REQUIRED = "CONFIRMATION_REQUIRED"
    INVALID_CONFIRMATION = "INVALID_CONFIRMATION"
    TIMEOUT = "TIMEOUT"
    EXECUTION_FAILED = "EXECUTION_FAILED"
    FETCH_TARGET_REJECTED = "FETCH_TARGET_REJECTED"
    FETCH_FAILED = "FETCH_FAILED"
    RESULT_INVALID = "RESULT_INVALID"
    RESULT_TOO_LARGE = "RESULT_TOO_LARGE"
    AUDIT_UNAVAILABLE = "AUDIT_UNAVAILABLE"
    """Stage 5: the "executing" record could not be written, so the call did not run."""
    SITE_NOT_ALLOWED = "SITE_NOT_ALLOWED"
    """Stage 3 (and 5): the household's site list does not allow that site (web.fetch)."""


class Stage(StrEnum):
    """The six stages of :func:`invoke`, in order (DESIGN §2)."""

    RESOLVE = "resolve"
    VALIDATE = "validate"
    POLICY = "policy"
    CONFIRM = "confirm"
    EXECUTE = "execute"
    SHAPE = "shape"


class OutcomeKind(StrEnum):
    """What happened to one proposed call, as recorded in the audit log."""

    EXECUTED = "executed"
    CONFIRMATION_REQUIRED = "confirmation_required"
    REFUSED = "refused"
    FAILED = "failed"
    DENIED = "denied"
    EXPIRED = "expired"
    EXECUTING = "executing"
    """Written before a call starts; the outcome follows in a record of its own."""
    EDITED = "edited"
    """The household changed the arguments before approving: the ask is answered, and
    the edited arguments are a new proposal with an ask of their own."""


@dataclass(frozen=True)
class CodeInfo:
    """How one :class:`ErrorCode` is reported: audit outcome and HTTP status."""

    kind: OutcomeKind
    http_status: int
    summary: str


CODES: dict[ErrorCode, CodeInfo] = {
    ErrorCode.UNKNOWN_CAPABILITY: CodeInfo(OutcomeKind.REFUSED, 404, "no such capability"),
    ErrorCode.INVALID_ARGUMENTS: CodeInfo(OutcomeKind.REFUSED, 422, "arguments do not match"),
    ErrorCode.POLICY_DISABLED: CodeInfo(OutcomeKind.REFUSED, 403, "switched off by policy"),
    ErrorCode.INVOCATION_LIMIT_REACHED: CodeInfo(
        OutcomeKind.REFUSED, 429, "too many calls in one turn"
    ),
    ErrorCode.CONFIRMATION_REQUIRED: CodeInfo(
        OutcomeKind.CONFIRMATION_REQUIRED, 409, "needs the household's approval"
    ),
    ErrorCode.INVALID_CONFIRMATION: CodeInfo(
        OutcomeKind.REFUSED, 400, "confirmation token unknown, used, expired or foreign"
    ),
    ErrorCode.TIMEOUT: CodeInfo(OutcomeKind.FAILED, 504, "took longer than its deadline"),
    ErrorCode.EXECUTION_FAILED: CodeInfo(OutcomeKind.FAILED, 502, "failed while running"),
    ErrorCode.FETCH_TARGET_REJECTED: CodeInfo(
        OutcomeKind.REFUSED, 403, "destination not allowed"
    ),
    ErrorCode.FETCH_FAILED: CodeInfo(OutcomeKind.FAILED, 502, "could not retrieve the page"),
    ErrorCode.RESULT_INVALID: CodeInfo(OutcomeKind.FAILED, 502, "result has the wrong shape"),
    ErrorCode.RESULT_TOO_LARGE: CodeInfo(OutcomeKind.FAILED, 502, "result is too large"),
    ErrorCode.AUDIT_UNAVAILABLE: CodeInfo(
        OutcomeKind.REFUSED, 503, "not run: the device cannot keep its audit record"
    ),
    ErrorCode.SITE_NOT_ALLOWED: CodeInfo(
        OutcomeKind.REFUSED, 403, "the household's site list does not allow that site"
    ),
}


class CapabilityError(Exception):
    """Raised by a capability's ``execute`` for a failure the household should hear about.

    Args:
        message: one human sentence, shown to the model and the household. It must
            not contain secrets; it may name the host or service that failed.
        code: EXECUTION_FAILED (default), FETCH_FAILED, FETCH_TARGET_REJECTED or
            SITE_NOT_ALLOWED.
        reason: optional fixed label from the capability's own vocabulary (e.g. a
            destination verdict such as ``"deny: loopback"``), written to the audit
            log. Never built from arguments or fetched data: it must match
            ``[A-Za-z0-9 :()'_-]{1,80}``, else ValueError.
        sent: whether the request reached the service the capability talks to:
            ``False`` when it failed before anything was sent (the connection was
            refused: nothing left), ``True`` when it was sent, ``None`` (default)
            when that cannot be told. Carried to the outcome, the audit record and
            the receipt, which says "nothing left" only for ``False``.
    """

    def __init__(
        self,
        message: str,
        code: ErrorCode = ErrorCode.EXECUTION_FAILED,
        *,
        reason: str | None = None,
        sent: bool | None = None,
    ) -> None:
        if code not in _CAPABILITY_CODES:
            raise ValueError(f"a capability may not raise {code}")
        if reason is not None and not _REASON.fullmatch(reason):
            raise ValueError(f"audit reason {reason!r} is not a fixed label")
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        self.sent = sent


_REASON = re.compile(r"[A-Za-z0-9 :()'_-]{1,80}")


_CAPABILITY_CODES = frozenset(
    {
        ErrorCode.EXECUTION_FAILED,
        ErrorCode.FETCH_FAILED,
        ErrorCode.FETCH_TARGET_REJECTED,
        ErrorCode.SITE_NOT_ALLOWED,
    }
)


REFUSALS = frozenset(
    {
        "unknown_capability",
        "missing",
        "unexpected",
        "wrong_type",
        "too_long",
        "too_short",
        "too_small",
        "too_large",
        "not_a_choice",
        "wrong_form",
        "invisible_character",
        "no_words",
        "household_setting",
        "malformed_address",
        "destination_refused",
        "not_accepted",
    }
)
"""The stable codes of :class:`Refusal`: why stages 1-2 refused arguments, finer than the
:class:`ErrorCode`. What each one's sentence may name (``values``): ``argument`` (the
argument's name; ``missing``, ``unexpected``, ``wrong_type``, ``too_*``, ``not_a_choice``,
``wrong_form``, ``invisible_character``, ``no_words``, ``household_setting``,
``malformed_address``), ``limit`` (an ``int``; ``too_long``/``too_short`` in characters,
``too_small``/``too_large`` as a number), ``character`` (``"U+200B ZERO WIDTH SPACE"``)
and ``position`` (an ``int``, from 1) for ``invisible_character``. ``not_accepted`` is
any other refusal and names nothing."""


@dataclass(frozen=True)
class Refusal:
    """Why stages 1-2 refused a call's arguments, language-free: a code of
    :data:`REFUSALS` and the values its sentence names. The executor's own ``message``
    stays its English sentence; a client says this in the household's language."""

    code: str
    values: Mapping[str, str | int] = field(default_factory=dict)


class ArgumentRefused(ValueError):
    """Raised by a capability's ``validate_arguments`` hook, as its ``ValueError``
    (→ INVALID_ARGUMENTS), with a :class:`Refusal` the household can be told in its words.

    Args:
        message: the English sentence (the executor's ``message``).
        code: one of :data:`REFUSALS`, else ValueError.
        values: what its sentence names (see :data:`REFUSALS`).
    """

    def __init__(self, message: str, code: str, **values: str | int) -> None:
        if code not in REFUSALS:
            raise ValueError(f"{code!r} is not a refusal code")
        super().__init__(message)
        self.refusal = Refusal(code, values)


class CapabilityDefinitionError(ValueError):
    """A malformed :class:`Capability` or a duplicate registration: developer misuse."""
