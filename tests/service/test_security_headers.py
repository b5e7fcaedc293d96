"""Security headers on every response: the Console, its assets, the API, refusals and
failures alike (DESIGN §5)."""

from __future__ import annotations

import pytest

from sovereign.service.security_headers import CONTENT_SECURITY_POLICY, secure_headers

from .harness import _client

EXPECTED = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}

REQUESTS = [
    ("GET", "/", {}),
    ("GET", "/console.js", {}),
    ("GET", "/console.css", {}),
    ("GET", "/no-such-file.js", {}),
    ("GET", "/healthz", {}),
    ("GET", "/api/docs", {}),
    ("GET", "/api/openapi.json", {}),
    ("GET", "/api/v1/auth/state", {}),
    ("GET", "/api/v1/conversation/policy", {}),  # 401
    ("DELETE", "/api/v1/auth/state", {}),  # 405
    ("POST", "/api/v1/auth/login", {"Origin": "http://evil.example"}),  # 403
    ("GET", "/api/v1/auth/state", {"Host": "evil.example:8092"}),  # 421
]


@pytest.mark.parametrize(("method", "path", "headers"), REQUESTS, ids=lambda r: str(r))
async def test_every_response_carries_the_security_headers(harness, method, path, headers):
    response = await harness.client.request(method, path, headers=headers)
    for name, value in EXPECTED.items():
        assert response.headers.get_list(name) == [value], (name, response.status_code)
    assert not any(name.startswith("access-control-") for name in response.headers)
    if path.startswith("/api/"):
        assert response.headers.get_list("cache-control") == ["no-store"]


def test_the_policy_forbids_inline_script_framing_plugins_and_base():
    directives = dict(d.strip().split(" ", 1) for d in CONTENT_SECURITY_POLICY.split(";"))
    assert directives["default-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["base-uri"] == "'none'"
    assert directives["form-action"] == "'self'"
    assert directives["object-src"] == "'none'"
    assert directives["frame-src"] == directives["child-src"] == "'none'"  # frames nothing
    assert "unsafe" not in CONTENT_SECURITY_POLICY
    assert not {"script-src", "style-src", "img-src", "connect-src"} & directives.keys()


async def test_an_unexpected_failure_answers_500_with_the_headers_too(harness):
    async def boom() -> None:
        raise RuntimeError("a bug")

    harness.app.add_api_route("/boom", boom)
    async with _client(harness.app) as client:
        client._transport.raise_app_exceptions = False  # as uvicorn: answer, don't raise
        response = await client.get("/boom")
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "INTERNAL_ERROR"
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY


def test_a_routes_own_headers_of_the_same_names_and_any_cors_header_are_replaced():
    headers = [
        (b"content-type", b"text/plain"),
        (b"X-Frame-Options", b"ALLOWALL"),
        (b"cache-control", b"max-age=600"),
        (b"access-control-allow-origin", b"*"),
        (b"Access-Control-Allow-Credentials", b"true"),
    ]
    api = dict(secure_headers(headers, "/api/v1/x"))
    page = dict(secure_headers(headers, "/index.html"))
    assert api[b"x-frame-options"] == b"DENY" and b"X-Frame-Options" not in api
    assert api[b"cache-control"] == b"no-store"
    assert page[b"cache-control"] == b"max-age=600"  # outside /api/ a route's caching stays
    assert not any(name.lower().startswith(b"access-control") for name in (*api, *page))
