"""Known browsers: their own sign-in budget needs both halves, and survives a restart.

A browser the owner signed in from holds a device cookie and, in its page's storage,
a device key. The cookie reaches any port of the name (a port hop hands it to a
stranger); the key does not. Only both together name the browser's own budget.
"""

from __future__ import annotations

import json
import stat

import pytest

from sovereign.service.devices import DEVICE_COOKIE, MAX_DEVICES, KnownDevices
from sovereign.service.throttle import FREE_ATTEMPTS, OWNER_BUDGET
from tests.fakes.clock import FakeClock

from .harness import PASSWORD, _client, build_harness


async def lock_the_owner_budget(app) -> None:
    async with _client(app, "127.0.0.66") as guesser:
        for i in range(FREE_ATTEMPTS + 3):
            await guesser.post("/api/v1/auth/login", json={"password": f"guess {i}"})
    assert app.state.services.throttle.retry_after(OWNER_BUDGET) > 0


async def test_a_stolen_device_cookie_alone_counts_as_a_stranger(signed_in):
    await lock_the_owner_budget(signed_in.app)
    async with _client(signed_in.app, "127.0.0.5") as thief:
        thief.cookies.set(DEVICE_COOKIE, signed_in.client.cookies.get(DEVICE_COOKIE))
        refused = await thief.post("/api/v1/auth/login", json={"password": PASSWORD})
        assert refused.status_code == 429  # the shared budget, locked: no budget of its own
    owner = await signed_in.login(PASSWORD)
    assert owner.status_code == 200


@pytest.mark.parametrize("key", ["", "x", "A" * 43])
async def test_a_wrong_or_missing_device_key_counts_as_a_stranger(signed_in, key):
    await lock_the_owner_budget(signed_in.app)
    signed_in.device_key = key
    assert (await signed_in.login(PASSWORD)).status_code == 429


async def test_the_halves_of_two_browsers_do_not_combine(signed_in):
    async with _client(signed_in.app) as second:
        other = await second.post("/api/v1/auth/login", json={"password": PASSWORD})
        other_key = other.json()["device_key"]
        assert other_key and other_key != signed_in.device_key
    await lock_the_owner_budget(signed_in.app)
    signed_in.device_key = other_key  # this browser's cookie, the other browser's key
    assert (await signed_in.login(PASSWORD)).status_code == 429


async def test_a_device_key_that_is_too_long_is_refused_as_bad_input(signed_in):
    response = await signed_in.client.post(
        "/api/v1/auth/login", json={"password": PASSWORD, "device_key": "k" * 129}
    )
    assert response.status_code == 422


async def test_the_owners_browser_signs_in_after_a_restart_under_a_guessing_storm(tmp_path):
    before = build_harness(tmp_path, clock=FakeClock())
    async with before.client:
        await before.sign_in()
        await lock_the_owner_budget(before.app)
        cookies, key = dict(before.client.cookies), before.device_key
    after = build_harness(tmp_path, clock=FakeClock(start=5.0))  # a new process, a new clock
    async with after.client:
        await lock_the_owner_budget(after.app)  # the guesser goes on after the restart
        after.client.cookies.update(cookies)
        after.device_key = key
        signed = await after.login(PASSWORD)
        assert signed.status_code == 200, signed.text
        assert signed.json()["device_key"] is None  # still known: nothing new handed out


def test_the_stored_records_are_private_digests_only(tmp_path):
    devices = KnownDevices(lambda: "g1", data_dir=tmp_path)
    cookie, key = devices.remember()
    path = tmp_path / "known-browsers.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    text = path.read_text()
    assert cookie not in text and key not in text
    assert [p.name for p in tmp_path.iterdir()] == ["known-browsers.json"]  # no temp file left


def test_the_number_of_stored_browsers_is_bounded(tmp_path):
    devices = KnownDevices(lambda: "g1", data_dir=tmp_path)
    credentials = [devices.remember() for _ in range(MAX_DEVICES + 8)]
    stored = json.loads((tmp_path / "known-browsers.json").read_text())["browsers"]
    assert len(stored) == MAX_DEVICES
    reloaded = KnownDevices(lambda: "g1", data_dir=tmp_path)
    assert reloaded.budget(*credentials[-1]) and reloaded.budget(*credentials[7]) is None


def test_a_reloaded_browser_expires_by_the_wall_clock_and_the_password(tmp_path):
    wall = [1_000_000.0]
    devices = KnownDevices(
        lambda: "g1", data_dir=tmp_path, wall_clock=lambda: wall[0], lifetime_seconds=100
    )
    credential = devices.remember()
    wall[0] += 99
    assert KnownDevices(lambda: "g1", data_dir=tmp_path, wall_clock=lambda: wall[0]).budget(
        *credential
    )
    assert KnownDevices(lambda: "g2", data_dir=tmp_path).budget(*credential) is None
    wall[0] += 1
    late = KnownDevices(lambda: "g1", data_dir=tmp_path, wall_clock=lambda: wall[0])
    assert late.budget(*credential) is None


@pytest.mark.parametrize("content", ["{", '{"browsers": [{"digest": "x"}]}', "[]"])
def test_a_corrupt_file_forgets_the_browsers_and_is_replaced(tmp_path, caplog, content):
    path = tmp_path / "known-browsers.json"
    path.write_text(content)
    path.chmod(0o600)
    devices = KnownDevices(lambda: "g1", data_dir=tmp_path)
    assert "known browsers forgotten" in caplog.text
    credential = devices.remember()
    assert KnownDevices(lambda: "g1", data_dir=tmp_path).budget(*credential)


def test_a_file_others_can_read_is_not_trusted(tmp_path):
    devices = KnownDevices(lambda: "g1", data_dir=tmp_path)
    credential = devices.remember()
    (tmp_path / "known-browsers.json").chmod(0o644)
    assert KnownDevices(lambda: "g1", data_dir=tmp_path).budget(*credential) is None
