"""Every write the service cannot make is a 503 with a sentence, never a 500, never lost state.

On a real tmpfs that is full or read-only (skipped where mounting is not
allowed), and with a data directory whose parts are in the wrong shape.
"""

from __future__ import annotations

import errno
import json
import os

import pytest
from argon2 import PasswordHasher
from fastapi import FastAPI

from sovereign.service.atomic import remove_orphans
from sovereign.service.errors import install_error_handlers
from sovereign.service.owner import OwnerAccount
from tests.fakes.tmpfs import fill, mounted_tmpfs, remount

from .harness import PASSWORD, _client, build_harness

MESSAGE = "/api/v1/conversation/message"
POLICY = "/api/v1/conversation/policy"


@pytest.fixture
async def on_tmpfs(tmp_path):
    """The real app whose data directory is a 256 KiB tmpfs."""
    with mounted_tmpfs(tmp_path / "data", "256k") as data_dir:
        harness = build_harness(data_dir)
        async with harness.client:
            yield harness


def assert_503_with_a_sentence(response, code, *words):
    assert response.status_code == 503, response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert error["message"].endswith(".") and len(error["message"].split()) > 8
    for word in words:
        assert word in error["message"]


async def test_first_run_setup_on_a_full_disk_is_a_503_and_the_link_still_works(on_tmpfs):
    filler = fill(on_tmpfs.data_dir)
    token = on_tmpfs.app.state.services.owner.setup_token()
    body = {"setup_token": token, "password": PASSWORD}
    response = await on_tmpfs.client.post("/api/v1/auth/setup", json=body)
    assert_503_with_a_sentence(response, "PASSWORD_NOT_SAVED", "full")
    assert not (on_tmpfs.data_dir / "console-auth.json").exists()
    filler.unlink()
    assert (await on_tmpfs.client.post("/api/v1/auth/setup", json=body)).status_code == 200


async def test_a_policy_write_on_a_full_disk_is_a_503_and_the_old_setting_stays(on_tmpfs):
    await on_tmpfs.sign_in()
    await on_tmpfs.set_policy(True)
    fill(on_tmpfs.data_dir)
    response = await on_tmpfs.post(POLICY, {"web_search_enabled": False})
    assert_503_with_a_sentence(response, "POLICY_NOT_SAVED", "full", "old one still applies")
    read = await on_tmpfs.client.get(POLICY, headers=on_tmpfs.headers())
    assert read.json() == {"web_search_enabled": True}


def executing_searches(data_dir):
    text = (data_dir / "capabilities" / "audit.jsonl").read_text()
    return sum(json.loads(line)["outcome"] == "executing" for line in text.splitlines())


async def search_and_approve(harness, words, cards=None):
    """Ask, and approve the card (appended to ``cards``); when the ask itself could not
    be recorded there is no card, and the turn's own answer is returned."""
    asked = (await harness.message({"message": words})).json()
    pending = asked["pending_confirmation"]
    if pending is None:
        return asked
    if cards is not None:
        cards.append(pending)
    reply = await harness.message({"confirmation": {"token": pending["token"], "approve": True}})
    assert reply.status_code == 200, reply.text
    return reply.json()


async def test_as_the_disk_fills_no_search_leaves_without_its_executing_record(on_tmpfs):
    await on_tmpfs.sign_in()
    await on_tmpfs.set_policy(True)
    recorded_before_sent = []
    on_tmpfs.searxng.on_request = lambda: recorded_before_sent.append(
        executing_searches(on_tmpfs.data_dir)
    )
    filler = fill(on_tmpfs.data_dir)
    receipts = []
    cards = []
    while len(receipts) < 60 and not any(r.get("error_code") for r in receipts):
        words = f"solar {len(receipts)}"
        receipts.extend((await search_and_approve(on_tmpfs, words, cards))["receipts"])
    refused = [r for r in receipts if r.get("error_code") == "AUDIT_UNAVAILABLE"]
    assert refused and refused[0]["outcome"] == "refused", "the disk never filled up"
    sent = len(on_tmpfs.searxng.queries)
    assert sent == sum(r["outcome"] == "executed" for r in receipts)
    assert recorded_before_sent == list(range(1, sent + 1)), "a search left before its record"
    framed = json.loads(on_tmpfs.backend.requests[-1].messages[-1]["content"])
    # The household is told plainly that nothing ran; why (a full disk) is the owner's
    # to read, in Activity and sovereign doctor.
    assert framed["message"] == (
        "I didn't do it, because I can't keep the record of what I do right now."
    )
    filler.unlink()
    after = await search_and_approve(on_tmpfs, "solar again")
    assert after["receipts"][0]["outcome"] == "executed"
    assert recorded_before_sent[-1] == sent + 1
    # the records the full disk refused were kept and written: Activity tells what was shown
    summary = await on_tmpfs.client.get(
        "/api/v1/audit/summary", params={"days": 1}, headers=on_tmpfs.headers()
    )
    counts = summary.json()["capabilities"]["web.search"]
    asked = len(cards) + 1  # a proposal whose ask could not be recorded showed no card
    assert (counts["confirmation_requested"], counts["approved"]) == (asked, asked)
    assert (counts["executed"], counts["refused_other"]) == (sent + 1, len(refused))
    assert counts["outcome_unknown"] == 0


