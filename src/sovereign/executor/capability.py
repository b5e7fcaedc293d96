"""The capability contract: one model-proposable action and its bounds (DESIGN §2, RFC-0003)."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from .errors import CapabilityDefinitionError
from .facts import Choice, FactSheet, Phrases

Result = dict[str, Any]
Execute = Callable[[dict[str, Any]], Awaitable[Result]]
Canonicalize = Callable[[dict[str, Any]], dict[str, Any] | None]
PolicyCheck = Callable[[dict[str, Any]], None]
Availability = Callable[[], bool]
Choices = Callable[[], Mapping[str, list[Choice]]]

logger = logging.getLogger(__name__)

_NAME = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$")


class Effect(StrEnum):
    """Whether a capability changes anything."""

    READ_ONLY = "read_only"
    MUTATING = "mutating"


class Locality(StrEnum):
    """Whether a capability's effect or data crosses the device boundary."""

    LOCAL = "local"
    EXTERNAL = "external"


class Confirmation(StrEnum):
    """Derived from the classification, never chosen per capability."""

    AUTOMATIC = "automatic"
    REQUIRED = "required"


@dataclass(frozen=True, kw_only=True)
class Capability:
    """One action a model may propose and the executor may run (DESIGN §2).

    Raises:
        CapabilityDefinitionError: at construction, for a bad name, version, schema
            or bound. Misuse by a developer fails early; nothing a model sends can
            reach this error.
    """

    name: str
    """Dotted lower-case name, e.g. ``web.search``."""
    version: int
    """Contract version, 1 or more. ``(name, version)`` is the registry key."""
    description: str
    """What the model is told the capability does."""
    arguments_schema: Mapping[str, Any]
    """JSON Schema (2020-12) of the arguments object; the model sees it as parameters."""
    result_schema: Mapping[str, Any]
    """JSON Schema the result must satisfy at the shape stage."""
    effect: Effect
    """read_only or mutating."""
    locality: Locality
    """local or external."""
    execute: Execute = field(repr=False)
    """``async (arguments: dict) -> dict``; raises CapabilityError for expected failures."""
    timeout_seconds: float = 10.0
    """Deadline for the execute stage, in seconds (> 0). Past it: TIMEOUT."""
    max_result_bytes: int = 65536
    """Cap on the UTF-8 JSON serialisation of the result, in bytes. Past it: RESULT_TOO_LARGE."""
    max_invocations_per_turn: int = 1
    """How many times one turn may execute this capability (>= 1)."""
    policy_key: str | None = None
    """Key looked up in the per-request policy mapping; absent or false means deny.
    ``None``: the capability is not behind any policy switch."""
    validate_arguments: Canonicalize | None = field(default=None, repr=False)
    """Optional stage-2 hook after the schema: ``(arguments) -> canonical arguments``.

    Returns the exact arguments that will be executed (DESIGN §4 "What the card shows is
    what leaves"): the confirmation token binds them, the card shows them, ``execute``
    receives them, and nothing rewrites them later. ``None`` means the arguments as given
    are already canonical. The returned object must satisfy ``accepted_schema`` too and
    must be a fixed point (canonicalising it again gives it back). Raises ValueError with
    a sentence → INVALID_ARGUMENTS, or CapabilityError (e.g. FETCH_TARGET_REJECTED for a
    destination that can only be refused) → that code, at the validate stage."""
    canonical_schema: Mapping[str, Any] | None = None
    """JSON Schema (2020-12) of the canonical arguments, when ``validate_arguments`` adds
    arguments the model is not offered (web.search adds the household's ``language`` and
    ``safesearch``). Proposals and the hook's result are both checked against it, so the
    card's arguments sent back are a fixed point; the hook decides what such an argument
    may hold. ``None``: ``arguments_schema``. The model only ever sees ``arguments_schema``."""
    check_policy: PolicyCheck | None = field(default=None, repr=False)
    """Optional stage-3 hook after the policy switch: ``(canonical arguments) -> None``.

    The capability's own household rule over the exact arguments (web.fetch: the
    household's site list), decided before any confirmation is issued and without any
    network activity. Raises CapabilityError (e.g. SITE_NOT_ALLOWED) → that code at the
    policy stage; it runs again on approval, like every stage."""
    available: Availability | None = field(default=None, repr=False)
    """Optional ``() -> bool``: whether the capability can run on this device at all right
    now (e.g. its settings file exists and is usable). Cheap and side-effect free: it is
    called for every turn. A conversation offers the model only available capabilities;
    the executor itself does not consult it (execute still reports what is missing).
    ``None``: always available."""
    facts: FactSheet | None = None
    """How the result is said to the household (DESIGN §4, "the product states"): topics
    the model may name and the sentences that state them from the result's fields.
    ``None``: the result is not a household fact (a web source, or nothing to say)."""
    phrases: Phrases | None = None
    """The sentences said about this capability when it did not run (declined, expired,
    failed, not set up, switched off). ``None``: generic sentences are said."""
    choices: Choices | None = field(default=None, repr=False)
    """Optional ``() -> {argument: [Choice, ...]}``: the only values an argument can take
    on this device right now (Home Assistant's allowlisted entities), offered to the model
    as an enum with their labels so it picks one instead of guessing an id. Cheap and
    side-effect free; validation still checks the value."""

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise CapabilityDefinitionError(f"capability name {self.name!r} is not dotted a.b")
        if isinstance(self.version, bool) or not isinstance(self.version, int) or self.version < 1:
            raise CapabilityDefinitionError(f"{self.name}: version must be an int >= 1")
        schemas = [("arguments", self.arguments_schema), ("result", self.result_schema)]
        if self.canonical_schema is not None:
            schemas.append(("canonical", self.canonical_schema))
        for label, schema in schemas:
            _check_schema(self.name, label, schema)
        if self.arguments_schema.get("type") != "object":
            raise CapabilityDefinitionError(f"{self.name}: arguments schema must be an object")
        if not self.timeout_seconds > 0:
            raise CapabilityDefinitionError(f"{self.name}: timeout_seconds must be > 0")
        if self.max_result_bytes < 1 or self.max_invocations_per_turn < 1:
            raise CapabilityDefinitionError(f"{self.name}: bounds must be >= 1")
        Effect(self.effect)
        Locality(self.locality)

    @property
    def confirmation(self) -> Confirmation:
        """``required`` when external or mutating, else ``automatic`` (structural)."""
        if self.effect is Effect.MUTATING or self.locality is Locality.EXTERNAL:
            return Confirmation.REQUIRED
        return Confirmation.AUTOMATIC

    def is_available(self) -> bool:
        """:attr:`available`'s answer (True when unset); an exception counts as unavailable."""
        if self.available is None:
            return True
        try:
            return bool(self.available())
        except Exception:
            logger.exception("%s: its availability check failed; not offered", self.name)
            return False

    @property
    def accepted_schema(self) -> Mapping[str, Any]:
        """The schema proposals and canonical arguments are validated against."""
        return self.arguments_schema if self.canonical_schema is None else self.canonical_schema

    @property
    def key(self) -> tuple[str, int]:
        """``(name, version)``."""
        return (self.name, self.version)

    def classification(self) -> dict[str, str]:
        """``{"effect", "locality", "confirmation"}`` as strings, for audit and receipts."""
        return {
            "effect": str(self.effect),
            "locality": str(self.locality),
            "confirmation": str(self.confirmation),
        }


def _check_schema(name: str, label: str, schema: Mapping[str, Any]) -> None:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise CapabilityDefinitionError(f"{name}: bad {label} schema: {exc.message}") from exc
