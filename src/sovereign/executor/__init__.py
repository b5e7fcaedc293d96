"""The capability executor: contract, registry, ``invoke()``, confirmations, audit (DESIGN §2).

Knows nothing of HTTP or models. Everything a model, a user or the network can
cause comes back from :meth:`Executor.invoke` as an :class:`Outcome`; only a
malformed :class:`Capability` raises (:class:`CapabilityDefinitionError`).
"""

from .audit import AuditLog
from .capability import Capability, Confirmation, Effect, Locality
from .confirmation import TTL_SECONDS, ConfirmationStore, canonical_arguments
from .errors import (
    CODES,
    CapabilityDefinitionError,
    CapabilityError,
    CodeInfo,
    ErrorCode,
    OutcomeKind,
    Stage,
)
from .invoke import Executor, Outcome, TurnState
from .registry import Registry

__all__ = [
    "CODES",
    "TTL_SECONDS",
    "AuditLog",
    "Capability",
    "CapabilityDefinitionError",
    "CapabilityError",
    "CodeInfo",
    "Confirmation",
    "ConfirmationStore",
    "Effect",
    "ErrorCode",
    "Executor",
    "Locality",
    "Outcome",
    "OutcomeKind",
    "Registry",
    "Stage",
    "TurnState",
    "canonical_arguments",
]
