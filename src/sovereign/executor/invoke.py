"""``invoke()``: the six stages between a proposed call and its result (DESIGN §2)."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from .audit import AuditLog, AuditUnavailable
from .capability import Capability, Confirmation
from .confirmation import Ask, ConfirmationStore
from .errors import (
    CODES,
    ArgumentRefused,
    CapabilityError,
    ErrorCode,
    OutcomeKind,
    Refusal,
    Stage,
)
from .registry import Registry
from .text import valid_text, valid_value

logger = logging.getLogger(__name__)

FlagCheck = Callable[[str, Mapping[str, Any]], Sequence[Mapping[str, Any]]]
"""``check(name, canonical_arguments) -> flags``: each flag a mapping with at least a
``"kind"`` (a fixed label); run on every call about to ask for approval."""
EDIT_REASON = "edited by the household"
"""``reason`` of the ask record of a proposal the household edited (not the model's)."""


@dataclass
class TurnState:
    """Per-turn bookkeeping: how often each ``(name, version)`` has executed."""

    executions: Counter[tuple[str, int]] = field(default_factory=Counter)


@dataclass(frozen=True)
class Validation:
    """Stages 1-2 alone (:meth:`Executor.validate`): the canonical arguments, or why not:
    the code, the English sentence and the :class:`~.errors.Refusal` (a stable code and
    what it names, for saying it in the household's language)."""

    arguments: dict[str, Any] | None
    error_code: ErrorCode | None = None
    message: str = ""
    refusal: Refusal | None = None

    @property
    def ok(self) -> bool:
        """True when the arguments passed resolve and validate."""
        return self.error_code is None


@dataclass(frozen=True)
class Outcome:
    """What ``invoke()`` decided for one proposed call.

    ``kind`` is EXECUTED with ``result`` set, or carries ``error_code`` and a
    human ``message``. ``stage`` is the last stage reached. ``arguments`` are the
    canonical arguments produced by the validate stage (``None`` when it was not
    passed): exactly what a confirmation binds and what ``execute`` receives.
    """

    name: str
    version: int
    stage: Stage
    kind: OutcomeKind
    error_code: ErrorCode | None = None
    message: str = ""
    result: dict[str, Any] | None = None
    reason: str | None = None
    """A fixed label from the capability (e.g. ``"deny: loopback"``), audited."""
    capability: Capability | None = field(default=None, repr=False, compare=False)
    arguments: dict[str, Any] | None = None
    audit_id: str | None = field(default=None, compare=False)
    """Id of the audit record of this outcome (for CONFIRMATION_REQUIRED: the ask's)."""
    flags: tuple[Mapping[str, Any], ...] = ()
    """For CONFIRMATION_REQUIRED: what the flag check found in the canonical arguments
    (DESIGN §4, the household-identifier check), for the card."""
    sent: bool | None = None
    """For a failure in execute: whether the request reached the service the capability
    talks to (``False``: it failed before anything was sent; ``None``: unknown or not
    applicable). See :class:`~.errors.CapabilityError`."""

    @property
    def ok(self) -> bool:
        """True when the call executed and its result passed the shape stage."""
        return self.kind is OutcomeKind.EXECUTED


class _Stop(Exception):
    """Internal: a stage ends the invocation with an error code."""

    def __init__(
        self,
        stage: Stage,
        code: ErrorCode,
        message: str,
        reason: str | None = None,
        sent: bool | None = None,
        refusal: Refusal | None = None,
    ) -> None:
        message, reason = valid_text(message), reason and valid_text(reason)
        super().__init__(message)
        self.stage, self.code, self.message, self.reason = stage, code, message, reason
        self.sent, self.refusal = sent, refusal


class Executor:
    """Runs proposed calls against a registry, a confirmation store and an audit log.

    Args:
        registry: the capabilities that exist.
        confirmations: the token store; one per process.
        audit: where outcomes are recorded (``AuditLog(None)`` for none).
        flag_check: run on the canonical arguments of every call about to ask for
            the household's approval; its flags go onto the outcome and their kinds
            into the ask's audit record. It should not raise; if it does, the
            failure is logged and the card carries none of its flags.
    """

    def __init__(
        self,
        registry: Registry,
        *,
        confirmations: ConfirmationStore | None = None,
        audit: AuditLog | None = None,
        flag_check: FlagCheck | None = None,
    ) -> None:
        self.registry = registry
        self.confirmations = ConfirmationStore() if confirmations is None else confirmations
        self.audit = AuditLog(None) if audit is None else audit
        self._flag_check = flag_check
        self.confirmations.watch_lapses(self._lapsed)

    async def invoke(
        self,
        name: str,
        version: int,
        arguments: Any,
        *,
        policy: Mapping[str, Any],
        turn_state: TurnState,
        confirmation_token: str | None = None,
        edited: bool = False,
        flag_check: FlagCheck | None = None,
    ) -> Outcome:
        """Run one proposed call through six stages; never raises for an expected failure.

        1. resolve ``(name, version)`` → UNKNOWN_CAPABILITY
        2. validate arguments against ``accepted_schema`` and the capability's
           ``validate_arguments`` hook → INVALID_ARGUMENTS (or a code the hook raises,
           e.g. FETCH_TARGET_REJECTED); yields the **canonical arguments** that every
           later stage uses (the token binds them, ``execute`` receives them)
        3. policy gate: ``policy[policy_key]`` must be true (absent = deny) →
           POLICY_DISABLED; the capability's ``check_policy`` hook over the canonical
           arguments → the code it raises (SITE_NOT_ALLOWED); the per-turn bound →
           INVOCATION_LIMIT_REACHED.
           No token is ever issued past a refusal here.
        4. confirmation gate, for ``required`` capabilities: no token →
           CONFIRMATION_REQUIRED; a token that does not consume for exactly this
           call → INVALID_CONFIRMATION
        5. execute: an "executing" audit record is written first (fsynced for
           external calls); when it cannot be → AUDIT_UNAVAILABLE and the call
           does not run. Then within ``timeout_seconds`` → TIMEOUT,
           EXECUTION_FAILED, FETCH_FAILED, FETCH_TARGET_REJECTED
        6. shape: result against ``result_schema`` → RESULT_INVALID, and its JSON
           within ``max_result_bytes`` → RESULT_TOO_LARGE

        Args:
            name, version: the proposed capability.
            arguments: whatever the model proposed (validated and canonicalised here).
            policy: per-request switches, e.g. ``{"external_enabled": False}``.
            turn_state: counts executions within the current turn.
            confirmation_token: the household's approval for exactly this call.
            edited: the arguments are the household's edit of a proposal, not the
                model's (the ask record says so in ``reason``).
            flag_check: this call's own check, run after the executor's when the call
                asks for approval (the turn's: words a result of the turn dictated).
                Its flags follow the executor's on the outcome and their kinds go into
                the same ask record; it should not raise either.

        Returns:
            An :class:`Outcome`; every outcome is also written to the audit log.
            With a token, every record names the approval it answers (``asked``).
        """
        started = time.monotonic()
        capability = canonical = None
        stage = Stage.RESOLVE
        ask = None if confirmation_token is None else self.confirmations.claim(confirmation_token)
        asked = ask.ref if ask else None
        executing = None
        try:
            capability = self._resolve(name, version)
            stage = Stage.VALIDATE
            canonical = _validate(capability, arguments)
            stage = Stage.POLICY
            _check_policy(capability, canonical, policy, turn_state)
            stage = Stage.CONFIRM
            self._confirm(capability, canonical, confirmation_token)
            stage = Stage.EXECUTE
            executing = await self._begin(capability, version, asked)
            turn_state.executions[capability.key] += 1
            result = await _execute(capability, canonical)
            stage = Stage.SHAPE
            _shape(capability, result)
            outcome = Outcome(
                name,
                version,
                stage,
                OutcomeKind.EXECUTED,
                result=result,
                capability=capability,
                arguments=canonical,
            )
        except Exception as exc:  # every failure, even a bug, becomes an audited outcome
            stop = exc if isinstance(exc, _Stop) else _unexpected(exc, capability, stage)
            asking = stop.code is ErrorCode.CONFIRMATION_REQUIRED
            outcome = Outcome(
                name,
                version,
                stop.stage,
                CODES[stop.code].kind,
                stop.code,
                stop.message,
                reason=EDIT_REASON if asking and edited else stop.reason,
                capability=capability,
                arguments=canonical,
                flags=self._flags(name, canonical, flag_check) if asking else (),
                sent=stop.sent,
            )
        try:
            audit_id = self._audit_outcome(outcome, asked, executing, started)
        except AuditUnavailable as exc:  # no card without its ask on record
            outcome = replace(
                outcome,
                kind=CODES[ErrorCode.AUDIT_UNAVAILABLE].kind,
                error_code=ErrorCode.AUDIT_UNAVAILABLE,
                message=f"{name} was not put to the household for approval and did not run, "
                f"so nothing left the device: the device cannot keep its audit record "
                f"({exc.problem}). Free space on the data filesystem or fix its permissions "
                "(sovereign doctor checks it), then ask again.",
                flags=(),
            )
            audit_id = self._audit_outcome(outcome, asked, executing, started)
        return replace(outcome, audit_id=audit_id)

    def _audit_outcome(
        self,
        outcome: Outcome,
        asked: str | None,
        executing: str | None,
        started: float,
    ) -> str | None:
        """The outcome's audit record. An approval asked is written now or raises
        :class:`AuditUnavailable` (no card without its ask on record); any other
        outcome is kept back when the file refuses it."""
        asking = outcome.error_code is ErrorCode.CONFIRMATION_REQUIRED
        return self.audit.record(
            outcome.capability,
            version=outcome.version,
            stage=outcome.stage,
            outcome=outcome.kind,
            error_code=outcome.error_code,
            reason=outcome.reason,
            duration_seconds=time.monotonic() - started,
            asked=asked,
            started=executing,
            flags=[str(flag["kind"]) for flag in outcome.flags] if asking else None,
            strict=asking,
            sent=outcome.sent,
        )

    def validate(self, name: Any, version: Any, arguments: Any) -> Validation:
        """Stages 1-2 only, with nothing audited: would these arguments be accepted?

        Used to refuse a household's edit before anything is answered (DESIGN §4).
        Returns the canonical arguments, or the stage's code, sentence and refusal
        (every refusal has one: :data:`~.errors.REFUSALS`).
        """
        try:
            capability = self._resolve(name, version)
            return Validation(_validate(capability, arguments))
        except _Stop as stop:
            refusal = stop.refusal or Refusal("not_accepted")
            return Validation(None, stop.code, stop.message, refusal)

    def _flags(
        self, name: str, arguments: dict[str, Any] | None, extra: FlagCheck | None
    ) -> tuple[Mapping[str, Any], ...]:
        if arguments is None:
            return ()
        flags: list[Mapping[str, Any]] = []
        for check in (self._flag_check, extra):
            if check is None:
                continue
            try:
                found = tuple(check(name, copy.deepcopy(arguments)))
            except Exception:
                logger.exception("a flag check failed for %s; its flags are not shown", name)
            else:
                flags.extend(found)
        return tuple(flags)

    def record_answer(self, capability: Capability, kind: OutcomeKind, token: str) -> None:
        """Audit the household's denial (``DENIED``) or a noticed expiry (``EXPIRED``)
        of the approval asked with ``token``, naming the asking record.

        Each ask is recorded once: nothing is written when ``token`` was already
        answered, or lapsed (it was recorded as expired then).
        """
        ask = self.confirmations.claim(token)
        if ask is not None:
            self.audit.record(
                capability,
                version=capability.version,
                stage=Stage.CONFIRM,
                outcome=kind,
                asked=ask.ref,
            )

    def _lapsed(self, ask: Ask) -> None:
        """An approval nobody answered left the token store: record it as expired."""
        capability = self.registry.get(ask.name, ask.version)
        self.audit.record(
            capability,
            version=ask.version,
            stage=Stage.CONFIRM,
            outcome=OutcomeKind.EXPIRED,
            asked=ask.ref,
        )

    async def _begin(self, capability: Capability, version: int, asked: str | None) -> str | None:
        """Stage 5's first step: the "executing" record, off the event loop (it may fsync)."""
        try:
            return await asyncio.to_thread(
                self.audit.begin, capability, version=version, asked=asked
            )
        except AuditUnavailable as exc:
            raise _Stop(
                Stage.EXECUTE,
                ErrorCode.AUDIT_UNAVAILABLE,
                f"{capability.name} did not run, so nothing left the device: the device "
                f"cannot keep its audit record ({exc.problem}). Free space on the data "
                "filesystem or fix its permissions (sovereign doctor checks it), then ask again.",
            ) from exc

    def _resolve(self, name: Any, version: Any) -> Capability:
        capability = None
        if isinstance(name, str) and isinstance(version, int):
            capability = self.registry.get(name, version)
        if capability is None:
            raise _Stop(Stage.RESOLVE, ErrorCode.UNKNOWN_CAPABILITY, "No such capability.",
                        refusal=Refusal("unknown_capability"))  # fmt: skip
        return capability

    def _confirm(self, capability: Capability, arguments: Any, token: str | None) -> None:
        if capability.confirmation is Confirmation.AUTOMATIC:
            return
        if token is None:
            raise _Stop(
                Stage.CONFIRM,
                ErrorCode.CONFIRMATION_REQUIRED,
                f"{capability.name} needs the household's approval before it runs.",
            )
        if not self.confirmations.consume(token, capability.name, capability.version, arguments):
            raise _Stop(
                Stage.CONFIRM,
                ErrorCode.INVALID_CONFIRMATION,
                "The confirmation token is unknown, used, expired or for another call.",
            )


def _validate(capability: Capability, arguments: Any) -> dict[str, Any]:
    """Stage 2: the schema, then the hook; returns the canonical arguments (a copy),
    their text valid (:mod:`.text`: a lone surrogate becomes U+FFFD, as the card shows)."""
    arguments = valid_value(arguments)
    _check_schema(capability, arguments)
    hook = capability.validate_arguments
    if hook is None:
        return copy.deepcopy(arguments)
    try:
        canonical = hook(copy.deepcopy(arguments))
    except ValueError as exc:
        refusal = exc.refusal if isinstance(exc, ArgumentRefused) else None
        raise _Stop(Stage.VALIDATE, ErrorCode.INVALID_ARGUMENTS, str(exc), refusal=refusal) from exc
    except CapabilityError as exc:
        rejected = exc.code is ErrorCode.FETCH_TARGET_REJECTED
        refusal = Refusal("destination_refused") if rejected else None
        raise _Stop(Stage.VALIDATE, exc.code, exc.message, exc.reason, refusal=refusal) from exc
    if canonical is None:
        return copy.deepcopy(arguments)
    _check_schema(capability, canonical)  # e.g. a neutralised query grown past its maxLength
    return canonical


def _check_schema(capability: Capability, arguments: Any) -> None:
    error = best_match(Draft202012Validator(capability.accepted_schema).iter_errors(arguments))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "arguments"
        raise _Stop(Stage.VALIDATE, ErrorCode.INVALID_ARGUMENTS, f"{where}: {error.message}",
                    refusal=schema_refusal(error))  # fmt: skip


_SCHEMA_REFUSALS = {
    "type": "wrong_type",
    "maxLength": "too_long",
    "minLength": "too_short",
    "minimum": "too_small",
    "exclusiveMinimum": "too_small",
    "maximum": "too_large",
    "exclusiveMaximum": "too_large",
    "enum": "not_a_choice",
    "const": "not_a_choice",
    "pattern": "wrong_form",
    "format": "wrong_form",
}
"""The refusal for each JSON Schema keyword an argument can fail (others: ``not_accepted``)."""


def schema_refusal(error: ValidationError) -> Refusal:
    """The :class:`~.errors.Refusal` for the schema's verdict ``error``: the missing or
    unexpected argument by name, else the failing argument with the keyword's limit
    (``maxLength`` 300 → ``too_long``, ``limit`` 300); ``not_accepted`` for a value
    deeper than an argument, a keyword without a refusal of its own, or a limit that is
    not a whole number."""
    path = list(error.absolute_path)
    instance = error.instance if isinstance(error.instance, dict) else {}
    if error.validator == "required" and not path:
        missing = [name for name in error.validator_value if name not in instance]
        return Refusal("missing", {"argument": str(missing[0])}) if missing else _NOT_ACCEPTED
    if error.validator == "additionalProperties" and not path:
        known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        extra = [name for name in instance if name not in known]
        return Refusal("unexpected", {"argument": str(extra[0])}) if extra else _NOT_ACCEPTED
    code = _SCHEMA_REFUSALS.get(str(error.validator))
    if len(path) != 1 or code is None:
        return _NOT_ACCEPTED
    values: dict[str, str | int] = {"argument": str(path[0])}
    if code.startswith("too_"):
        limit = error.validator_value
        if not isinstance(limit, int) or isinstance(limit, bool):
            return _NOT_ACCEPTED  # a limit the sentence cannot name as a whole number
        values["limit"] = limit
    return Refusal(code, values)


_NOT_ACCEPTED = Refusal("not_accepted")


def _check_policy(
    capability: Capability, arguments: dict[str, Any], policy: Mapping[str, Any], turn: TurnState
) -> None:
    key = capability.policy_key
    if key is not None and policy.get(key) is not True:
        raise _Stop(
            Stage.POLICY,
            ErrorCode.POLICY_DISABLED,
            f"{capability.name} is switched off by the household's policy ({key}).",
        )
    if capability.check_policy is not None:
        try:
            capability.check_policy(copy.deepcopy(arguments))
        except CapabilityError as exc:
            raise _Stop(Stage.POLICY, exc.code, exc.message, exc.reason) from exc
        except Exception as exc:  # a broken rule refuses: it never lets a call through
            logger.exception("%s: the policy hook raised", capability.name)
            raise _Stop(
                Stage.POLICY,
                ErrorCode.EXECUTION_FAILED,
                f"{capability.name} did not run: the household's rules for it could not be "
                "checked.",
            ) from exc
    if turn.executions[capability.key] >= capability.max_invocations_per_turn:
        raise _Stop(
            Stage.POLICY,
            ErrorCode.INVOCATION_LIMIT_REACHED,
            f"{capability.name} may run at most {capability.max_invocations_per_turn} "
            "time(s) per turn.",
        )


def _unexpected(exc: Exception, capability: Capability | None, stage: Stage) -> _Stop:
    """A stage that raised what no stage expects (a bug): the invocation still ends in
    an outcome, audited like any other, so a call that ran never loses its record."""
    name = capability.name if capability else "the capability"
    logger.error("%s: stage %s raised unexpectedly", name, stage, exc_info=exc)
    if stage is Stage.SHAPE:
        return _Stop(stage, ErrorCode.RESULT_INVALID, f"{name} returned a malformed result.")
    return _Stop(stage, ErrorCode.EXECUTION_FAILED, f"{name} failed unexpectedly.")


async def _execute(capability: Capability, arguments: dict[str, Any]) -> Any:
    """Stage 5's call: the result, its text made valid (:mod:`.text`) where it enters."""
    try:
        async with asyncio.timeout(capability.timeout_seconds):
            return valid_value(await capability.execute(dict(arguments)))
    except TimeoutError as exc:
        raise _Stop(
            Stage.EXECUTE,
            ErrorCode.TIMEOUT,
            f"{capability.name} did not finish within {capability.timeout_seconds:g} s.",
        ) from exc
    except CapabilityError as exc:
        raise _Stop(Stage.EXECUTE, exc.code, exc.message, exc.reason, exc.sent) from exc
    except Exception as exc:
        logger.exception("%s v%d raised", capability.name, capability.version)
        raise _Stop(
            Stage.EXECUTE, ErrorCode.EXECUTION_FAILED, f"{capability.name} failed unexpectedly."
        ) from exc


def _shape(capability: Capability, result: Any) -> None:
    error = best_match(Draft202012Validator(capability.result_schema).iter_errors(result))
    if error is not None:
        logger.warning("%s returned a bad result: %s", capability.name, error.message)
        raise _Stop(
            Stage.SHAPE, ErrorCode.RESULT_INVALID, f"{capability.name} returned a malformed result."
        )
    size = len(json.dumps(result, ensure_ascii=False).encode())
    if size > capability.max_result_bytes:
        raise _Stop(
            Stage.SHAPE,
            ErrorCode.RESULT_TOO_LARGE,
            f"{capability.name} returned {size} bytes, over its cap of "
            f"{capability.max_result_bytes}.",
        )
