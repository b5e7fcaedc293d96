"""The conversation turn loop: model ⇄ executor, paused turns, provenance (DESIGN §4).

Imports only :mod:`sovereign.executor` (and its own model backends). The service
drives it through :class:`TurnLoop`; results are data with ``to_wire()``.
"""

from .backends.base import ContextTooLong, ModelBackend, ModelError, ModelUnavailable, TokenSink
from .loop import TurnLoop
from .offer.catalog import ToolCatalog, model_safe_name
from .pending import PendingTurn, PendingTurnStore
from .progress import Progress, ProgressSink, TurnStopped
from .results import (
    Citation,
    InvalidConfirmation,
    InvalidEdit,
    PendingConfirmation,
    Receipt,
    TurnFailed,
    TurnResult,
)

__all__ = [
    "Citation",
    "ContextTooLong",
    "InvalidConfirmation",
    "InvalidEdit",
    "ModelBackend",
    "ModelError",
    "ModelUnavailable",
    "PendingConfirmation",
    "PendingTurn",
    "PendingTurnStore",
    "Progress",
    "ProgressSink",
    "Receipt",
    "TokenSink",
    "ToolCatalog",
    "TurnFailed",
    "TurnLoop",
    "TurnResult",
    "TurnStopped",
    "model_safe_name",
]