async def test_on_a_read_only_disk_every_write_is_a_503_and_searches_do_not_run(on_tmpfs):
    await on_tmpfs.sign_in()
    await on_tmpfs.set_policy(True)
    pending = (await on_tmpfs.message({"message": "solar panels"})).json()["pending_confirmation"]
    remount(on_tmpfs.data_dir, "ro")
    try:
        response = await on_tmpfs.post(POLICY, {"web_search_enabled": False})
        assert_503_with_a_sentence(response, "POLICY_NOT_SAVED", "read-only")
        token = pending["token"]
        reply = await on_tmpfs.message({"confirmation": {"token": token, "approve": True}})
        assert reply.json()["receipts"][0]["error_code"] == "AUDIT_UNAVAILABLE"
        assert on_tmpfs.searxng.queries == []
        health = await on_tmpfs.client.get("/healthz")
        assert health.status_code == 200
    finally:
        remount(on_tmpfs.data_dir, "rw")


async def test_sign_in_succeeds_when_the_hash_upgrade_cannot_be_written(tmp_path):
    with mounted_tmpfs(tmp_path / "data", "256k") as data_dir:
        old = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
        OwnerAccount(data_dir, old).set_password(PASSWORD)
        newer = OwnerAccount(data_dir, PasswordHasher(time_cost=2, memory_cost=1024, parallelism=1))
        stored = (data_dir / "console-auth.json").read_text()
        remount(data_dir, "ro")
        try:
            assert newer.verify(PASSWORD)  # needs a rehash, which cannot be written
        finally:
            remount(data_dir, "rw")
        assert (data_dir / "console-auth.json").read_text() == stored


async def test_a_data_directory_in_the_wrong_shape_is_a_503_not_a_500(signed_in):
    capabilities = signed_in.data_dir / "capabilities"
    capabilities.rename(signed_in.data_dir / "moved") if capabilities.exists() else None
    capabilities.write_text("a file where the policy directory should be")
    response = await signed_in.post(POLICY, {"web_search_enabled": True})
    assert_503_with_a_sentence(response, "POLICY_NOT_SAVED")


@pytest.mark.parametrize("fault", [errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EIO])
async def test_any_refused_write_reaching_the_error_handlers_is_a_503(fault):
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/write")
    async def write() -> None:
        raise OSError(fault, os.strerror(fault))

    async with _client(app) as client:
        response = await client.get("/write")
    assert_503_with_a_sentence(response, "STORAGE_UNAVAILABLE")


def test_start_up_removes_the_temp_files_killed_writes_left_and_nothing_else(tmp_path):
    capabilities = tmp_path / "capabilities"
    capabilities.mkdir()
    orphan = capabilities / ".policy.json.k3j2_x9.tmp"
    owner_orphan = tmp_path / ".console-auth.json.ab12cd.tmp"
    in_flight = capabilities / ".policy.json.fresh.tmp"
    kept = [capabilities / "policy.json", capabilities / "audit.jsonl", tmp_path / "notes.tmp"]
    for path in (orphan, owner_orphan, in_flight, *kept):
        path.write_text("{}")
    for path in (orphan, owner_orphan):
        os.utime(path, (1_000_000, 1_000_000))
    build_harness(tmp_path)
    assert not orphan.exists() and not owner_orphan.exists()
    assert in_flight.exists(), "a temp file younger than a minute may belong to a live write"
    assert all(path.exists() for path in kept)


def test_an_unreadable_directory_has_no_orphans_to_remove(tmp_path):
    assert remove_orphans(tmp_path / "absent") == []
