"""console-auth through the real app: setup, sign-in, sessions, CSRF on every guarded route."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from sovereign.service.sessions import COOKIE_NAME, IDLE_SECONDS, SECURE_COOKIE_NAME

from .harness import PASSWORD, _client

GUARDED = [
    ("GET", "/api/v1/conversation/policy", None),
    ("POST", "/api/v1/conversation/policy", {"web_search_enabled": True}),
    ("POST", "/api/v1/conversation/message", {"message": "hello"}),
    ("GET", "/api/v1/audit/summary?days=7", None),
    ("POST", "/api/v1/auth/logout", None),
]
IDS = [f"{method} {path}" for method, path, _ in GUARDED]


async def _call(client: httpx.AsyncClient, method: str, path: str, body, headers=None):
    return await client.request(method, path, json=body, headers=headers or {})


async def test_healthz_needs_no_sign_in(harness):
    response = await harness.client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok" and response.json()["version"]


async def test_openapi_document_is_served(harness):
    response = await harness.client.get("/api/openapi.json")
    assert "/api/v1/conversation/message" in response.json()["paths"]


async def test_state_before_setup_asks_for_setup(harness):
    response = await harness.client.get("/api/v1/auth/state")
    assert response.json() == {"setup_required": True, "signed_in": False}


@pytest.mark.parametrize(("method", "path", "body"), GUARDED, ids=IDS)
async def test_every_guarded_route_without_a_session_is_401(harness, method, path, body):
    response = await _call(harness.client, method, path, body, {"X-CSRF-Token": "anything"})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "NOT_SIGNED_IN"


@pytest.mark.parametrize(("method", "path", "body"), GUARDED, ids=IDS)
@pytest.mark.parametrize("csrf", [None, "", "wrong", "other-session"])
async def test_every_guarded_route_needs_this_sessions_csrf_token(
    signed_in, method, path, body, csrf
):
    if csrf == "other-session":
        async with _client(signed_in.app) as other:
            login = await other.post("/api/v1/auth/login", json={"password": PASSWORD})
            csrf = login.json()["csrf_token"]
    headers = {} if csrf is None else {"X-CSRF-Token": csrf}
    response = await _call(signed_in.client, method, path, body, headers)
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "CSRF_FAILED"
    assert signed_in.backend.requests == []
    assert not signed_in.app.state.services.policy.path.exists()


@pytest.mark.parametrize(("method", "path", "body"), GUARDED, ids=IDS)
async def test_every_guarded_route_works_with_session_and_csrf(signed_in, method, path, body):
    response = await _call(signed_in.client, method, path, body, signed_in.headers())
    assert response.status_code in (200, 204), response.text


async def test_setup_sets_a_strict_httponly_cookie_and_returns_the_csrf_token(harness):
    token = harness.app.state.services.owner.setup_token()
    response = await harness.client.post(
        "/api/v1/auth/setup", json={"setup_token": token, "password": PASSWORD}
    )
    assert response.status_code == 200
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE_NAME}=")
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    assert "Secure" not in cookie  # plain http on loopback
    tab = response.json()["csrf_token"]
    assert len(tab) >= 43 and response.json()["device_key"]
    state = (await harness.client.get("/api/v1/auth/state")).json()
    assert state == {"setup_required": False, "signed_in": False}  # the cookie alone: no
    headers = {"X-CSRF-Token": tab}
    state = (await harness.client.get("/api/v1/auth/state", headers=headers)).json()
    assert state == {"setup_required": False, "signed_in": True}


async def test_over_tls_the_cookie_is_secure_and_host_prefixed(harness):
    async with _client(harness.app, origin="https://sovereign.localhost:8092") as client:
        token = harness.app.state.services.owner.setup_token()
        response = await client.post(
            "/api/v1/auth/setup", json={"setup_token": token, "password": PASSWORD}
        )
        cookie = response.headers["set-cookie"]
        assert cookie.startswith(f"{SECURE_COOKIE_NAME}=")
        assert "Secure" in cookie and "Path=/" in cookie and "domain" not in cookie.lower()
        client.headers["X-CSRF-Token"] = response.json()["csrf_token"]
        state = (await client.get("/api/v1/auth/state")).json()
        assert state["signed_in"] is True
        # the bare name is not read over TLS: a cookie planted over plain HTTP cannot
        # stand in for the __Host- one
        client.cookies.clear()
        client.cookies.set(COOKIE_NAME, cookie.split(";")[0].split("=", 1)[1])
        assert (await client.get("/api/v1/auth/state")).json()["signed_in"] is False


async def test_setup_with_a_wrong_token_is_refused_and_setup_happens_once(harness):
    wrong = await harness.client.post(
        "/api/v1/auth/setup", json={"setup_token": "guess", "password": PASSWORD}
    )
    assert wrong.status_code == 403
    assert wrong.json()["error"]["code"] == "INVALID_SETUP_TOKEN"
    await harness.sign_in()
    again = await harness.client.post(
        "/api/v1/auth/setup", json={"setup_token": "guess", "password": "another password"}
    )
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "ALREADY_SET_UP"


async def test_setup_refuses_a_short_password(harness):
    token = harness.app.state.services.owner.setup_token()
    response = await harness.client.post(
        "/api/v1/auth/setup", json={"setup_token": token, "password": "short"}
    )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "WEAK_PASSWORD"
    assert harness.app.state.services.owner.setup_token() == token  # still usable


async def test_login_before_setup_is_409(harness):
    response = await harness.client.post("/api/v1/auth/login", json={"password": PASSWORD})
    assert response.json()["error"]["code"] == "SETUP_REQUIRED"


async def test_wrong_password_is_401_and_sets_no_cookie(signed_in):
    async with _client(signed_in.app, "192.0.2.7") as other:
        response = await other.post("/api/v1/auth/login", json={"password": "not it at all"})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "BAD_CREDENTIALS"
    assert "set-cookie" not in response.headers


async def test_repeated_failures_back_off_for_the_account_whatever_the_address(signed_in):
    async with _client(signed_in.app, "127.0.0.7") as attacker:
        for _ in range(5):
            failed = await attacker.post("/api/v1/auth/login", json={"password": "guess-guess"})
            assert failed.status_code == 401
        sixth = await attacker.post("/api/v1/auth/login", json={"password": "x" * 9})
        assert sixth.status_code == 401  # the failure that starts the back-off
        blocked = await attacker.post("/api/v1/auth/login", json={"password": PASSWORD})
        assert blocked.status_code == 429
        assert blocked.json()["error"]["code"] == "TOO_MANY_ATTEMPTS"
        assert int(blocked.headers["Retry-After"]) >= 1
        async with _client(signed_in.app, "127.0.0.8") as neighbour:
            also = await neighbour.post("/api/v1/auth/login", json={"password": PASSWORD})
            assert also.status_code == 429  # another source address is the same guesser
        signed_in.clock.advance(2)
        assert (
            await attacker.post("/api/v1/auth/login", json={"password": PASSWORD})
        ).status_code == 200


async def test_parallel_guesses_cannot_slip_past_the_throttle(signed_in):
    async with _client(signed_in.app, "192.0.2.9") as attacker:
        responses = await asyncio.gather(
            *(
                attacker.post("/api/v1/auth/login", json={"password": f"guess-{i:04d}"})
                for i in range(30)
            )
        )
    codes = [r.status_code for r in responses]
    assert codes.count(401) == 6  # five free failures, then one that starts the back-off
    assert codes.count(429) == 24


async def test_logout_invalidates_the_session_on_the_server(signed_in):
    cookie = signed_in.client.cookies.get(COOKIE_NAME)
    response = await signed_in.post("/api/v1/auth/logout", None)
    assert response.status_code == 204
    signed_in.client.cookies.set(COOKIE_NAME, cookie)  # a stolen copy of the cookie
    state = (await signed_in.client.get("/api/v1/auth/state", headers=signed_in.headers()))
    assert state.json() == {"setup_required": False, "signed_in": False}
    again = await signed_in.client.get("/api/v1/conversation/policy", headers=signed_in.headers())
    assert again.status_code == 401


async def test_login_renews_the_cookie_and_keeps_the_other_tabs_signed_in(signed_in):
    old_cookie = signed_in.client.cookies.get(COOKIE_NAME)
    old_csrf = signed_in.csrf
    await signed_in.sign_in()  # a second tab of the same browser signs in
    assert signed_in.client.cookies.get(COOKIE_NAME) != old_cookie
    assert signed_in.csrf != old_csrf
    first_tab = await signed_in.client.get(
        "/api/v1/conversation/policy", headers={"X-CSRF-Token": old_csrf}
    )
    assert first_tab.status_code == 200  # the browser sends the renewed cookie from every tab
    signed_in.client.cookies.set(COOKIE_NAME, old_cookie)
    response = await signed_in.client.get(
        "/api/v1/conversation/policy", headers={"X-CSRF-Token": old_csrf}
    )
    assert response.status_code == 401


async def test_idle_session_expires(signed_in):
    signed_in.clock.advance(IDLE_SECONDS + 1)
    response = await signed_in.client.get(
        "/api/v1/conversation/policy", headers=signed_in.headers()
    )
    assert response.status_code == 401


async def test_password_change_signs_every_session_out(signed_in):
    signed_in.app.state.services.owner.set_password("a brand new password")
    response = await signed_in.client.get(
        "/api/v1/conversation/policy", headers=signed_in.headers()
    )
    assert response.status_code == 401


async def test_console_files_are_served_at_the_root(tmp_path):
    from sovereign.service.app import create_app
    from sovereign.service.settings import Settings

    console = tmp_path / "console"
    console.mkdir()
    (console / "index.html").write_text("<!doctype html><title>Sovereign</title>")
    app = create_app(Settings(data_dir=tmp_path, backend="scripted"), console_dir=console)
    async with _client(app) as client:
        index = await client.get("/")
        missing = await client.get("/nothing.js")
        wrong_method = await client.get("/api/v1/conversation/message")
    assert index.status_code == 200 and "<title>Sovereign</title>" in index.text
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"
    assert wrong_method.status_code in (401, 405)


async def test_each_wrong_password_says_the_tries_left_and_then_the_pause(signed_in):
    async with _client(signed_in.app, "127.0.0.9") as guesser:
        said = []
        for _ in range(7):
            failed = await guesser.post("/api/v1/auth/login", json={"password": "guess-guess"})
            assert failed.status_code in (401, 429)
            said.append((failed.status_code, failed.json()["error"]["message"]))
            signed_in.clock.advance(0)  # no time passes: the pause is still on
    assert said[:6] == [
        (401, "That password is not right; 4 more wrong tries before sign-in pauses."),
        (401, "That password is not right; 3 more wrong tries before sign-in pauses."),
        (401, "That password is not right; 2 more wrong tries before sign-in pauses."),
        (401, "That password is not right; 1 more wrong try before sign-in pauses."),
        (401, "That password is not right; the next wrong password pauses sign-in."),
        (401, "That password is not right; sign-in is paused for 1 second."),
    ]
    assert said[6] == (
        429, "Sign-in is paused after several wrong passwords; try again in 1 second."
    )


async def test_a_pause_is_given_in_seconds_in_the_body_and_the_header(signed_in):
    async with _client(signed_in.app, "127.0.0.10") as guesser:
        for _ in range(6):
            failed = await guesser.post("/api/v1/auth/login", json={"password": "guess-guess"})
        signed_in.clock.advance(1.5)
        seventh = await guesser.post("/api/v1/auth/login", json={"password": "guess-guess"})
    assert failed.json()["retry_after_seconds"] == 1 and failed.headers["Retry-After"] == "1"
    assert seventh.status_code == 401
    assert seventh.json()["error"]["message"].endswith("sign-in is paused for 2 seconds.")
    assert seventh.json()["tries_left"] == 0
