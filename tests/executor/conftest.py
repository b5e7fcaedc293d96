"""Capabilities built for executor tests."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from sovereign.executor import (
    AuditLog,
    Capability,
    ConfirmationStore,
    Effect,
    Executor,
    Locality,
    Registry,
)
from tests.fakes.clock import FakeClock

ECHO_ARGS = {
    "type": "object",
    "properties": {"text": {"type": "string", "minLength": 1, "maxLength": 50}},
    "required": ["text"],
    "additionalProperties": False,
}
ECHO_RESULT = {
    "type": "object",
    "properties": {"echo": {"type": "string"}},
    "required": ["echo"],
}


def make_capability(**overrides: Any) -> Capability:
    """An echo capability; keyword overrides replace any field."""
    calls: list[dict[str, Any]] = []

    async def execute(arguments: dict[str, Any]) -> dict[str, Any]:
        calls.append(arguments)
        return {"echo": arguments["text"]}

    fields: dict[str, Any] = {
        "name": "test.echo",
        "version": 1,
        "description": "Echo the text back.",
        "arguments_schema": ECHO_ARGS,
        "result_schema": ECHO_RESULT,
        "effect": Effect.READ_ONLY,
        "locality": Locality.LOCAL,
        "execute": execute,
    }
    fields.update(overrides)
    capability = Capability(**fields)
    object.__setattr__(capability, "calls", calls)  # test-only bookkeeping
    return capability


async def never_finishes(arguments: dict[str, Any]) -> dict[str, Any]:
    await asyncio.sleep(3600)
    return {"echo": "late"}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def build(tmp_path, clock):
    """``build(*capabilities) -> Executor`` with a fake clock and an audit log in tmp_path."""

    def _build(*capabilities: Capability) -> Executor:
        registry = Registry()
        for capability in capabilities:
            registry.add(capability)
        return Executor(
            registry,
            confirmations=ConfirmationStore(clock=clock),
            audit=AuditLog(tmp_path),
        )

    return _build
