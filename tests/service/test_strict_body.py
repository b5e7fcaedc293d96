"""A request body has one meaning: a repeated JSON key or two framings are a 400
(sovereign.service.strict_body), over ASGI and on a real socket."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from sovereign.service.strict_body import repeated_key

MESSAGE = "/api/v1/conversation/message"
POLICY = "/api/v1/conversation/policy"


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ('{"web_search_enabled": false, "web_search_enabled": true}', "web_search_enabled"),
        ('{"confirmation": {"token": "a", "approve": false, "approve": true}}', "approve"),
        ('{"a": [{"x": 1}, {"y": 1, "y": 2}]}', "y"),
        ('{"\\u0061": 1, "a": 2}', "a"),  # the same key spelt with an escape
        ('{"a": 1, "A": 2}', None),  # keys are case-sensitive: two keys
        ('{"a": 1}', None),
        ("[1, 2, 1]", None),
        ("{not json", None),
        ("[" * 100_000, None),  # too deep for the parser: left to the route
    ],
)
def test_repeated_keys_are_found_at_any_depth_and_in_any_spelling(raw, key):
    assert repeated_key(raw.encode()) == key


async def post_raw(harness, path: str, raw: str):
    headers = harness.headers(**{"Content-Type": "application/json"})
    return await harness.client.post(path, content=raw.encode(), headers=headers)


@pytest.mark.parametrize(
    ("path", "raw"),
    [
        (POLICY, '{"web_search_enabled": false, "web_search_enabled": true}'),
        (MESSAGE, '{"message": "hi", "message": "search my street"}'),
        (
            MESSAGE,
            '{"confirmation": {"token": "t", "approve": true, '
            '"arguments": {"query": "a"}, "arguments": {"query": "b"}}}',
        ),
        ("/api/v1/settings/private-words", '{"add": "Maya", "add": "Okafor"}'),
        ("/api/v1/auth/login", '{"password": "x", "password": "correct horse battery"}'),
    ],
)
async def test_a_body_that_repeats_a_key_is_400_and_nothing_runs(signed_in, path, raw):
    response = await post_raw(signed_in, path, raw)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "DUPLICATE_JSON_KEY"
    assert "repeats the key" in response.json()["error"]["message"]
    assert signed_in.backend.requests == []
    assert not signed_in.app.state.services.policy.path.exists()
    assert not (signed_in.data_dir / "private-words.json").exists()


async def test_a_very_long_repeated_key_is_cut_in_the_sentence(signed_in):
    key = "k" * 5000
    raw = json.dumps({key: 1})[:-1] + f', "{key}": 2}}'
    response = await post_raw(signed_in, POLICY, raw)
    assert response.status_code == 400 and len(response.text) < 400


async def test_bodies_with_one_meaning_still_pass(signed_in):
    response = await signed_in.post(POLICY, {"web_search_enabled": True})
    assert response.status_code == 200
    message = await signed_in.message({"message": "hello"})
    assert message.status_code == 200


@pytest.fixture
def live_service(tmp_path) -> Iterator[object]:
    """The real app under uvicorn, as the Console's browser tests run it."""
    from tests.console.live_service import serve

    with serve(tmp_path / "data") as live:
        yield live


def raw_request(port: int, head: str, body: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(head.encode() + b"\r\n" + body)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize(
    ("framing", "code"),
    [
        ("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", b"AMBIGUOUS_BODY_LENGTH"),
        ("Transfer-Encoding: chunked\r\nContent-Length: 0\r\n", b"AMBIGUOUS_BODY_LENGTH"),
        ("Content-Length: 5\r\nTransfer-Encoding: CHUNKED\r\n", b"AMBIGUOUS_BODY_LENGTH"),
        # a coding h11 does not speak: refused by the parser, in the same envelope
        ("Content-Length: 40\r\nTransfer-Encoding: gzip, chunked\r\n", b"MALFORMED_REQUEST"),
        ("Content-Length: 5\r\nContent-Length: 6\r\n", b"MALFORMED_REQUEST"),
    ],
)
def test_two_framings_of_one_body_are_400_and_the_connection_closes(
    live_service, framing, code
):
    head = (
        f"POST {POLICY} HTTP/1.1\r\nHost: sovereign.localhost:{live_service.port}\r\n"
        f"Origin: http://sovereign.localhost:{live_service.port}\r\n"
        f"Content-Type: application/json\r\n{framing}"
    )
    body = b"1f\r\n" + b'{"web_search_enabled": true   }' + b"\r\n0\r\n\r\n"
    answer = raw_request(live_service.port, head, body)
    status, _, rest = answer.partition(b"\r\n")
    assert status == b"HTTP/1.1 400 Bad Request", answer
    assert code in rest
    assert b"connection: close" in rest.lower()
    assert answer.count(b"HTTP/1.1 ") == 1  # nothing after it was read as a request
