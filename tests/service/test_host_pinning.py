"""Host and Origin pinning through the real app: refusals come before any route,
session or throttle, and leave nothing behind (DESIGN §5)."""

from __future__ import annotations

import json

import pytest

from sovereign.service.sessions import COOKIE_NAME

from .harness import CONSOLE, PASSWORD, _client

FOREIGN_HOSTS = [
    "evil.example:8092",
    "printer.local:8092",
    "x.internal:8092",
    "127.0.0.1.nip.io:8092",
    "",
    " ",
    "sovereign.localhost",  # no port: port 80, not the service's
    "sovereign.localhost:8093",
    "sovereign.localhost:80",
    "sovereign.localhost.:8092",  # a trailing dot is another origin to a browser
    "localhost.:8092",
    "evil.sovereign.localhost:8092",
    "sovereign.localhost.evil.example:8092",
    "sovereign.localhost:8092:8092",
    "sovereign.localhost:08092",
    "sovereign.localhost:+8092",
    "sovereign.localhost:8092 x",
    "sovereign.localhost:\u00b2092",  # a Latin-1 digit that int() would accept
    "user@sovereign.localhost:8092",
    "sovereign.localhost%3a8092",
    "127.1:8092",
    "2130706433:8092",
    "0x7f.0.0.1:8092",
    "127.0.0.2:8092",
    "[::ffff:127.0.0.1]:8092",
    "[0:0:0:0:0:0:0:1]:8092",
    "[::1:8092",
    "::1:8092",
    "[::1]8092",
    "0.0.0.0:8092",
]
ALLOWED_HOSTS = [
    "sovereign.localhost:8092",
    "SOVEREIGN.localhost:8092",
    "localhost:8092",
    "127.0.0.1:8092",
    "[::1]:8092",
]


