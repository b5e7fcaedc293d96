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
    REFUSALS,
    ArgumentRefused,
    CapabilityDefinitionError,
    CapabilityError,
    CodeInfo,
    ErrorCode,
    OutcomeKind,
    Refusal,
    Stage,
)
from .facts import (
    ABSENT,
    NUMBER,
    Choice,
    FactSheet,
    Kind,
    Phrases,
    Statement,
    Topic,
    read_subjects,
    read_topic_words,
    read_word_groups,
)
from .invoke import EDIT_REASON, Executor, FlagCheck, Outcome, TurnState, Validation
from .registry import Registry
from .text import map_strings, valid_text, valid_value

__all__ = [
    "ABSENT",
    "CODES",
    "EDIT_REASON",
    "NUMBER",
    "REFUSALS",
    "TTL_SECONDS",
    "ArgumentRefused",
    "AuditLog",
    "Capability",
    "CapabilityDefinitionError",
    "CapabilityError",
    "Choice",
    "CodeInfo",
    "Confirmation",
    "ConfirmationStore",
    "Effect",
    "ErrorCode",
    "Executor",
    "FactSheet",
    "FlagCheck",
    "Kind",
    "Locality",
    "Outcome",
    "OutcomeKind",
    "Phrases",
    "Refusal",
    "Registry",
    "Stage",
    "Statement",
    "Topic",
    "TurnState",
    "Validation",
    "canonical_arguments",
    "map_strings",
    "read_subjects",
    "read_topic_words",
    "read_word_groups",
    "valid_text",
    "valid_value",
]
