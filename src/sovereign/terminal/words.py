"""What ``sovereign chat`` says of its own, in the household's language.

The card, the progress line, the receipt and the service's errors are said by the
product (the service sends them said); these are the chat's own: its prompts, its
notices, the sentences for failures the client itself meets (the service could not
be reached, an answer broke off), and the sources' heading and the receipt it composes
itself when the service says none. Their English is here, keyed (the key is the
catalog's ``msgctxt``); each language's is in ``locale/<language>/LC_MESSAGES/
terminal.po``, read with Babel once per process. A sentence a catalog lacks, and a
language the product has no catalog for, are said in English. The language is the
household's setting, as the service reads it (``GET /api/v1/conversation/words``) or,
in ``--in-process`` mode, as this process reads it from the same file
(docs/decisions/household-language.md).
"""

from __future__ import annotations

from pathlib import Path

from babel.lists import format_list
from babel.numbers import format_decimal
from babel.units import format_unit

from sovereign.po_catalogs import translations

LANGUAGES = ("en", "de", "fr", "es", "nl", "it")
"""The languages the product speaks (ISO 639-1); English is the source language."""
ENGLISH = "en"
CATALOGS = Path(__file__).resolve().parent / "locale"
DOMAIN = "terminal"

SENTENCES = {
    "prompt_you": "you",
    "prompt_assistant": "assistant",
    "leave_word": "quit",
    "yes_key": "y",
    "yes_word": "yes",
    "approve_prompt": "{approve} [{yes}] / {deny} [N]: ",
    "signed_in": 'Signed in to {url}. Ctrl-C stops an answer; Ctrl-D or "{leave}" leaves.',
    "session_ended": "The session ended; sign in again, then resend your message.",
    "password_prompt": "Household password: ",
    "spaced_address": "An address cannot hold a space, so only the part before the first "
    "space would be read. Written with %20 for each space it is {address}. Send that "
    "instead, or send the same message again to send it as typed.",
    "broke_off": "(the answer broke off; asking what became of it)",
    "not_answered": "Not answered, so nothing was sent; the request will expire.",
    "error_prefix": "Error: ",
    "failure_unreachable": "The service at {url} could not be reached.",
    "failure_stream_ended": "The answer stopped before it was complete.",
    "failure_garbled": "The answer arrived garbled.",
    "failure_http": "The service answered HTTP {status}.",
    "sources": "Sources",
    "source_page": "page read",
    "source_result": "search result",
    "receipt_label": "Receipt",
    "receipt_left": "Left this device.",
    "receipt_may_have_left": "May have left this device (a call failed on the way).",
    "receipt_nothing_left": "Nothing left this device: {why}.",
    "receipt_stayed": "Stayed on this device.",
    "why_search_service": "the device's search service is not running",
    "why_connection": "the connection failed first",
    "receipt_ran_here": "{name}: ran on this device",
    "receipt_not_sent": "{name}: failed before anything left this device ({why})",
    "receipt_executed": "{name}: sent outside this device",
    "receipt_failed": "{name}: tried to go outside this device and failed ({code})",
    "receipt_denied": "{name}: denied by you; nothing was sent",
    "receipt_expired": "{name}: approval expired; nothing was sent",
    "receipt_refused": "{name}: refused ({code}); nothing was sent",
}
"""Every sentence of the chat's own by its key (its catalog context); ``{...}`` is
filled when it is said. ``leave_word`` and ``yes_word``/``yes_key`` are also read: what
the household types to leave or to approve (English's are always understood too)."""

COUNTED = {
    "too_long": (
        "Too long to send: {length} of {limit} characters. Shorten it by {over} character; "
        "nothing was cut or sent.",
        "Too long to send: {length} of {limit} characters. Shorten it by {over} characters; "
        "nothing was cut or sent.",
    ),
}
"""Sentences said by a count (``{over}``), singular and plural English, by key."""


class Words:
    """The chat's own sentences in one language.

    Args:
        language: ISO 639-1; one of :data:`LANGUAGES` (anything else speaks English).
    """

    def __init__(self, language: object = ENGLISH) -> None:
        self.language = language if language in LANGUAGES else ENGLISH
        self._translations = translations(CATALOGS, DOMAIN, str(self.language))

    def say(self, key: str, **values: object) -> str:
        """The sentence ``key`` of :data:`SENTENCES` in this language, filled with ``values``.

        Raises:
            KeyError: ``key`` is not one of :data:`SENTENCES`.
        """
        return self._translations.pgettext(key, SENTENCES[key]).format(**values)

    def say_count(self, key: str, count: int, **values: object) -> str:
        """The sentence ``key`` of :data:`COUNTED` for ``count`` by this language's plural
        rule, filled with ``values`` (numbers already formatted, e.g. :meth:`number`)."""
        one, many = COUNTED[key]
        return self._translations.npgettext(key, one, many, count).format(**values)

    def number(self, value: int) -> str:
        """``value`` written as this language writes numbers (``8,107``; ``8.107`` in German)."""
        return format_decimal(value, locale=self.language)

    def elapsed(self, seconds: float) -> str:
        """Whole seconds waited, never negative, by CLDR's units: ``"12 seconds"`` under a
        minute, else minutes and seconds in short (``"2 min 5 sec"``, ``"2 Min., 5 Sek."``)."""
        whole = max(0, int(seconds))
        if whole < 60:
            return format_unit(whole, "duration-second", length="long", locale=self.language)
        parts = [
            format_unit(whole // 60, "duration-minute", length="short", locale=self.language),
            format_unit(whole % 60, "duration-second", length="short", locale=self.language),
        ]
        return format_list(parts, style="unit-narrow", locale=self.language)

    def prompt(self, key: str) -> str:
        """``"you> "`` or ``"assistant>"`` (``key``: ``you`` or ``assistant``)."""
        label = self.say(f"prompt_{key}")
        return f"{label}> " if key == "you" else f"{label}>"

    def leaves(self, line: str) -> bool:
        """Whether typing ``line`` leaves the chat: this language's word, or quit/exit."""
        typed = line.strip().casefold()
        return typed in ("quit", "exit", self.say("leave_word").casefold())

    def approves(self, answer: str) -> bool:
        """Whether ``answer`` approves a card: this language's yes (its key or word), or
        English's y/yes; anything else denies."""
        typed = answer.strip().casefold()
        said = (self.say("yes_key").casefold(), self.say("yes_word").casefold())
        return typed in ("y", "yes", *said)
