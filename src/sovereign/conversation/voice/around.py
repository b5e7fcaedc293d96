"""The product's words around an answer, said in the turn's language (DESIGN §4).

Besides the answer, its facts and its receipt (:mod:`.receipts`), the household reads a
few more of the product's words during a turn: the progress line while it waits (what
the turn is doing now, its Stop button and what Stop says), the names the Console gives
the receipt and the sources, and the note after an approval whose answer's connection
broke. They come from the conversation's catalog (context: their key) like every other
sentence, and travel on the wire beside what they name: each ``progress`` event's
``words``, ``stop`` and ``stopping``; the receipt's ``label``; each citation's
``heading``; a card's ``approval_notes``; the words above the passages found while the
model chooses among them (a ``progress`` event's ``found``). The Console and ``sovereign
chat`` show them as said and keep their English only for a service that sends none.

Capability names stay as they are (they are identifiers); "checking" words are chosen
by the capability's full name, else its family (the name's first part).
"""

from __future__ import annotations

from typing import Any

from .catalogs import Voice

PROGRESS_SENTENCES = {
    "progress_sending": "Sending your question",
    "progress_queued": "Waiting for another question to finish",
    "progress_loading_model": "Loading the model (the first question after a start takes longer)",
    "progress_choosing": "Reading your question and choosing what to check",
    "progress_choosing_next": "Choosing what else to check",
    "progress_writing": "Writing the answer",
    "progress_checking": "Checking what you asked about",
    "progress_checking:system": "Checking the device's health",
    "progress_checking:pihole": "Checking the ad blocker",
    "progress_checking:home_assistant": "Checking your home's devices",
    "progress_checking:web": "Working on the web request you approved",
    "progress_checking:web.search": "Searching the web",
    "progress_checking:web.fetch": "Reading the page",
    "progress_stop": "Stop",
    "progress_stopping": "Stopping",
}
"""The progress line's words: one per stage (``progress_<stage>``; choosing once a call
of the turn ran, failed or was declined is ``progress_choosing_next``; ``sending`` is the
Console's own, shown before the service has said anything), the checking words
by capability or family (``progress_checking:<name>``), the Stop button and what the
line says once it is pressed (the Console's and the terminal's English, as before)."""

NAMES = {
    "receipt_label": "Receipt",
    "sources_heading": "Sources",
    "source_snippet": "search result snippet",
    "source_page_read": "page read",
    "source_redirect": "redirect, not followed",
    "source_redirect_not_allowed": "redirect to a site the household does not allow, not followed",
}
"""What the Console calls the receipt under an answer (its accessible name), the list of
sources (their heading and accessible name) and each source's kind (``source_*``, shown
beside its title: a search result, a page read, or a redirect that was not followed)."""

APPROVAL_NOTES = {
    "approval_ran": "The connection broke after you approved {capability}; the appliance "
    "kept what happened: it ran.",
    "approval_failed": "The connection broke after you approved {capability}; the appliance "
    "kept what happened: it was tried and failed, so the request may have left.",
    "approval_not_run": "The connection broke after you approved {capability}; the appliance "
    "kept what happened: it did not run, so nothing was sent.",
    "approval_lost": "The connection broke after you approved {capability}, and the appliance "
    "could not tell what happened. Whether {capability} ran is unknown; Activity shows it "
    "once the appliance answers again (a call that started is listed even if its outcome is "
    "lost).",
}
"""What is said when the answer to an approval broke off: after asking again brought back
what the appliance kept (the call ran, was tried and failed, or did not run), or when it
could not tell. Said ahead, with the card, since nothing may arrive afterwards."""

FOUND_SENTENCES = {
    "found_heading": "Found so far, not yet the answer",
    "found_reading": "The assistant is reading these passages to choose the one that answers "
    "your question; the answer quotes it.",
    "found_instructions": "A source gave the assistant instructions: they are not shown here "
    "and will be ignored.",
}
"""What is said above the passages found while the model chooses among them: that they
are what was found and not yet the answer, that the assistant is reading them, and,
when a source gave instructions, that those were left out."""

ALL_SENTENCES = {**PROGRESS_SENTENCES, **NAMES, **APPROVAL_NOTES, **FOUND_SENTENCES}
"""Every sentence of this module by its key (its catalog context)."""


def say_progress(
    stage: str, capability: str | None, voice: Voice, *, after_calls: bool = False
) -> dict[str, str]:
    """The progress line for one stage, in ``voice``'s language.

    ``after_calls``: a call of the turn already ran, failed or was declined, so choosing
    is choosing what else to check, not reading the question (after an approval or a
    denial, the line said "Reading your question" again).

    Returns:
        ``{"words", "stop", "stopping"}``: what the turn is doing now (e.g. "Searching
        the web" for ``("checking", "web.search")``), the Stop button's label and what
        the line says once Stop is pressed. An unknown stage is said as choosing.
    """
    if stage == "checking":
        name = capability or ""
        keys = (f"progress_checking:{name}", f"progress_checking:{name.split('.')[0]}")
        key = next((k for k in keys if k in PROGRESS_SENTENCES), "progress_checking")
    else:
        key = f"progress_{stage}"
        key = key if key in PROGRESS_SENTENCES else "progress_choosing"
        if key == "progress_choosing" and after_calls:
            key = "progress_choosing_next"
    return {
        "words": _say(voice, key),
        "stop": _say(voice, "progress_stop"),
        "stopping": _say(voice, "progress_stopping"),
    }


def before_the_turn(voice: Voice) -> dict[str, str]:
    """The progress line's words for the moment before the service says anything of a
    turn, in ``voice``'s language (the household's: the question is not read yet).

    Returns:
        ``{"language", "sending", "stop", "stopping"}``: the language they are said in,
        the line's first words ("Sending your question"), the Stop button's label and
        what the line says once Stop is pressed.
    """
    return {
        "language": voice.language,
        "sending": _say(voice, "progress_sending"),
        "stop": _say(voice, "progress_stop"),
        "stopping": _say(voice, "progress_stopping"),
    }


def say_name(key: str, voice: Voice) -> str:
    """One of :data:`NAMES` (``receipt_label``, ``sources_heading``, ``source_*``) in
    ``voice``'s language."""
    return _say(voice, key)


def approval_notes(capability: str, voice: Voice) -> dict[str, str]:
    """The notes for an approval of ``capability`` whose answer broke off, in ``voice``'s
    language: ``{"ran", "failed", "not_run", "lost"}`` (:data:`APPROVAL_NOTES`)."""
    return {
        key.removeprefix("approval_"): _say(voice, key, capability=capability)
        for key in APPROVAL_NOTES
    }


def say_found(steered: bool, voice: Voice) -> dict[str, str]:
    """The words above the passages found, in ``voice``'s language
    (:data:`FOUND_SENTENCES`): ``{"heading", "reading"}``, and ``"instructions"`` when a
    source gave the assistant instructions (``steered``)."""
    said = {"heading": _say(voice, "found_heading"), "reading": _say(voice, "found_reading")}
    if steered:
        said["instructions"] = _say(voice, "found_instructions")
    return said


def _say(voice: Voice, key: str, **values: Any) -> str:
    return voice.say(key, ALL_SENTENCES[key], **values)
