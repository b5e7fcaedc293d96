"""A conversation longer than the model's context is reported as such, never retried."""

from __future__ import annotations

import pytest

from sovereign.conversation import TurnFailed
from sovereign.conversation.backends.base import (
    ContextTooLong,
    ModelError,
    ModelRejected,
    is_context_overflow,
)
from sovereign.conversation.backends.embedded.backend import _model_error
from sovereign.conversation.backends.openai import http as openai_http

from .conftest import OFF


@pytest.mark.parametrize(
    "message",
    [
        "Requested tokens (9001) exceed context window of 8192",  # llama-cpp-python
        "the request exceeds the available context size, try increasing it",  # llama-server
    ],
)
def test_the_runtimes_overflow_messages_are_recognised(message):
    assert is_context_overflow(message)
    assert isinstance(_model_error(ValueError(message)), ContextTooLong)


def test_other_runtime_errors_stay_plain_model_errors():
    assert not is_context_overflow("llama_decode returned -1")
    error = _model_error(RuntimeError("llama_decode returned -1"))
    assert type(error) is ModelError


def test_the_openai_backend_maps_an_overflow_answer():
    body = '{"error": {"code": 400, "message": "the request exceeds the available context size"}}'
    with pytest.raises(ContextTooLong):
        openai_http._check_status(400, body)
    with pytest.raises(ModelRejected) as caught:
        openai_http._check_status(500, '{"error": {"message": "Failed to parse input"}}')
    assert not isinstance(caught.value, ContextTooLong)


async def test_the_turn_loop_does_not_retry_an_overflow(world):
    loop, backend = world.loop([ContextTooLong("exceed context window"), "never asked"])
    with pytest.raises(TurnFailed) as failed:
        await loop.process_turn(
            [{"role": "user", "content": "hello"}], policy=OFF, owner="s1"
        )
    assert isinstance(failed.value.error, ContextTooLong)
    assert len(backend.requests) == 1
