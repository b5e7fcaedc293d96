"""The approval card's words and the notes of a decision, said in the turn's language.

A card shows the literal request (arguments verbatim, never translated) and, around it,
the product's words: its title, what the request does, what each argument means (a time
window said as a window, "from the last day"), what approving sends and where to, the
search settings sent with a search, the buttons, the deny reason's label, the countdown,
the edit form; and the note the conversation keeps once the card is decided. They come
from the conversation's catalog (context: their key) and travel on the wire as
``pending_confirmation.words`` (:func:`card_words`). The Console shows them as said and
keeps its own English only for a service that sends none.

Some words hold placeholders the Console fills, so that what it fills is exactly what is
sent: ``{time}`` (the countdown), ``{host}`` (the host the Console shows for a fetch),
``{reason}`` (the household's own words), and in ``request`` each shown argument by
name (``{query}``: its literal value, quoted with ``quote``; ``{time_range}``: its
window from ``windows``) or ``{arguments}`` (every argument, quoted); ``quote`` holds ``{value}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from babel import Locale, UnknownLocaleError
from babel.numbers import format_decimal

from .catalogs import DEFAULT_LANGUAGE, Voice

FLAG_REASONS = {
    "private_address": "looks like an address on your home network",
    "device_address": "is one of this device's own network addresses",
    "mac_address": "looks like a device's hardware (MAC) address",
    "email_address": "looks like an e-mail address",
    "phone_number": "looks like a phone number",
    "local_host_name": "looks like the name of a device on your home network",
    "device_name": "is a name of this device or of its home network",
    "home_assistant_name": "names something in your Home Assistant",
    "pihole_name": "is a name from your Pi-hole's local DNS",
    "wifi_name": "is the name of your Wi-Fi network",
    "private_word": "is on your household's list of private words",
    "look_alike": "spells one of your household's words with look-alike letters, "
    "digits or in another order",
    "mixed_script": "mixes letters of different alphabets, as look-alike spellings do",
    "from_a_result": "comes from what a result of this turn said, not from you",
    "added_by_assistant": "is not in what you wrote: the assistant added it",
}
"""What the card says after a flagged span, by the flag's ``kind``: the English each flag
carries as its ``reason`` (the household-identifier check's, and the two kinds of words
the household did not write), said in the turn's language as ``words.flag_reasons``."""

SPACES = ("{n} space", "{n} spaces")
"""The mark on a run of spaces a reader could miss (singular, plural; context
``card_mark_spaces``)."""

