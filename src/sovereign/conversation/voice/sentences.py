"""The sentences the assistant says about calls that did not run, and about what it lacks.

Every sentence is in the assistant's voice ("I"), addressed to the person asking
("you"), and true whenever it is used, so a model that repeats it word for word
gives a correct answer and one that paraphrases it keeps its meaning. No sentence
is an instruction to the model, and none speaks of the household in the third
person (docs/decisions/answers-from-what-ran.md). The same sentences are the
plain answer when a model's own answer cannot be trusted (:mod:`.plain`).
"""

from __future__ import annotations

from dataclasses import dataclass

from sovereign.executor import ErrorCode


@dataclass(frozen=True)
class Activity:
    """How to speak of one capability: ``noun`` ("the web search") for "You declined
    …", ``didnt`` ("I didn't look it up") for "…, so …"."""

    noun: str
    didnt: str


_ACTIVITIES = {
    "web.search": Activity("the web search", "I didn't look it up"),
    "web.fetch": Activity("reading that web page", "I didn't read it"),
    "system.health": Activity("the device check", "I didn't check the device"),
    "pihole.summary": Activity("reading Pi-hole's totals", "I didn't check Pi-hole"),
    "home_assistant": Activity("the Home Assistant check", "I didn't check Home Assistant"),
}

_SWITCHED_OFF = {
    "external_enabled": (
        "Web search is switched off, so I can't search the web or read web pages for you. "
        "You can switch it on in the Console."
    ),
    "home_assistant_enabled": (
        "Home Assistant is switched off on this device, so I can't read your home's "
        'sensors, lights or locks. You can switch it on by setting "enabled" to true in '
        "its settings file, home-assistant.json."
    ),
}
_UNAVAILABLE = {
    "home_assistant": (
        "Home Assistant is not set up on this device, so I can't read your home's sensors, "
        "lights or locks."
    ),
    "pihole": "Pi-hole is not set up on this device, so I can't read its ad-blocking totals.",
}


_SUBJECTS = {
    "external_enabled": (
        "web_switched_off",
        "asks to search the web or read a web page, or asks for news, weather or prices",
    ),
    "home_assistant": (
        "home_assistant_{state}",
        "asks about this home's lights, locks, doors, sensors, thermostats or room temperatures",
    ),
    "pihole": ("pihole_{state}", "asks about ad blocking or the DNS queries of this network"),
}


def withheld_subject(capability: str, why: str, policy_key: str | None = None) -> tuple[str, str]:
    """A name for what a withheld ``capability`` stands for and the questions it would
    have served; ``why`` is ``"unavailable"`` or ``"switched_off"`` (its ``policy_key``).

    Returns:
        ``(name, subject)``: a model-safe name saying what is missing
        (``web_switched_off``, ``home_assistant_not_set_up``, ``garden_switched_off``
        for a family without words of its own)
        and what such a question does, e.g. "asks about ad blocking or the DNS
        queries of this network".
    """
    family = capability.split(".", 1)[0]
    state = "switched_off" if why == "switched_off" else "not_set_up"
    switch = policy_key if why == "switched_off" else None
    key = switch if switch in _SUBJECTS else family
    name, subject = _SUBJECTS.get(key, (f"{family}_{{state}}", f"needs {capability}"))
    return name.format(state=state), subject


def activity(capability: str) -> Activity:
    """The wording for ``capability`` (by its name, else its family, else generic)."""
    family = capability.split(".", 1)[0]
    found = _ACTIVITIES.get(capability) or _ACTIVITIES.get(family)
    return found or Activity(f"the {capability} request", "I didn't run it")


def unavailable_sentence(capability: str, why: str, policy_key: str | None = None) -> str:
    """The sentence for a ``capability`` the turn does not offer because it is
    ``"unavailable"`` or ``"switched_off"`` (by ``policy_key``), e.g. "Pi-hole is not set
    up on this device, so I can't read its ad-blocking totals."."""
    family = capability.split(".", 1)[0]
    if why == "switched_off" and policy_key in _SWITCHED_OFF:
        return _SWITCHED_OFF[policy_key]
    if why == "unavailable" and family in _UNAVAILABLE:
        return _UNAVAILABLE[family]
    state = "switched off" if why == "switched_off" else "not available"
    return f"{capability} is {state} on this device, so I can't use it."


def did_not_run(
    capability: str,
    status: str,
    *,
    code: ErrorCode | None = None,
    detail: str = "",
    policy_key: str | None = None,
    reason: str | None = None,
    set_up: bool = True,
) -> str:
    """What the assistant says about one call that did not run or failed.

    Args:
        capability: the dotted capability name.
        status: ``denied``, ``expired``, ``not_asked``, ``refused`` or ``failed``.
        code: the executor's error code for refused and failed calls.
        detail: the executor's or capability's own sentence (quoted when useful).
        policy_key: the switch behind a POLICY_DISABLED refusal.
        reason: the household's own words with a denial.
        set_up: whether the capability is set up on this device. A POLICY_DISABLED
            refusal of one that is not (Home Assistant without a usable settings
            file) says it is not set up, not that it is switched off.

    Returns:
        One or two sentences, e.g. "You declined the web search, so I didn't look it up."
    """
    act = activity(capability)
    if status == "denied":
        said = f' (you said: "{reason.strip()}")' if reason and reason.strip() else ""
        return f"You declined {act.noun}{said}, so {act.didnt}."
    if status == "expired":
        return f"The approval request for {act.noun} expired before you answered, so {act.didnt}."
    if status == "not_asked":
        return f"You declined an earlier request, so I didn't ask you about {act.noun} either."
    if code is ErrorCode.POLICY_DISABLED and not set_up:
        return unavailable_sentence(capability, "unavailable", policy_key)
    return _refused_or_failed(act, status, code, _sentence(detail), policy_key)


def _refused_or_failed(
    act: Activity, status: str, code: ErrorCode | None, detail: str, policy_key: str | None
) -> str:
    if code is ErrorCode.POLICY_DISABLED:
        return _SWITCHED_OFF.get(policy_key or "", f"That is switched off, so {act.didnt}.")
    if code is ErrorCode.FETCH_TARGET_REJECTED:
        return (
            "I can't read that address: this device does not fetch pages on your own "
            f"network or on itself. {detail}"
        ).strip()
    if code is ErrorCode.INVOCATION_LIMIT_REACHED:
        return f"I already ran {act.noun} as often as one question allows."
    if code is ErrorCode.UNKNOWN_CAPABILITY:
        return "I have no tool by that name, so nothing ran."
    if code is ErrorCode.AUDIT_UNAVAILABLE:
        return f"I didn't run {act.noun}. {detail}".strip()
    if status == "failed":
        return f"I tried {act.noun}, but it failed, so I have no result from it. {detail}".strip()
    return f"I couldn't run {act.noun}: {detail}".strip() if detail else f"{act.didnt}."


def _sentence(text: str) -> str:
    """``text`` as one tidy sentence, speaking to the household ("your"), not of it."""
    text = " ".join(text.split()).replace("the household's", "your")
    return text if not text or text.endswith((".", "!", "?")) else text + "."


CUT_OFF = (
    "My answer was cut off before I finished it, so it may be incomplete. Ask again, or "
    "ask for less at once, to get the rest."
)
"""Said after an answer the model did not finish (its stream ended without its terminal
event, or it reached its length limit): what came is shown, and that it is not all."""
