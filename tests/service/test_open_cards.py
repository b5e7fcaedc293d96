"""Cards a closed tab left behind: listed for their session, answerable, withdrawable."""

from __future__ import annotations

import json

PENDING = "/api/v1/conversation/pending"
WITHDRAW = "/api/v1/conversation/withdraw"


async def open_card(harness) -> dict:
    await harness.set_policy(True)
    response = await harness.message({"message": "solar panels"})
    return response.json()["pending_confirmation"]


async def listed(harness) -> list[dict]:
    response = await harness.client.get(PENDING, headers=harness.headers())
    assert response.status_code == 200
    return response.json()["pending"]


def audit_outcomes(harness) -> list[str]:
    path = harness.data_dir / "capabilities" / "audit.jsonl"
    return [json.loads(line)["outcome"] for line in path.read_text().splitlines()]


async def test_a_card_nobody_answered_is_listed_for_its_session_only(signed_in):
    card = await open_card(signed_in)
    [shown] = await listed(signed_in)
    assert shown["token"] == card["token"] and shown["arguments"] == card["arguments"]
    signed_in.clock.advance(30)
    assert (await listed(signed_in))[0]["expires_in_seconds"] == card["expires_in_seconds"] - 30
    other = await signed_in.another_client()
    async with other:
        login = await other.post("/api/v1/auth/login", json={"password": "correct horse battery"})
        csrf = login.json()["csrf_token"]
        theirs = await other.get(PENDING, headers={"X-CSRF-Token": csrf})
    assert theirs.json() == {"pending": []}


async def test_an_answered_card_is_no_longer_listed(signed_in):
    card = await open_card(signed_in)
    answer = await signed_in.message({"confirmation": {"token": card["token"], "approve": True}})
    assert answer.status_code == 200
    assert await listed(signed_in) == []


async def test_an_expired_card_is_no_longer_listed(signed_in):
    await open_card(signed_in)
    signed_in.clock.advance(121)
    assert await listed(signed_in) == []


async def test_withdrawing_a_card_denies_it_runs_nothing_and_leaves_nothing_waiting(signed_in):
    card = await open_card(signed_in)
    asked_model = len(signed_in.backend.requests)
    response = await signed_in.post(WITHDRAW, {"token": card["token"]})
    assert response.status_code == 200
    assert response.json()["receipts"] == [
        {
            "capability": "web.search",
            "locality": "external",
            "outcome": "denied",
            "name": "Web search",
        }
    ]
    assert signed_in.searxng.queries == []
    assert len(signed_in.backend.requests) == asked_model  # the model was not asked again
    assert audit_outcomes(signed_in)[-1] == "denied"
    assert await listed(signed_in) == []
    late = await signed_in.message({"confirmation": {"token": card["token"], "approve": True}})
    assert late.status_code == 400 and late.json()["error"]["code"] == "INVALID_CONFIRMATION"
    again = await signed_in.post(WITHDRAW, {"token": card["token"]})
    assert again.status_code == 400 and again.json()["error"]["code"] == "INVALID_CONFIRMATION"
