"""A cookie is not a session: whoever holds only the Console's cookies can read no
secret and change nothing (docs/decisions/cookie-is-not-a-session.md).

Browsers send a name's cookies to every port of it, so a program listening on
another port of sovereign.localhost can be sent both cookies. These tests give a
second client exactly those cookies and nothing else.
"""

from __future__ import annotations

import pytest

from .harness import _client

GUARDED = [
    ("GET", "/api/v1/conversation/policy", None),
    ("POST", "/api/v1/conversation/policy", {"web_search_enabled": True}),
    ("POST", "/api/v1/conversation/message", {"message": "search for my secrets"}),
    ("GET", "/api/v1/settings/private-words", None),
    ("POST", "/api/v1/settings/private-words", {"remove": "Maya"}),
    ("POST", "/api/v1/settings/sites", {"mode": "off", "allow": [], "block": []}),
    ("GET", "/api/v1/audit/summary", None),
    ("POST", "/api/v1/auth/logout", None),
]


async def thief_of(harness):
    """A client holding the signed-in browser's cookies, as a port hop hands them over."""
    thief = _client(harness.app, "127.0.0.1")
    for name, value in harness.client.cookies.items():
        thief.cookies.set(name, value)
    return thief


async def test_the_sign_in_state_never_hands_out_the_tab_secret(signed_in):
    async with await thief_of(signed_in) as thief:
        state = await thief.get("/api/v1/auth/state")
    assert state.json() == {"setup_required": False, "signed_in": False}
    assert signed_in.csrf not in state.text


@pytest.mark.parametrize(("method", "path", "body"), GUARDED, ids=[p for _, p, _ in GUARDED])
@pytest.mark.parametrize("presented", [None, "", "guess", "cookie"])
async def test_the_cookies_alone_change_nothing(signed_in, method, path, body, presented):
    async with await thief_of(signed_in) as thief:
        cookie = next(iter(signed_in.client.cookies.values()))
        headers = {} if presented is None else {"X-CSRF-Token": presented}
        if presented == "cookie":
            headers["X-CSRF-Token"] = cookie  # the cookie's value as the secret: no
        response = await thief.request(method, path, json=body, headers=headers)
    assert response.status_code == 403, response.text
    assert response.json()["error"]["code"] == "CSRF_FAILED"
    assert not signed_in.app.state.services.policy.path.exists()
    assert signed_in.backend.requests == []


async def test_the_cookies_and_the_confirmation_token_cannot_approve(signed_in):
    await signed_in.set_policy(True)
    asked = await signed_in.message({"message": "where is Maya's school"})
    token = asked.json()["pending_confirmation"]["token"]
    async with await thief_of(signed_in) as thief:
        refused = await thief.post(
            "/api/v1/conversation/message",
            json={"confirmation": {"token": token, "approve": True}},
        )
        switched = await thief.post(
            "/api/v1/conversation/policy", json={"web_search_enabled": False}
        )
    assert refused.status_code == 403 and switched.status_code == 403
    assert signed_in.searxng.queries == []  # nothing left the device
    approved = await signed_in.message({"confirmation": {"token": token, "approve": True}})
    assert approved.status_code == 200  # the owner's card is still answerable
    assert len(signed_in.searxng.queries) == 1


async def test_a_stolen_cookie_dies_at_the_next_sign_in(signed_in):
    async with await thief_of(signed_in) as thief:
        await signed_in.sign_in()  # the owner signs in again (another tab, or later)
        thief.headers["X-CSRF-Token"] = signed_in.csrf  # even with a secret it learned
        response = await thief.get("/api/v1/conversation/policy")
    assert response.status_code == 401