CARD_SENTENCES = {
    "card_title": "Approve this request?",
    "card_title_edited": "Approve your edited request?",
    "card_heading": "Run this request",
    "card_heading:web.search": "Search the web for",
    "card_heading:web.fetch": "Read this page",
    "card_label:query": "Words",
    "card_label:time_range": "Time window",
    "card_label:url": "Address",
    "card_label:start_index": "From character",
    "card_window:day": "from the last day",
    "card_window:week": "from the last week",
    "card_window:month": "from the last month",
    "card_window:year": "from the last year",
    "card_sentence": "Approving sends these exact arguments outside this device, to {capability}.",
    "card_sentence:web.search": "Approving sends this exact query outside this device, to "
    "the search engines.",
    "card_sentence:web.fetch": "Approving connects outside this device, to {host}, and reads "
    "the page at this exact address.",
    "card_settings": "Searched {language}, safe search {level} (your search settings).",
    "card_search_language": "in {language}",
    "card_search_language:auto": "in any language (the search service chooses)",
    "card_search_language:all": "in all languages",
    "card_safesearch:0": "off",
    "card_safesearch:1": "moderate",
    "card_safesearch:2": "strict",
    "card_change": "Change",
    "card_details": "Details",
    "card_capability": "Capability {capability}, version {version}",
    "card_expires": "Expires in {time}",
    "card_expired": "This request expired, so nothing was sent. Ask again if you still want it.",
    "card_ask_again": "Ask again",
    "card_reason_label": "Reason for denying (optional)",
    "card_deny": "Deny",
    "card_edit": "Edit",
    "card_approve": "Approve",
    "card_approve_anyway": "Approve anyway",
    "card_edit_hint": "Change what will be sent. The appliance checks your version again; if "
    "it still needs a look, you get a new card for it.",
    "card_edit_field": "Edit {name}",
    "card_edit_field:query": "Edit query",
    "card_edit_field:url": "Edit url",
    "card_edit_field:time_range": "Edit time_range",
    "card_send_edit": "Send edited request",
    "card_sending": "Sending…",
    "card_cancel": "Cancel",
    "card_quote": "“{value}”",
    "card_request": "run {capability}: {arguments}",
    "card_request:web.search": "search the web for {query}",
    "card_request:web.search:window": "search the web for {query}, {time_range}",
    "card_request:web.fetch": "read this page {url}",
    "card_request:web.fetch:start": "read this page {url} from character {start_index}",
    "card_flags_title:household": "Before you approve: this may tell the search engines or "
    "the site something about your household.",
    "card_flags_title:from_a_result": "Before you approve: the marked words came from a page "
    "or search result, not from you.",
    "card_flags_title:added_by_assistant": "Before you approve: the assistant added the marked "
    "words; you did not write them.",
    "card_flag_note": "{flagged} {reasons}.",
    **{f"card_flag_reason:{kind}": reason for kind, reason in FLAG_REASONS.items()},
    "card_mark_invisible": "invisible character",
    "card_mark_idn": "Host in Unicode: {unicode} (as sent: {host})",
    "note_approved": "You approved: {request}.",
    "note_denied": "You denied: {request}.",
    "note_denied_reason": "You denied: {request}. Your reason: “{reason}”",
    "note_expired": "Nobody answered in time, so nothing was sent for the request to {request}.",
    "note_edited": "You sent an edited request to {request}.",
    "note_abandoned": "Your session ended before you answered, so nothing was sent for the "
    "request to {request}.",
}
"""Every word of the card and of a decision's note by its key (its catalog context), in
English (the Console's English, as before). ``note_denied_reason`` ends with the quoted
reason and no full stop after it, so a reason that ends with its own stop is not followed
by a second one."""

EDIT_REFUSALS = {
    "INVALID_ARGUMENTS": "it cannot be sent as it is written",
    "FETCH_TARGET_REJECTED": "this device does not read pages at that address",
    "SITE_NOT_ALLOWED": "your list of allowed sites does not include that site",
}
"""Why an edit was refused, by the executor's code (context ``edit_refused:<code>``)."""
EDIT_REFUSED = {
    "edit_refused": "The edited request was not accepted: {reason}. The original request is "
    "still waiting for your answer.",
    "edit_refused_plain": "The edited request was not accepted. The original request is still "
    "waiting for your answer.",
}
"""The refusal of an edit (``INVALID_EDIT``): with its reason when the code is known."""
EDIT_DETAILS = {
    "unknown_capability": "This device has no such capability.",
    "missing": "{argument} is missing.",
    "unexpected": "This request does not take {argument}.",
    "wrong_type": "{argument} has the wrong kind of value.",
    "too_small": "{argument} must be at least {limit}.",
    "too_large": "{argument} must be at most {limit}.",
    "not_a_choice": "{argument} is not one of the values it can take.",
    "wrong_form": "{argument} is not written the way it has to be.",
    "invisible_character": "{argument} holds a character the card cannot show ({character}) "
    "at position {position}.",
    "no_words": "{argument} holds no words, only spaces.",
    "household_setting": "{argument} comes from your household's settings, not from each "
    "request; leave it out.",
    "malformed_address": "{argument} is not a web address this device can read.",
    "destination_refused": "The address is this device, your home network or a place this "
    "device never connects to.",
    "not_accepted": "The change cannot be used as it is written.",
}
"""The executor's detail of a refused edit, said by its refusal code
(:data:`sovereign.executor.REFUSALS`; context ``edit_detail:<code>``). ``{argument}`` is
the argument's name as sent (an identifier), numbers are written as the language writes
them."""
EDIT_DETAIL_COUNTS = {
    "too_long": ("{argument} is longer than {limit} character.",
                 "{argument} is longer than {limit} characters."),
    "too_short": ("{argument} needs at least {limit} character.",
                  "{argument} needs at least {limit} characters."),
}  # fmt: skip
"""The details said by the count of their ``limit`` (singular, plural)."""

