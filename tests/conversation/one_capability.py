"""A turn loop over one fake read-only capability and a scripted model, for answer checks."""

from __future__ import annotations

from typing import Any

from sovereign.conversation import TurnLoop
from sovereign.conversation.backends.scripted import ScriptedBackend
from sovereign.executor import (
    AuditLog,
    Capability,
    ConfirmationStore,
    Effect,
    Executor,
    Locality,
    Registry,
)


def registry_with(name: str, result: dict[str, Any], locality: Locality = Locality.LOCAL):
    """A registry holding only ``name`` v1, read-only, returning a copy of ``result``."""

    async def execute(_arguments):
        return dict(result)

    registry = Registry()
    registry.add(
        Capability(
            name=name,
            version=1,
            description=name,
            arguments_schema={"type": "object"},
            result_schema={"type": "object"},
            effect=Effect.READ_ONLY,
            locality=locality,
            execute=execute,
        )
    )
    return registry


def loop_over(script, tmp_path, registry: Registry) -> tuple[TurnLoop, ScriptedBackend]:
    """A turn loop over ``registry`` whose model replies ``script``, and that model."""
    backend = ScriptedBackend(script)
    executor = Executor(registry, confirmations=ConfirmationStore(), audit=AuditLog(tmp_path))
    return TurnLoop(executor, backend), backend
