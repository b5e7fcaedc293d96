"""Activity's counts equal what the household was shown, through crashes, torn lines and restarts.

Every response the household gets is tallied the way a person reading the
Console would (a card = asked; a receipt = what happened), and the audit
summary served to Activity must say the same.
"""

from __future__ import annotations

import json
from collections import Counter

from sovereign.conversation.backends.scripted import propose
from sovereign.executor import TTL_SECONDS
from tests.spoken import last_spoken

from .harness import build_harness

SUMMARY = "/api/v1/audit/summary"
RECEIPT_COUNTERS = {"executed": "executed", "failed": "failed", "denied": "denied",
                    "expired": "expired"}


def model(messages, tools):
    """"health …" checks the device; anything else is searched for; a tool result is answered."""
    last = last_spoken(messages)
    if last["role"] == "tool":
        return f"answer after {json.loads(last['content']).get('status')}"
    if tools and last["content"].startswith("health"):
        return propose("system_health", {})
    return propose("web_search", {"query": last["content"]}) if tools else "plain answer"


class Household:
    """Talks to the app and tallies what it was shown, per capability and counter."""

    def __init__(self, harness):
        self.harness = harness
        self.shown: dict[str, Counter[str]] = {}

    def tally(self, capability, counter):
        self.shown.setdefault(capability, Counter())[counter] += 1

    async def send(self, body):
        response = await self.harness.message(body)
        assert response.status_code == 200, response.text
        reply = response.json()
        for receipt in reply["receipts"]:
            self.tally(receipt["capability"], _counter_of(receipt))
        if reply["pending_confirmation"]:
            self.tally(reply["pending_confirmation"]["capability"], "confirmation_requested")
        return reply

    async def ask(self, words):
        return await self.send({"message": words})

    async def answer(self, pending, approve):
        reply = await self.send({"confirmation": {"token": pending["token"], "approve": approve}})
        outcome = reply["receipts"][-1]["outcome"]
        if approve and outcome != "expired":  # an approval after expiry was shown as expired
            self.tally(pending["capability"], "approved")
        return reply


def _counter_of(receipt):
    if receipt["outcome"] in RECEIPT_COUNTERS:
        return RECEIPT_COUNTERS[receipt["outcome"]]
    policy = receipt.get("error_code") == "POLICY_DISABLED"
    return "refused_by_policy" if policy else "refused_other"


async def activity(harness):
    response = await harness.client.get(SUMMARY, params={"days": 1}, headers=harness.headers())
    assert response.status_code == 200, response.text
    return response.json()


def without_zeros(counts):
    return {counter: n for counter, n in counts.items() if n and counter != "proposed"}


async def test_activity_counts_equal_what_the_household_was_shown(tmp_path):
    first = build_harness(tmp_path, script=model)
    async with first.client:
        await first.sign_in()
        household = Household(first)
        for n in range(10):
            await household.ask(f"health {n}")
        with (tmp_path / "capabilities" / "audit.jsonl").open("ab") as audit:
            audit.write(b'{"time":"2026-12-01T10:00:00Z","capability":"system.he')  # torn
        for n in range(10, 20):
            await household.ask(f"health {n}")
        await household.ask("solar panels while search is off")
        await first.set_policy(True)
        reply = await household.ask("solar panels")
        await household.answer(reply["pending_confirmation"], approve=True)
        reply = await household.ask("heat pumps")
        await household.answer(reply["pending_confirmation"], approve=False)
        reply = await household.ask("wind turbines")
        first.clock.advance(TTL_SECONDS + 1)
        await household.answer(reply["pending_confirmation"], approve=True)  # too late
        left_open = await household.ask("tidal power")  # then the service restarts
    household.tally("web.search", "expired")  # its card ran out while the service was down

    second = build_harness(tmp_path, script=model)
    async with second.client:
        await second.sign_in()
        summary = await activity(second)
    assert left_open["pending_confirmation"] is not None
    shown = {name: dict(counts) for name, counts in household.shown.items()}
    assert shown["system.health"] == {"executed": 20}
    counted = {name: without_zeros(c) for name, c in summary["capabilities"].items()}
    assert counted == shown
    assert summary["unreadable_lines"] == 0 and summary["set_aside_lines"] == 1
