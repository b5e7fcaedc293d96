"""GET|POST /conversation/policy and GET /audit/summary through the real app."""

from __future__ import annotations

import asyncio
import json

POLICY = "/api/v1/conversation/policy"


async def test_policy_defaults_to_off_and_round_trips(signed_in):
    get = await signed_in.client.get(POLICY, headers=signed_in.headers())
    assert get.json() == {"web_search_enabled": False}
    post = await signed_in.post(POLICY, {"web_search_enabled": True})
    assert post.json() == {"web_search_enabled": True}
    stored = json.loads(signed_in.app.state.services.policy.path.read_text())
    assert stored == {"web_search_enabled": True}


async def test_corrupt_policy_file_reads_as_off_and_is_logged(signed_in, caplog):
    path = signed_in.app.state.services.policy.path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"web_search_enabled": "yes"}')
    get = await signed_in.client.get(POLICY, headers=signed_in.headers())
    assert get.json() == {"web_search_enabled": False}
    assert "web search treated as off" in caplog.text
    response = await signed_in.message({"message": "search for this"})
    assert response.json()["pending_confirmation"] is None


async def test_concurrent_toggles_through_the_api_leave_a_whole_file(signed_in):
    values = [i % 2 == 0 for i in range(40)]
    responses = await asyncio.gather(
        *(signed_in.post(POLICY, {"web_search_enabled": value}) for value in values)
    )
    assert all(r.status_code == 200 for r in responses)
    directory = signed_in.app.state.services.policy.path.parent
    assert [p.name for p in directory.iterdir() if p.name.startswith("policy")] == ["policy.json"]
    assert not [p for p in directory.iterdir() if p.name.endswith(".tmp")]
    final = (await signed_in.client.get(POLICY, headers=signed_in.headers())).json()
    assert final["web_search_enabled"] in (True, False)
    assert json.loads((directory / "policy.json").read_text()) == final


async def test_audit_summary_counts_a_confirmation_flow(signed_in):
    await signed_in.set_policy(True)
    asked = await signed_in.message({"message": "first"})
    token = asked.json()["pending_confirmation"]["token"]
    await signed_in.message({"confirmation": {"token": token, "approve": True}})
    asked = await signed_in.message({"message": "second"})
    token = asked.json()["pending_confirmation"]["token"]
    await signed_in.message({"confirmation": {"token": token, "approve": False}})
    await signed_in.set_policy(False)
    await signed_in.message({"message": "third"})

    response = await signed_in.client.get(
        "/api/v1/audit/summary", params={"days": 1}, headers=signed_in.headers()
    )
    assert response.status_code == 200
    summary = response.json()
    counts = summary["capabilities"]["web.search"]
    assert counts["proposed"] == 3
    assert counts["confirmation_requested"] == 2
    assert counts["approved"] == 1 and counts["executed"] == 1
    assert counts["denied"] == 1
    assert counts["refused_by_policy"] == 1
    assert "first" not in response.text and "second" not in response.text


async def test_audit_summary_rejects_a_bad_window(signed_in):
    for days in ("0", "-3", "abc", "3651"):
        response = await signed_in.client.get(
            "/api/v1/audit/summary", params={"days": days}, headers=signed_in.headers()
        )
        assert response.status_code == 422
        assert response.json()["error"]["code"] == "INVALID_REQUEST"