async def raw_request(app, method: str, path: str, headers: list[tuple[bytes, bytes]]):
    """One request straight into the ASGI app, with exactly these headers (none added)."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.0",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8092),
    }
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message):
        sent.append(message)

    await app(scope, receive, send)
    start = sent[0]
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], dict(start["headers"]), json.loads(body) if body else None


def refused_for_host(response) -> bool:
    return response.status_code == 421 and response.json()["error"]["code"] == "HOST_NOT_ALLOWED"


@pytest.mark.parametrize("host", FOREIGN_HOSTS)
async def test_a_foreign_host_is_refused_on_every_kind_of_route(harness, host):
    for method, path in [("GET", "/"), ("GET", "/healthz"), ("GET", "/api/v1/auth/state")]:
        response = await harness.client.request(
            method, path, headers={"Host": host.encode("latin-1")}
        )
        assert refused_for_host(response), (path, response.status_code)
        assert "sovereign.localhost:8092" in response.json()["error"]["message"]


@pytest.mark.parametrize("host", ALLOWED_HOSTS)
async def test_the_services_own_names_are_served(harness, host):
    origin = "http://" + host.lower()
    response = await harness.client.get(
        "/api/v1/auth/state", headers={"Host": host, "Origin": origin}
    )
    assert response.status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        [],  # HTTP/1.0 without a Host
        [(b"host", b"sovereign.localhost:8092"), (b"host", b"evil.example:8092")],
        [(b"host", b"sovereign.localhost:8092"), (b"host", b"sovereign.localhost:8092")],
    ],
    ids=["missing", "two different", "two equal"],
)
async def test_a_missing_or_repeated_host_header_is_refused(harness, headers):
    status, _, body = await raw_request(harness.app, "GET", "/api/v1/auth/state", headers)
    assert status == 421 and body["error"]["code"] == "HOST_NOT_ALLOWED"


@pytest.mark.parametrize("host", FOREIGN_HOSTS[:6])
async def test_setup_under_a_foreign_host_changes_nothing(harness, host):
    owner = harness.app.state.services.owner
    token = owner.setup_token()
    response = await harness.client.post(
        "/api/v1/auth/setup",
        json={"setup_token": token, "password": PASSWORD},
        headers={"Host": host, "Origin": f"http://{host}"},
    )
    assert refused_for_host(response)
    assert "set-cookie" not in response.headers
    assert not owner.is_set_up() and owner.setup_token() == token
    assert len(harness.app.state.services.sessions) == 0
    await harness.sign_in()  # the real link still works, at once


async def test_sign_in_under_a_foreign_host_neither_signs_in_nor_counts_a_failure(signed_in):
    services = signed_in.app.state.services
    sessions_before = len(services.sessions)
    async with _client(signed_in.app, origin="http://rebound.example:8092") as hostile:
        right = await hostile.post("/api/v1/auth/login", json={"password": PASSWORD})
        assert refused_for_host(right) and "set-cookie" not in right.headers
        for attempt in range(100):
            wrong = await hostile.post("/api/v1/auth/login", json={"password": f"guess {attempt}"})
            assert refused_for_host(wrong)
    assert len(services.sessions) == sessions_before
    async with _client(signed_in.app) as owner:
        assert (
            await owner.post("/api/v1/auth/login", json={"password": PASSWORD})
        ).status_code == 200


async def test_a_rebound_page_holding_the_cookie_reaches_no_route(signed_in):
    """DNS rebinding: the browser sends the cookie of the rebound name, if any, to us."""
    cookie = signed_in.client.cookies.get(COOKIE_NAME)
    async with _client(signed_in.app, origin="http://rebound.example:8092") as hostile:
        hostile.cookies.set(COOKIE_NAME, cookie)
        state = await hostile.get("/api/v1/auth/state")
        switch = await hostile.post(
            "/api/v1/conversation/policy",
            json={"web_search_enabled": True},
            headers={"X-CSRF-Token": signed_in.csrf},
        )
        message = await hostile.post(
            "/api/v1/conversation/message",
            json={"message": "search for this"},
            headers={"X-CSRF-Token": signed_in.csrf},
        )
    assert refused_for_host(state) and "csrf_token" not in state.text
    assert refused_for_host(switch) and refused_for_host(message)
    assert not signed_in.app.state.services.policy.path.exists()
    assert signed_in.backend.requests == []


CROSS_ORIGINS = [
    "http://evil.example",
    "null",
    "http://127.0.0.1:8092",  # another of the service's names is another origin
    "http://localhost:8092",
    "http://127.0.0.1:8080",  # a sibling service's page: same site, not same origin
    "http://sovereign.localhost:8093",
    "http://sovereign.localhost",
    "https://sovereign.localhost:8092",
    "http://sovereign.localhost:8092/",
    "http://sovereign.localhost:8092/path",
    "sovereign.localhost:8092",
    "HTTP://sovereign.localhost:8092",
    "http://sovereign.localhost.:8092",
    "http://user@sovereign.localhost:8092",
    "",
]


@pytest.mark.parametrize("origin", CROSS_ORIGINS)
async def test_a_state_change_from_another_origin_is_refused_before_the_route(signed_in, origin):
    response = await signed_in.client.post(
        "/api/v1/conversation/policy",
        json={"web_search_enabled": True},
        headers=signed_in.headers(Origin=origin),
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "ORIGIN_NOT_ALLOWED"
    assert not signed_in.app.state.services.policy.path.exists()
    assert not any(name.startswith("access-control-") for name in response.headers)


@pytest.mark.parametrize("origin", CROSS_ORIGINS[:5])
async def test_sign_in_from_another_origin_is_refused_and_not_counted(signed_in, origin):
    for _ in range(20):
        response = await signed_in.client.post(
            "/api/v1/auth/login", json={"password": "not it"}, headers={"Origin": origin}
        )
        assert response.json()["error"]["code"] == "ORIGIN_NOT_ALLOWED"
    assert (
        await signed_in.client.post("/api/v1/auth/login", json={"password": PASSWORD})
    ).status_code == 200


async def test_without_origin_a_state_change_needs_sec_fetch_site_same_origin(signed_in):
    path, body = "/api/v1/conversation/policy", {"web_search_enabled": True}
    del signed_in.client.headers["Origin"]
    bare = await signed_in.client.post(path, json=body, headers=signed_in.headers())
    assert bare.json()["error"]["code"] == "ORIGIN_NOT_ALLOWED"
    for site in ("cross-site", "same-site", "none", "SAME-ORIGIN"):
        marked = await signed_in.client.post(
            path, json=body, headers=signed_in.headers(**{"Sec-Fetch-Site": site})
        )
        assert marked.json()["error"]["code"] == "ORIGIN_NOT_ALLOWED", site
    assert not signed_in.app.state.services.policy.path.exists()
    same = await signed_in.client.post(
        path, json=body, headers=signed_in.headers(**{"Sec-Fetch-Site": "same-origin"})
    )
    assert same.json() == {"web_search_enabled": True}


async def test_reads_carry_no_origin_but_a_foreign_one_is_refused(signed_in):
    del signed_in.client.headers["Origin"]
    plain = await signed_in.client.get("/api/v1/auth/state", headers=signed_in.headers())
    assert plain.json()["signed_in"] is True
    foreign = await signed_in.client.get(
        "/api/v1/auth/state", headers=signed_in.headers(Origin="http://evil.example")
    )
    assert foreign.status_code == 403 and "signed_in" not in foreign.text


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
async def test_the_api_refuses_what_a_browser_marks_as_from_another_site(signed_in, site):
    del signed_in.client.headers["Origin"]
    response = await signed_in.client.get(
        "/api/v1/auth/state",
        headers=signed_in.headers(**{"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "no-cors"}),
    )
    assert response.status_code == 403 and "signed_in" not in response.text
    page = await signed_in.client.get("/healthz", headers={"Sec-Fetch-Site": site})
    assert page.status_code == 200  # a link from elsewhere to a page is fine


async def test_a_cors_preflight_gets_no_cors_headers(harness):
    response = await harness.client.options(
        "/api/v1/auth/login",
        headers={
            "Origin": "http://evil.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )
    assert response.status_code == 403
    assert not any(name.startswith("access-control-") for name in response.headers)


async def test_two_origin_headers_are_refused(signed_in):
    headers = [
        (b"host", b"sovereign.localhost:8092"),
        (b"origin", CONSOLE.encode()),
        (b"origin", b"http://evil.example"),
    ]
    status, _, body = await raw_request(signed_in.app, "POST", "/api/v1/auth/login", headers)
    assert status == 403 and body["error"]["code"] == "ORIGIN_NOT_ALLOWED"
