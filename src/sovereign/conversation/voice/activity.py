"""Activity's sentences: the audit summary told in words, in the household's language.

Activity (the Console's page of what the product did over some days) opens with a few
sentences about the period and ends the counts with notes about the audit log itself.
A period holds many turns, each in its own language, so there is no one answer to take
a language from: they are said in the household's (the caller passes its voice). The
sentences come from the conversation's catalog (context: their key), counts are
formatted by Babel and said with the language's plural forms, lists are joined by the
language's own pattern (CLDR, through Babel), and a note or repair about a capability
starts with its household name (:func:`~.receipts.capability_name`; one the product has
no name for stays as it is). On the wire they are the summary's ``said``:
``{"language", "sentences", "notes", "repairs"}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from babel.lists import format_list
from babel.numbers import format_decimal

from .catalogs import Voice
from .receipts import capability_name

PLURALS = {
    "activity_days": ("{n} day", "{n} days"),
    "activity_requests": ("{n} request", "{n} requests"),
    "activity_put": (
        "{n} request was put to you for approval (an edited request is put to you again)",
        "{n} requests were put to you for approval (an edited request is put to you again)",
    ),
    "activity_expired": (
        "{n} request went unanswered and expired: nothing was sent for it.",
        "{n} requests went unanswered and expired: nothing was sent for them.",
    ),
    "activity_ran": ("{n} ran", "{n} ran"),
    "activity_failed": ("{n} failed", "{n} failed"),
    "activity_unknown": (
        "{n} request started while the service stopped; whether it finished is unknown.",
        "{n} requests started while the service stopped; whether it finished is unknown.",
    ),
    "activity_may_have_left": (
        "{capability}: {n} call may have left — outcome unknown (the service stopped while "
        "it ran).",
        "{capability}: {n} calls may have left — outcome unknown (the service stopped while "
        "they ran).",
    ),
    "activity_waiting": (
        "{n} approval request waits for an answer; a request expires 2 minutes after it was "
        "asked.",
        "{n} approval requests wait for an answer; a request expires 2 minutes after it was "
        "asked.",
    ),
    "activity_clock_jumps": (
        "The device's clock jumped {n} time. Calls are placed by the time since the device "
        "started, so the jump moves none of them in or out of this period.",
        "The device's clock jumped {n} times. Calls are placed by the time since the device "
        "started, so the jumps move none of them in or out of this period.",
    ),
    "activity_set_aside": (
        "{n} damaged line of the audit log set aside in audit.jsonl.corrupt.",
        "{n} damaged lines of the audit log set aside in audit.jsonl.corrupt.",
    ),
    "activity_unreadable": (
        "{n} line of the audit log could not be read.",
        "{n} lines of the audit log could not be read.",
    ),
    "activity_repair": (
        "{capability} failed {n} time: {repair}",
        "{capability} failed {n} times: {repair}",
    ),
    "activity_lost": (
        "{n} record of the audit log lost while the device could not write it (its storage "
        "was full or read-only); the counts above miss it.",
        "{n} records of the audit log lost while the device could not write them (its "
        "storage was full or read-only); the counts above miss them.",
    ),
}
"""Sentences and parts that hold a count ``{n}``: singular and plural (English source)."""

SENTENCES = {
    "activity_suggested": "In the last {days}, the assistant suggested {requests}.",
    "activity_put_only": "{put}.",
    "activity_put_answered": "{put}: you {answers}.",
    "activity_answer:approved": "approved {n}",
    "activity_answer:edited": "edited {n}",
    "activity_answer:denied": "denied {n}",
    "activity_failed_before": "{failed} ({n} before anything left this device)",
    "activity_ran_sentence": "{outcomes}.",
    "activity_not_run": "Not run: {reasons}.",
    "activity_not_run:refused_by_policy": "{n} because a setting was off",
    "activity_not_run:rejected_target": "{n} because the address is not allowed",
    "activity_not_run:refused_other": "{n} for another reason",
}
"""Sentences and parts without a plural of their own (English source)."""

REPAIRS = {
    "searxng: unreachable": (
        "The device's search service (SearXNG) was not running. Start it with "
        "deploy/searxng/start-searxng (or systemctl start sovereign-searxng where its unit "
        "is installed), then run sovereign doctor."
    ),
    "searxng: timeout": (
        "The device's search service (SearXNG) did not answer in time. Check that it runs "
        "and the device's internet connection (sovereign doctor checks both)."
    ),
    "searxng: json_disabled": (
        "SearXNG refuses the JSON API: add json to search.formats in its settings.yml and "
        "restart it."
    ),
    "searxng: limiter": (
        "SearXNG's limiter refused the search: set server.limiter: false in its settings.yml "
        "and restart it (it serves only this device)."
    ),
    "searxng: all_engines_failed": (
        "Every search engine failed: check the device's internet connection; engines "
        "suspended after errors recover on their own within minutes."
    ),
}
"""The owner's repair for a failure, by the audit ``reason`` label the capability wrote
(English source; context ``activity_repair:<reason>``). Shown in Activity and by
``sovereign doctor``, never in the household's answer."""

_ANSWERS = ("approved", "edited", "denied")
_NOT_RUN = ("refused_by_policy", "rejected_target", "refused_other")


