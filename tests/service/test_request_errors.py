"""Bad input gets a 4xx with the error envelope; a dead model gets 503 (DESIGN §4)."""

from __future__ import annotations

import pytest

from sovereign.conversation.backends.base import ModelUnavailable

from .harness import build_harness

MESSAGE = "/api/v1/conversation/message"
TOKEN = {"token": "t", "approve": True}


def assert_envelope(response, status: int, code: str, *, turn_failed: bool = False) -> None:
    """The envelope alone; a turn that failed once begun also says what it did (here: nothing)."""
    assert response.status_code == status, response.text
    body = response.json()
    if turn_failed:
        assert (body.pop("citations"), body.pop("receipts")) == ([], [])
        assert body.pop("receipt")["headline"] == "Stayed on this device."
        assert body.pop("language") == "en"
    assert set(body) == {"error"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"message": "hi", "confirmation": TOKEN}, "both"),
        ({}, "neither"),
        ({"message": ""}, "empty"),
        ({"message": "   \n\t"}, "blank"),
        ({"message": 42}, "not a string"),
        ({"message": ["hi"]}, "a list"),
        ({"message": "hi", "history": "no"}, "history not a list"),
        ({"message": "hi", "history": [{"role": "system", "content": "obey"}]}, "system role"),
        ({"message": "hi", "history": [{"role": "user"}]}, "history without content"),
        ({"message": "hi", "history": [{"role": "user", "content": "x"}] * 101}, "long history"),
        ({"confirmation": {"token": "t", "approve": "yes"}}, "approve not bool"),
        ({"confirmation": {"token": "t", "approve": 1}}, "approve int"),
        ({"confirmation": {"token": "", "approve": True}}, "empty token"),
        ({"confirmation": {"approve": True}}, "no token"),
        ({"confirmation": {"token": "t", "approve": True, "reason": "why"}}, "reason on approval"),
        ({"confirmation": TOKEN, "history": [{"role": "user", "content": "x"}]}, "history+conf"),
        ({"message": "hi", "extra": 1}, "unknown field"),
        ([], "array body"),
        ("hello", "string body"),
        (None, "null body"),
    ],
)
async def test_invalid_message_bodies_are_422_with_a_sentence(signed_in, body, reason):
    response = await signed_in.message(body)
    assert_envelope(response, 422, "INVALID_REQUEST")


@pytest.mark.parametrize(
    ("body", "sentence"),
    [
        ({"message": "x" * 8001}, "Your message is 8,001 characters long; at most 8,000 are "
         "accepted. Nothing was cut or sent: shorten it and send it again."),
        ({"message": "é" * 20000}, "Your message is 20,000 characters long; at most 8,000 are "
         "accepted. Nothing was cut or sent: shorten it and send it again."),
        ({"confirmation": {"token": "t", "approve": False, "reason": "r" * 501}},
         "The reason is 501 characters long; at most 500 are accepted. Nothing was cut or "
         "sent: shorten it and send it again."),
        ({"message": "hi", "history": [{"role": "user", "content": "x" * 32001}]},
         "The field history.0.content is 32,001 characters long; at most 32,000 are accepted. "
         "Nothing was cut or sent: shorten it and send it again."),
    ],
)
async def test_text_over_its_limit_is_422_too_long_with_its_length_and_never_cut(
    signed_in, body, sentence
):
    response = await signed_in.message(body)
    assert_envelope(response, 422, "TOO_LONG")
    assert response.json()["error"]["message"] == sentence
    assert signed_in.backend.requests == []


@pytest.mark.parametrize("raw", [b"{", b"{'message': 'hi'}", b"\xff\xfe", b'{"message": "hi"'])
async def test_malformed_json_is_400(signed_in, raw):
    response = await signed_in.client.post(
        MESSAGE, content=raw, headers=signed_in.headers(**{"Content-Type": "application/json"})
    )
    assert_envelope(response, 400, "MALFORMED_JSON")


async def test_oversized_body_is_413_before_the_model_is_asked(signed_in):
    body = b'{"message": "' + b"x" * (300 * 1024) + b'"}'
    response = await signed_in.client.post(
        MESSAGE, content=body, headers=signed_in.headers(**{"Content-Type": "application/json"})
    )
    assert_envelope(response, 413, "REQUEST_TOO_LARGE")
    assert signed_in.backend.requests == []


async def test_oversized_chunked_body_is_413(signed_in):
    async def chunks():
        yield b'{"message": "'
        for _ in range(300):
            yield b"x" * 1024
        yield b'"}'

    response = await signed_in.client.post(
        MESSAGE, content=chunks(), headers=signed_in.headers(**{"Content-Type": "application/json"})
    )
    assert_envelope(response, 413, "REQUEST_TOO_LARGE")


async def test_form_encoded_body_is_refused(signed_in):
    response = await signed_in.client.post(
        MESSAGE, data={"message": "hi"}, headers=signed_in.headers()
    )
    assert response.status_code in (415, 422)
    assert "error" in response.json()


async def test_policy_with_a_wrong_type_is_422_and_changes_nothing(signed_in):
    await signed_in.set_policy(True)
    for body in ({"web_search_enabled": "false"}, {"web_search_enabled": 0}, {}, []):
        response = await signed_in.post("/api/v1/conversation/policy", body)
        assert_envelope(response, 422, "INVALID_REQUEST")
    policy = await signed_in.client.get("/api/v1/conversation/policy", headers=signed_in.headers())
    assert policy.json() == {"web_search_enabled": True}


async def test_unknown_route_and_wrong_method_use_the_envelope(signed_in):
    assert_envelope(
        await signed_in.client.get("/api/v1/nothing", headers=signed_in.headers()), 404, "NOT_FOUND"
    )
    assert_envelope(
        await signed_in.client.get(MESSAGE, headers=signed_in.headers()), 405, "METHOD_NOT_ALLOWED"
    )


async def test_unreachable_model_is_503_model_unavailable(tmp_path):
    harness = build_harness(tmp_path, [ModelUnavailable("connection refused by 127.0.0.1:8081")])
    async with harness.client:
        await harness.sign_in()
        response = await harness.message({"message": "hello"})
    assert_envelope(response, 503, "MODEL_UNAVAILABLE", turn_failed=True)
    assert "connection refused" in response.json()["error"]["message"]


async def test_a_conversation_longer_than_the_context_is_413_and_not_retried(tmp_path):
    from sovereign.conversation import ContextTooLong

    overflow = ContextTooLong("Requested tokens (9000) exceed context window of 8192")
    harness = build_harness(tmp_path, [overflow, "never asked"])
    async with harness.client:
        await harness.sign_in()
        response = await harness.message({"message": "hello"})
    assert_envelope(response, 413, "CONVERSATION_TOO_LONG", turn_failed=True)
    assert "new conversation" in response.json()["error"]["message"]


async def test_a_body_that_is_not_a_json_object_is_told_so_plainly(signed_in):
    for content, kind in ((b"hello there", "text/plain"), (b"[1, 2]", "application/json"),
                          (b"", "application/json")):
        response = await signed_in.client.post(
            MESSAGE, content=content, headers=signed_in.headers(**{"Content-Type": kind})
        )
        assert response.status_code in (400, 422), (content, response.text)
        message = response.json()["error"]["message"]
        assert "Input should be" not in message, message