_FILLED_BY_CONSOLE = ("time", "host", "reason", "request", "name")
_PLAIN = (
    "title",
    "change",
    "details",
    "expires",
    "expired",
    "ask_again",
    "reason_label",
    "deny",
    "edit",
    "approve",
    "approve_anyway",
    "edit_hint",
    "send_edit",
    "sending",
    "cancel",
)
"""The card's words said as they are, each under ``card_<name>``."""


def card_words(
    capability: str,
    arguments: dict[str, Any],
    voice: Voice,
    *,
    edited: bool = False,
    flags: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The card's words for a request of ``capability`` with ``arguments``, in ``voice``'s
    language: ``pending_confirmation.words`` (see the module docstring for placeholders).

    Returns:
        ``{"title", "heading", "labels": {argument: label}, "windows": {value: window},
        "sentence", "settings" (a search's settings line, else ``None``), "capability",
        "change", "details", "expires", "expired", "ask_again", "reason_label", "deny",
        "edit", "approve", "approve_anyway", "edit_hint", "edit_fields": {argument:
        label}, "send_edit", "sending", "cancel", "quote", "request", "notes":
        {"approved", "denied", "denied_reason", "expired", "edited", "abandoned"},
        "flag_titles": {"household", "from_a_result", "added_by_assistant"},
        "flag_reasons": {kind: reason} (the kinds among ``flags`` this product knows),
        "flag_note": "{flagged} {reasons}.", "list": {"2", "start", "middle", "end"} (the
        language's list patterns, from CLDR by Babel, with ``{0}`` and ``{1}``), "marks":
        {"space_one", "space_other", "invisible", "idn"}}``. ``space_other`` is the
        plural for two spaces and more, with ``{n}``: in each language the product
        speaks every count from 2 up takes the form of 2 (tested).
    """
    words: dict[str, Any] = {name: _say(voice, f"card_{name}") for name in _PLAIN}
    if edited:
        words["title"] = _say(voice, "card_title_edited")
    request = _request(capability, arguments, voice)
    words.update(
        heading=_first(voice, f"card_heading:{capability}", "card_heading"),
        labels={n: _say(voice, f"card_label:{n}") for n in arguments if _known(f"card_label:{n}")},
        windows={key.split(":")[1]: _say(voice, key) for key in _keys("card_window:")},
        sentence=_first(
            voice, f"card_sentence:{capability}", "card_sentence", capability=capability
        ),
        settings=search_settings_line(capability, arguments, voice),
        capability=_say(voice, "card_capability", capability="{capability}", version="{version}"),
        edit_fields={n: _edit_field(voice, n) for n, v in arguments.items() if isinstance(v, str)},
        quote=_say(voice, "card_quote", value="{value}"),
        request=request,
        notes={
            key.removeprefix("note_"): _say(voice, key, request=request) for key in _keys("note_")
        },
        flag_titles={key.split(":")[1]: _say(voice, key) for key in _keys("card_flags_title:")},
        flag_reasons={
            kind: _say(voice, f"card_flag_reason:{kind}")
            for kind in dict.fromkeys(str(flag.get("kind")) for flag in flags or [])
            if kind in FLAG_REASONS
        },
        flag_note=_say(voice, "card_flag_note", flagged="{flagged}", reasons="{reasons}"),
        list=list_patterns(voice.language),
        marks={
            "space_one": voice.say_count("card_mark_spaces", *SPACES, 1, n="{n}"),
            "space_other": voice.say_count("card_mark_spaces", *SPACES, 2, n="{n}"),
            "invisible": _say(voice, "card_mark_invisible"),
            "idn": _say(voice, "card_mark_idn", unicode="{unicode}", host="{host}"),
        },
    )
    return words


def edit_refusal(code: str, voice: Voice) -> str:
    """The sentence refusing an edit the executor refused with ``code``, in ``voice``'s
    language: why (for a code in :data:`EDIT_REFUSALS`) and that the card still waits."""
    if code in EDIT_REFUSALS:
        reason = voice.say(f"edit_refused:{code}", EDIT_REFUSALS[code])
        return voice.say("edit_refused", EDIT_REFUSED["edit_refused"], reason=reason)
    return voice.say("edit_refused_plain", EDIT_REFUSED["edit_refused_plain"])


def edit_detail(code: str, values: Mapping[str, str | int], voice: Voice) -> str | None:
    """The executor's detail of a refused edit (its refusal ``code`` and ``values``) in
    ``voice``'s language, numbers written as it writes them; ``None`` for a code this
    catalog does not say or values that do not fill its sentence."""
    shown = {
        name: format_decimal(value, locale=voice.language) if isinstance(value, int) else value
        for name, value in values.items()
    }
    try:
        if code in EDIT_DETAIL_COUNTS and isinstance(values.get("limit"), int):
            one, many = EDIT_DETAIL_COUNTS[code]
            return voice.say_count(f"edit_detail:{code}", one, many, int(values["limit"]), **shown)
        if code in EDIT_DETAILS:
            return voice.say(f"edit_detail:{code}", EDIT_DETAILS[code], **shown)
    except (KeyError, IndexError):  # a value its sentence names is missing
        return None
    return None


def list_patterns(language: str) -> dict[str, str]:
    """How ``language`` joins a list ("{0} und {1}"), from CLDR by Babel: the patterns
    ``2`` (two items), ``start``, ``middle`` and ``end`` (three and more), each with
    ``{0}`` and ``{1}``; English's for a language Babel does not know."""
    try:
        patterns = Locale.parse(language).list_patterns["standard"]
    except (ValueError, UnknownLocaleError, KeyError):
        patterns = Locale.parse(DEFAULT_LANGUAGE).list_patterns["standard"]
    return {name: str(patterns[name]) for name in ("2", "start", "middle", "end")}


def search_settings_line(capability: str, arguments: dict[str, Any], voice: Voice) -> str | None:
    """A search card's line on the settings sent with it ("Searched in German, safe search
    moderate (your search settings)."), the language named in ``voice``'s language; ``None``
    for another capability or arguments without both settings."""
    language, level = arguments.get("language"), arguments.get("safesearch")
    if capability != "web.search" or not isinstance(language, str):
        return None
    if not _known(f"card_safesearch:{level}") or isinstance(level, bool):
        return None
    if _known(f"card_search_language:{language}"):
        where = _say(voice, f"card_search_language:{language}")
    else:
        where = _say(voice, "card_search_language", language=_language_name(language, voice))
    level_words = _say(voice, f"card_safesearch:{level}")
    return _say(voice, "card_settings", language=where, level=level_words)


def _language_name(code: str, voice: Voice) -> str:
    try:
        return Locale.parse(code.replace("-", "_")).get_display_name(voice.language) or code
    except (ValueError, UnknownLocaleError):
        return code


def _request(capability: str, arguments: dict[str, Any], voice: Voice) -> str:
    if capability == "web.search":
        key = "card_request:web.search" + (":window" if "time_range" in arguments else "")
    elif capability == "web.fetch":
        key = "card_request:web.fetch" + (":start" if "start_index" in arguments else "")
    else:
        return _say(voice, "card_request", capability=capability, arguments="{arguments}")
    names = ("query", "time_range", "url", "start_index")
    return _say(voice, key, **{name: "{" + name + "}" for name in names})


def _edit_field(voice: Voice, name: str) -> str:
    if _known(f"card_edit_field:{name}"):
        return _say(voice, f"card_edit_field:{name}")
    return _say(voice, "card_edit_field", name=name)


def _first(voice: Voice, key: str, fallback: str, **values: Any) -> str:
    return _say(voice, key if _known(key) else fallback, **values)


def _known(key: str) -> bool:
    return key in CARD_SENTENCES


def _keys(prefix: str) -> list[str]:
    return [key for key in CARD_SENTENCES if key.startswith(prefix)]


def _say(voice: Voice, key: str, **values: Any) -> str:
    passed = {name: "{" + name + "}" for name in _FILLED_BY_CONSOLE}
    return voice.say(key, CARD_SENTENCES[key], **{**passed, **values})