def say_activity(summary: Mapping[str, Any], voice: Voice) -> dict[str, Any]:
    """The audit ``summary`` (:func:`sovereign.service.audit_summary.summarize`'s shape)
    told in ``voice``'s language.

    Returns:
        ``{"language", "sentences", "notes", "repairs"}``: the sentences about the period
        (what the assistant suggested, what was put to the household and its answers,
        what expired, ran, failed, was not run, or has an unknown outcome; a sentence
        whose counts are all 0 is left out), the notes about the audit log (calls that
        may have left, cards waiting, clock jumps, damaged, unreadable or lost lines) and
        the owner's repairs (one line per capability and known failure reason, in the
        summary's order: the capability's household name, how often it failed and the
        repair; a reason without a known repair, or a count of 0, is left out).
    """
    totals = summary.get("totals") if isinstance(summary.get("totals"), Mapping) else {}
    count = _counter(totals)
    days = _number(summary.get("days"))
    say = _Sayer(voice)
    sentences = [
        say.sentence(
            "activity_suggested",
            days=say.count("activity_days", days),
            requests=say.count("activity_requests", count("proposed")),
        )
    ]
    if count("confirmation_requested"):
        put = say.count("activity_put", count("confirmation_requested"))
        answers = [say.sentence(f"activity_answer:{k}", n=say.num(count(k))) for k in _ANSWERS
                   if count(k)]  # fmt: skip
        if answers:
            sentences.append(say.sentence("activity_put_answered", put=put,
                                          answers=say.listed(answers)))  # fmt: skip
        else:
            sentences.append(say.sentence("activity_put_only", put=put))
    if count("expired"):
        sentences.append(say.count("activity_expired", count("expired")))
    outcomes = []
    if count("executed"):
        outcomes.append(say.count("activity_ran", count("executed")))
    if count("failed"):
        failed = say.count("activity_failed", count("failed"))
        if count("failed_nothing_left"):
            failed = say.sentence("activity_failed_before", failed=failed,
                                  n=say.num(count("failed_nothing_left")))  # fmt: skip
        outcomes.append(failed)
    if outcomes:
        sentences.append(say.sentence("activity_ran_sentence", outcomes=say.listed(outcomes)))
    reasons = [say.sentence(f"activity_not_run:{k}", n=say.num(count(k))) for k in _NOT_RUN
               if count(k)]  # fmt: skip
    if reasons:
        sentences.append(say.sentence("activity_not_run", reasons=say.listed(reasons)))
    if count("outcome_unknown"):
        sentences.append(say.count("activity_unknown", count("outcome_unknown")))
    return {
        "language": voice.language,
        "sentences": sentences,
        "notes": _notes(summary, say),
        "repairs": _repairs(summary, say),
    }


def _repairs(summary: Mapping[str, Any], say: _Sayer) -> list[str]:
    repairs = summary.get("repairs")
    lines = []
    for repair in repairs if isinstance(repairs, list) else []:
        if not isinstance(repair, Mapping) or repair.get("reason") not in REPAIRS:
            continue
        n = _number(repair.get("count"))
        if n:
            reason = str(repair["reason"])
            lines.append(say.count(
                "activity_repair", n,
                capability=capability_name(str(repair.get("capability")), say.voice),
                repair=say.voice.say(f"activity_repair:{reason}", REPAIRS[reason]),
            ))  # fmt: skip
    return lines


def _notes(summary: Mapping[str, Any], say: _Sayer) -> list[str]:
    notes = []
    left = summary.get("may_have_left")
    for capability, n in (left.items() if isinstance(left, Mapping) else []):
        if _number(n):
            called = capability_name(str(capability), say.voice)
            notes.append(say.count("activity_may_have_left", _number(n), capability=called))
    totals = summary.get("totals") if isinstance(summary.get("totals"), Mapping) else {}
    for key, n in (
        ("activity_waiting", _counter(totals)("awaiting")),
        ("activity_clock_jumps", _number(summary.get("clock_jumps"))),
        ("activity_set_aside", _number(summary.get("set_aside_lines"))),
        ("activity_unreadable", _number(summary.get("unreadable_lines"))),
        ("activity_lost", _number(summary.get("lost_records"))),
    ):
        if n:
            notes.append(say.count(key, n))
    return notes


class _Sayer:
    """Says :data:`SENTENCES` and :data:`PLURALS` in one voice, numbers by Babel."""

    def __init__(self, voice: Voice) -> None:
        self.voice = voice

    def num(self, n: int) -> str:
        return format_decimal(n, locale=self.voice.language)

    def count(self, key: str, n: int, **values: str) -> str:
        one, many = PLURALS[key]
        return self.voice.say_count(key, one, many, n, n=self.num(n), **values)

    def sentence(self, key: str, **values: str) -> str:
        return self.voice.say(key, SENTENCES[key], **values)

    def listed(self, items: list[str]) -> str:
        return format_list(items, locale=self.voice.language)


def _number(value: Any) -> int:
    """A count from the summary: a whole number of at least 0, else 0."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return 0
    return max(0, int(value))


def _counter(totals: Mapping[str, Any]) -> Callable[[str], int]:
    return lambda key: _number(totals.get(key))
