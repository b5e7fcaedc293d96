"""The sign-in budget holds on loopback: per account and per known browser, never per
address (DESIGN §5; docs/decisions/sign-in-throttle.md)."""

from __future__ import annotations

import pytest

from sovereign.service.devices import DEVICE_COOKIE, DEVICE_SECONDS
from sovereign.service.throttle import (
    BASE_SECONDS,
    FREE_ATTEMPTS,
    MAX_SECONDS,
    OWNER_BUDGET,
    SETUP_BUDGET,
    SETUP_MAX_SECONDS,
    minimum_seconds,
)

from .harness import PASSWORD, _client

DOCUMENTED_SECONDS_FOR_100_GUESSES = 76_623
"""docs/decisions/sign-in-throttle.md: 5 free, then 1 s doubling to a 900 s cap."""
MAX_TRIES = 10_000
"""Bound on every guessing loop below."""


def addresses(count: int) -> list[str]:
    """``count`` loopback source addresses, as any local process may pick them."""
    return [f"127.{i % 7}.{i * 13 % 251}.{i + 1}" for i in range(count)]


async def guess_until_done(harness, clients, guesses: int, path: str, body) -> float:
    """Make ``guesses`` wrong attempts round-robin over ``clients``, waiting out every
    429 on the fake clock; returns the fake seconds it took."""
    start, made = harness.clock.now, 0
    for _ in range(MAX_TRIES):
        if made == guesses:
            break
        response = await clients[made % len(clients)].post(path, json=body(made))
        if response.status_code == 429:
            harness.clock.advance(int(response.headers["Retry-After"]))
            continue
        assert response.status_code in (401, 403), response.text
        made += 1
    assert made == guesses
    return harness.clock.now - start


def test_the_documented_figure_is_the_budget_of_the_code():
    budget = minimum_seconds(100, free=FREE_ATTEMPTS, base=BASE_SECONDS, cap=MAX_SECONDS)
    assert budget == DOCUMENTED_SECONDS_FOR_100_GUESSES
    assert minimum_seconds(6, free=FREE_ATTEMPTS, base=BASE_SECONDS, cap=MAX_SECONDS) == 0
    steady = minimum_seconds(1100, free=5, base=1, cap=900) - minimum_seconds(
        1000, free=5, base=1, cap=900
    )
    assert steady == 100 * MAX_SECONDS  # then one guess per 15 minutes, for ever


async def test_100_wrong_guesses_over_20_loopback_addresses_take_the_whole_budget(signed_in):
    clients = [_client(signed_in.app, address) for address in addresses(20)]
    try:
        elapsed = await guess_until_done(
            signed_in, clients, 100, "/api/v1/auth/login", lambda i: {"password": f"guess {i}"}
        )
    finally:
        for client in clients:
            await client.aclose()
    assert elapsed >= DOCUMENTED_SECONDS_FOR_100_GUESSES
    assert elapsed < DOCUMENTED_SECONDS_FOR_100_GUESSES + 100  # Retry-After rounds up by < 1 s


async def test_the_owners_own_browser_signs_in_at_once_while_the_owner_budget_is_locked(
    signed_in,
):
    assert signed_in.client.cookies.get(DEVICE_COOKIE)  # handed out at setup
    async with _client(signed_in.app, "127.0.0.99") as guesser:
        for i in range(20):
            await guesser.post("/api/v1/auth/login", json={"password": f"guess {i}"})
        assert (
            await guesser.post("/api/v1/auth/login", json={"password": PASSWORD})
        ).status_code == 429
    throttle = signed_in.app.state.services.throttle
    assert throttle.retry_after(OWNER_BUDGET) > 0
    await signed_in.post("/api/v1/auth/logout", None)
    again = await signed_in.login(PASSWORD)
    assert again.status_code == 200
    assert "set-cookie" in again.headers and DEVICE_COOKIE not in again.headers["set-cookie"]
    assert again.json()["device_key"] is None  # known already: no new credential


async def test_a_known_browsers_typos_count_against_its_own_budget_only(signed_in):
    for i in range(8):
        await signed_in.login(f"typo {i}")
    services = signed_in.app.state.services
    assert services.throttle.retry_after(OWNER_BUDGET) == 0
    blocked = await signed_in.login(PASSWORD)
    assert blocked.status_code == 429
    async with _client(signed_in.app) as new_browser:
        ok = await new_browser.post("/api/v1/auth/login", json={"password": PASSWORD})
        assert ok.status_code == 200 and new_browser.cookies.get(DEVICE_COOKIE)


@pytest.mark.parametrize("forged", ["", "x", "A" * 43, "device:owner", "owner"])
async def test_a_forged_device_cookie_counts_against_the_owner_budget(signed_in, forged):
    async with _client(signed_in.app, "127.0.0.5") as guesser:
        guesser.cookies.set(DEVICE_COOKIE, forged)
        for i in range(FREE_ATTEMPTS + 1):
            await guesser.post("/api/v1/auth/login", json={"password": f"guess {i}"})
    assert signed_in.app.state.services.throttle.retry_after(OWNER_BUDGET) > 0


async def test_a_device_is_forgotten_after_30_days_and_on_a_password_change(signed_in):
    devices = signed_in.app.state.services.devices
    token = signed_in.client.cookies.get(DEVICE_COOKIE)
    assert devices.budget(token, signed_in.device_key)
    signed_in.clock.advance(DEVICE_SECONDS - 1)
    assert devices.budget(token, signed_in.device_key)
    signed_in.clock.advance(1)
    assert devices.budget(token, signed_in.device_key) is None
    fresh = devices.remember()
    signed_in.app.state.services.owner.set_password("a brand new password")
    assert devices.budget(*fresh) is None


async def test_wrong_setup_tokens_from_any_address_share_one_short_budget(harness):
    clients = [_client(harness.app, address) for address in addresses(12)]
    try:
        elapsed = await guess_until_done(
            harness,
            clients,
            30,
            "/api/v1/auth/setup",
            lambda i: {"setup_token": f"guess-{i}", "password": PASSWORD},
        )
    finally:
        for client in clients:
            await client.aclose()
    expected = minimum_seconds(30, free=FREE_ATTEMPTS, base=BASE_SECONDS, cap=SETUP_MAX_SECONDS)
    assert expected <= elapsed < expected + 30
    throttle = harness.app.state.services.setup_throttle
    wait = throttle.retry_after(SETUP_BUDGET)
    assert 0 < wait <= SETUP_MAX_SECONDS  # the real link is held back a minute at most
    harness.clock.advance(wait)
    await harness.sign_in()
