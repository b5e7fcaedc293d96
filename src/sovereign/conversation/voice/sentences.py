"""What the assistant says about calls that did not run, and about what it lacks (DESIGN §4).

Every sentence is in the assistant's voice ("I"), addressed to the person asking
("you"), true whenever it is used, and said in the household's language: a
capability's own sentences come from its :class:`~sovereign.executor.facts.Phrases`
and its catalog, the rest from the conversation's catalog (:mod:`.catalogs`). No
sentence is an instruction to the model, and none speaks of the household in the
third person, so a model that repeats one gives a correct answer
(docs/decisions/answers-rendered-by-the-product.md).
"""

from __future__ import annotations

from sovereign.executor import Capability, ErrorCode, Phrases

from .catalogs import Voice

CONTEXT = "did_not_run"

_BY_CODE: dict[ErrorCode, str] = {
    ErrorCode.UNKNOWN_CAPABILITY: "I have no tool by that name, so nothing ran.",
    ErrorCode.INVOCATION_LIMIT_REACHED: "I already did that as often as one question allows.",
    ErrorCode.FETCH_TARGET_REJECTED: "I can't read that address: this device does not fetch "
    "pages on your own network or on itself.",
    ErrorCode.SITE_NOT_ALLOWED: "Your list of allowed sites does not include that site, so "
    "I didn't read it.",
    ErrorCode.AUDIT_UNAVAILABLE: "I didn't do it, because I can't keep the record of what I "
    "do right now.",
    ErrorCode.POLICY_DISABLED: "That is switched off on this device, so nothing ran.",
}
"""Refusals whose sentence is the same for every capability."""
_GENERIC = {
    "denied": "You declined it, so I didn't do it.",
    "expired": "The approval request expired before you answered, so I didn't do it.",
    "not_asked": "You declined an earlier request, so I didn't ask you about this one either.",
    "failed": "I tried, but it failed, so I have no result from it.",
    "refused": "I couldn't make that request, so nothing ran.",
    "unavailable": "That is not set up on this device, so I can't do it.",
    "switched_off": "That is switched off on this device, so I can't do it.",
}
"""What is said for a capability that declares no :class:`Phrases`."""
REASON = "You said: “{reason}”."
"""Follows a denial when the household gave its reason."""


def did_not_run(
    capability: Capability | None,
    status: str,
    voice: Voice,
    *,
    code: ErrorCode | None = None,
    reason: str | None = None,
    failure: str | None = None,
) -> str:
    """What the assistant says about one call that did not run or failed.

    Args:
        capability: the capability the call named (``None``: a name that is none).
        status: ``denied``, ``expired``, ``not_asked``, ``refused`` or ``failed``.
        voice: the household's language.
        code: the executor's error code for refused and failed calls.
        reason: the household's own words with a denial (quoted after the sentence).
        failure: the capability's label for a failure it has words for
            (:attr:`Phrases.failures`).

    Returns:
        One or two sentences, e.g. "You declined the web search, so I didn't look it up."
    """
    if code is ErrorCode.POLICY_DISABLED and capability is not None:
        why = "switched_off" if capability.is_available() else "unavailable"
        return unavailable_sentence(capability, why, voice)
    if code in _BY_CODE and status in ("refused", "failed"):
        return voice.say(CONTEXT, _BY_CODE[code])
    phrases = capability.phrases if capability is not None else None
    if status == "failed" and phrases is not None and failure in phrases.failures:
        own_words = voice.with_catalog(phrases.catalog, phrases.domain)
        return own_words.say(f"failed:{failure}", phrases.failures[failure])
    sentence = _phrase(capability, status, voice)
    if status == "denied" and reason and reason.strip():
        quoted = " ".join(reason.split())
        sentence += " " + voice.say(CONTEXT, REASON, reason=quoted)
    return sentence


def unavailable_sentence(capability: Capability | None, why: str, voice: Voice) -> str:
    """The sentence for a capability the turn does not offer because it is
    ``"unavailable"`` (not set up) or ``"switched_off"``, e.g. "Pi-hole is not set up on
    this device, so I can't read its ad-blocking totals."."""
    return _phrase(capability, why, voice)


def _phrase(capability: Capability | None, status: str, voice: Voice) -> str:
    phrases = capability.phrases if capability is not None else None
    text = getattr(phrases, status, None) if phrases is not None else None
    if text is None or phrases is None:
        return voice.say(CONTEXT, _GENERIC.get(status, _GENERIC["refused"]))
    return voice.with_catalog(phrases.catalog, phrases.domain).say(status, text)


def stand_in_subject(capability: Capability, why: str) -> tuple[str, str] | None:
    """A name for a withheld capability's stand-in and the questions it would have served
    (English, for the model's instructions), or ``None`` when it declares no stand-in.

    Returns:
        ``(name, subject)``, e.g. ``("pihole_not_set_up", "asks about ad or tracker …")``:
        the name is the family's :attr:`~sovereign.executor.facts.Phrases.stand_in`
        (else its catalog domain) and the state, so capabilities that share a domain
        (web search and web fetch) share one stand-in.
    """
    phrases: Phrases | None = capability.phrases
    if phrases is None or phrases.stands_for is None:
        return None
    state = "switched_off" if why == "switched_off" else "not_set_up"
    return f"{phrases.stand_in or phrases.domain}_{state}", phrases.stands_for


OWN_SENTENCES = {
    "budget_spent": "I have made all the checks one question allows; this is what I have.",
    "no_answer": "I could not put an answer into words. Please ask again.",
    "cannot_change": "I can only read things here; I can't switch, lock, set or change "
    "anything.",
    "other_devices": "I can't check that: I can read this device, but not your other devices.",
    "not_among_readable": "Those are the things I may read in your home; I could not tell "
    "which of them you asked about.",
    "counts_back": "These figures count back from now; I have none for the day or time you "
    "named on its own.",
    "unreadable": "I can't read {addresses}: I read only public web pages, never files or "
    "pages on this device or your home network.",
    "asks_approval": "Before I go on, I need your approval for this request.",
    "asks_approval_edited": "Your edited request needs your approval before it is sent.",
    "cut_off": "My answer was cut off before I finished it, so it may be incomplete. Ask "
    "again, or ask for less at once, to get the rest.",
    "no_passage": "Nothing I found answers that directly. This is what I found:",
    "nothing_found": "I found nothing that answers that.",
    "quote_in_language": "The source is in {language}; this is what it says:",
    "instructions_ignored": "One of the sources gave me instructions, which I ignored.",
    "facts_heading": "What the device reported",
    "turn_stopped": "Stopped. Nothing more was done after you pressed Stop.",
    "failed_model_unavailable": "The language model cannot be reached: {reason}",
    "failed_too_long": "The conversation is too long for the model to read; start a new "
    "conversation or send less history.",
    "failed_model_error": "The language model answered unusably: {reason}",
    "failed_unexpectedly": "The turn failed unexpectedly.",
}
"""The conversation's own sentences, by what they are for (English source text);
``facts_heading`` is the heading of the facts panel under an answer (on the wire as
each fact's ``heading``, :class:`~sovereign.conversation.results.Fact`); ``failed_*``
say why a turn failed (the service's error sentence; ``{reason}`` is the model
backend's own words, as it gave them)."""


def own(key: str, voice: Voice, **values: object) -> str:
    """One of :data:`OWN_SENTENCES` in ``voice``'s language, filled with ``values``."""
    return voice.say(key, OWN_SENTENCES[key], **values)
