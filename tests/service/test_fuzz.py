"""Fuzzed request bodies never produce a 5xx, and never lose stored state (hypothesis)."""

from __future__ import annotations

import asyncio
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .harness import build_harness

ROUTES = [
    "/api/v1/conversation/message",
    "/api/v1/conversation/policy",
    "/api/v1/auth/login",
    "/api/v1/auth/setup",
]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=50),
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.text(max_size=12), children, max_size=5),
    max_leaves=20,
)
KEYS = st.sampled_from(
    ["message", "history", "confirmation", "token", "approve", "reason", "role", "content",
     "web_search_enabled", "password", "setup_token"]
)
SHAPED = st.recursive(
    JSON,
    lambda children: st.dictionaries(KEYS, children, max_size=4) | st.lists(children, max_size=3),
    max_leaves=15,
)


class Driver:
    """One app on one event loop for all examples; a signed-in session with web search on."""

    def __init__(self, data_dir) -> None:
        self.loop = asyncio.new_event_loop()
        self.harness = build_harness(data_dir, lambda messages, tools: "fine")
        self.run(self.harness.sign_in())
        self.run(self.harness.set_policy(True))

    def run(self, awaitable):
        return self.loop.run_until_complete(awaitable)

    def post_raw(self, path: str, content: bytes, content_type: str) -> int:
        headers = self.harness.headers(**{"Content-Type": content_type})
        response = self.run(self.harness.client.post(path, content=content, headers=headers))
        assert "error" in response.json() or response.status_code < 400
        return response.status_code

    def close(self) -> None:
        self.run(self.harness.client.aclose())
        self.loop.close()


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    built = Driver(tmp_path_factory.mktemp("fuzz"))
    yield built
    built.close()


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(route=st.sampled_from(ROUTES), body=SHAPED)
def test_json_bodies_never_produce_a_5xx(driver, route, body):
    status = driver.post_raw(route, json.dumps(body).encode(), "application/json")
    assert status < 500
    policy = json.loads(driver.harness.app.state.services.policy.path.read_text())
    assert isinstance(policy["web_search_enabled"], bool)


@FUZZ
@given(
    route=st.sampled_from(ROUTES),
    raw=st.binary(max_size=300),
    content_type=st.sampled_from(
        ["application/json", "text/plain", "application/x-www-form-urlencoded", ""]
    ),
)
def test_arbitrary_bytes_never_produce_a_5xx(driver, route, raw, content_type):
    assert driver.post_raw(route, raw, content_type) < 500
