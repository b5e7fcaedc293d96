"""The Console's own words (its chrome and its own sentences) in a language.

Beside what the product says about a turn, the Console shows words of its own: the
navigation, the message box, the headings, labels and buttons of Settings and Activity,
and the sentences it writes at run time (a setting saved, a request that failed, a
session that ended). The page holds the first kind in English (``data-word`` on each
element, in ``console/index.html`` or put there by a page module); the second kind is
keyed in ``console/console-words.js``. The service says both from the ``console`` catalog
(``service/locale/<language>/LC_MESSAGES/console.po``; context: the key), and the
Console puts each one it is given in place of its English.

Signed in, they are said in the household's language. Sign-in and first-run setup come
before a session, when the household's setting is not to be read: their words
(:data:`BEFORE_SIGN_IN`) are said in the browser's language instead
(:func:`browser_language`, from ``Accept-Language``).
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from pathlib import Path

from babel.core import negotiate_locale
from babel.lists import format_list
from babel.numbers import format_decimal

from sovereign.cli_words import CliWords
from sovereign.conversation.voice.catalogs import DEFAULT_LANGUAGE, LANGUAGES, Voice
from sovereign.egress import SettingRefused
from sovereign.file_problems import PROBLEMS, FileProblem

from .household_settings import HouseholdSettingsStore

CATALOG = Path(__file__).resolve().parent / "locale"
"""Where the ``console`` catalogs are."""
DOMAIN = "console"

CONSOLE_WORDS = {
    "connecting": "Connecting to the appliance…",
    "skip_to_message": "Skip to the message box",
    "nav_main": "Main",
    "nav_chat": "Chat",
    "nav_activity": "Activity",
    "nav_settings": "Settings",
    "nav_sign_out": "Sign out",
    "nav_about": "About",
    "web_search": "Web search",
    "your_message": "Your message",
    "send": "Send",
    "settings_title": "Settings",
    "private_words_title": "Private words",
    "private_words_intro": "Names, your street, the children's school: before a search or a "
    "page address leaves this device, the request card points out these words, and also the "
    "addresses, e-mail addresses, phone numbers and device names it recognises. Nothing is "
    "blocked; you decide on the card.",
    "private_words_add_label": "Add a word or phrase",
    "private_words_add": "Add",
    "activity_title": "Activity",
    "activity_intro": "What the assistant's capabilities did, counted from this appliance's "
    "audit log. The log never holds your questions, queries or addresses.",
    "activity_period": "Period",
    "activity_last_day": "Last day",
    "activity_last_7_days": "Last 7 days",
    "activity_last_30_days": "Last 30 days",
    "about_title": "About Sovereign",
    "about_intro": "A private household assistant that runs on this device. It answers your "
    "household's questions and can read this device's health and Pi-hole, and, with your approval "
    "each time, Home Assistant and the web.",
    "about_version": "Version",
    "about_licence": "Licence",
    "about_licence_note": "Free software: you may use, study, share and change it under this "
    "licence, whose text comes with it in the file LICENSE.",
    "about_leaves_title": "What leaves this device, and when",
    "about_leaves_web": "Web search is off until you switch it on. Even then, nothing leaves "
    "until you approve that one request on its card, after seeing the exact search or page "
    "address: a search goes to search engines through the search service (SearXNG), a page is read "
    "from its own site.",
    "about_leaves_home": "Reading Home Assistant also needs your approval each time, and goes "
    "only to the Home Assistant it was set up with. This device's health and Pi-hole are read "
    "without leaving it.",
    "about_leaves_log": "The audit log on this device counts what ran; it never holds your "
    "questions, searches or addresses.",
    "about_data_title": "Where your data is",
    "about_conversations": "Conversations are not saved on this device: a conversation lives in "
    "the open page, and signing out clears it.",
    "conversation": "Conversation",
    "messages": "Messages",
    "web_search_help": "When on, the assistant may ask to search the web or read a page. "
    "Nothing leaves this device unless you approve that exact request.",
    "composer_placeholder": "Ask something…",
    "composer_keys": "Enter sends; Shift+Enter starts a new line.",
    "household_title": "Language of the Console and of answers",
    "household_intro": "Once you are signed in, the Console is shown in this language (sign-in "
    "itself follows your browser's language). The assistant answers in the language you ask "
    "in; when a question is too short to tell, such as \u201cRAM info\u201d, it answers in "
    "this language too.",
    "household_label": "Language of the Console, and of answers when a question is too short "
    "to tell",
    "household_save": "Save language",
    "sites_title": "Sites the assistant may read",
    "sites_intro": "Sites are names such as example.org, wildcards such as *.example.org (the "
    "sites below it, never a whole suffix like *.co.uk) or public IP addresses. A site the list "
    "does not allow never gets a request card.",
    "sites_legend": "Site list",
    "sites_mode_off": "No site list: the assistant may ask to read any public site",
    "sites_mode_allow_only": "Only the allowed sites",
    "sites_mode_block": "Any public site except the blocked ones",
    "sites_allow_title": "Allowed sites",
    "sites_allow_note": "This list applies when only the allowed sites may be read.",
    "sites_allow_input": "Site to allow",
    "sites_allow_add": "Add to allowed sites",
    "sites_block_title": "Blocked sites",
    "sites_block_note": "This list applies when every site but the blocked ones may be read.",
    "sites_block_input": "Site to block",
    "sites_block_add": "Add to blocked sites",
    "add": "Add",
    "search_title": "Search language and safe search",
    "search_intro": "Sent to the search engines with every web search, beside the query. The "
    "request card shows them; the assistant cannot change them.",
    "search_language": "Language",
    "search_safesearch": "Safe search",
    "search_save": "Save",
    "safesearch_0": "off",
    "safesearch_1": "moderate",
    "safesearch_2": "strict",
    "setup_title": "Set the household password",
    "setup_intro": "This password protects the assistant on this appliance. Choose one the "
    "household can remember; it never leaves this device.",
    "setup_missing_token": "To set the password, open the first-run link that the service "
    "printed when it started:",
    "setup_password": "New password",
    "setup_hint": "At least 8 characters.",
    "setup_again": "Repeat the password",
    "setup_submit": "Set password and sign in",
    "signin_title": "Sign in",
    "signin_password": "Household password",
    "signin_submit": "Sign in",
}
"""Each word of the Console's chrome by its key (the ``data-word`` of its element), in
English as the page holds it (a test holds the two equal)."""

RUN_TIME_WORDS: dict[str, str | tuple[str, str]] = {
    "unreachable": "The appliance could not be reached. Check the connection and try again.",
    "not_signed_in": "You are not signed in.",
    "too_many_attempts": "Too many attempts. Wait a minute and try again.",
    "service_problem": "The service had a problem. Try again in a moment.",
    "not_accepted": "The request was not accepted.",
    "stream_ended": "The answer stopped before it was complete.",
    "stream_garbled": "The answer arrived garbled. Please ask again.",
    "session_ended": "Your session ended. Sign in again to continue.",
    "signed_out": "You are signed out.",
    "unreachable_at_start": "The appliance could not be reached: {reason}",
    "address_shared": "You opened the Console at {host}, an address other services on this "
    "device share: their pages would receive the Console's sign-in cookie.",
    "address_own_name": "Give the appliance a name of its own for the Console (sovereign serve "
    "--allowed-host; see the README, \"Host names\").",
    "address_open_instead": "Open it at its own address instead:",
    "enter_password": "Enter the household password.",
    "password_too_short": "The password needs at least {count} characters.",
    "passwords_differ": "The two passwords are not the same.",
    "pause_ends": "{message} The pause ends at {time}.",
    "household_unread": "The language setting could not be read: {reason}",
    "household_saved": "Saved: the Console is shown in {language}, and a question too short "
    "to tell is answered in it.",
    "private_words_unread": "The private words could not be read: {reason}",
    "private_words_none": "No private words yet.",
    "automatic": "Also checked automatically: {list}.",
    "automatic_home_assistant": ("{n} Home Assistant entity", "{n} Home Assistant entities"),
    "automatic_pihole": ("{n} Pi-hole local name", "{n} Pi-hole local names"),
    "automatic_device_names": (
        "{n} name of this device and its network",
        "{n} names of this device and its network",
    ),
    "automatic_device_addresses": (
        "{n} address of this device", "{n} addresses of this device"
    ),
    "automatic_wifi": ("{n} Wi-Fi network name", "{n} Wi-Fi network names"),
    "remove": "Remove",
    "remove_item": "Remove {item}",
    "sites_unread": "The site list could not be read: {reason}",
    "sites_none": "No sites.",
    "search_unread": "The search settings could not be read: {reason}",
    "search_saved": "Saved: searches go in {language}, safe search {level}.",
    "search_language_auto": "any language (the search service chooses)",
    "search_language_all": "all languages",
    "policy_unread": "The web search setting could not be read: {reason}",
    "policy_not_on": "Web search could not be switched on; it is still off. {reason}",
    "policy_not_off": "Web search could not be switched off; it is still on. {reason}",
    "composer_count": "{count} of {limit} characters",
    "too_long": (
        "Too long to send: the assistant reads at most {limit} characters at a time. Shorten "
        "it by {n} character; nothing has been cut.",
        "Too long to send: the assistant reads at most {limit} characters at a time. Shorten "
        "it by {n} characters; nothing has been cut.",
    ),
    "address_spaces": "An address cannot hold a space, so only the part before the first space "
    "would be read. Written with %20 for each space it is {address}. {use} Or press Send again "
    "to send it as typed.",
    "use_encoded": "Use %20 instead",
    "answer_first": "Answer the request above (or wait for the answer) first.",
    "stop_failed": "The answer could not be stopped: {reason}",
    "redirect_moved": "This page moved to {target}. Nothing was read from the new address.",
    "redirect_fetch": "Ask to fetch the new address",
    "activity_unread": "The activity could not be loaded: {reason}",
    "activity_repairs": "For the device's owner",
    "activity_repair": (
        "{capability} failed {n} time: {repair}", "{capability} failed {n} times: {repair}"
    ),
    "activity_none": "No capability was used in this period.",
    "activity_capability": "Capability",
    "activity_all": "All",
    "activity_since": "Since {time}",
    "activity_counts": "Counts per capability",
    "activity_scroll": "The table is wider than the screen: scroll it sideways to see every "
    "column →",
    "activity_proposed": "Suggested by the assistant",
    "activity_confirmation_requested": "Put to you (edits again)",
    "activity_flagged": "With a warning",
    "activity_approved": "You approved",
    "activity_edited": "You edited",
    "activity_denied": "You denied",
    "activity_expired": "Nobody answered",
    "activity_executed": "Ran",
    "activity_failed": "Failed",
    "activity_failed_nothing_left": "Failed before leaving",
    "activity_outcome_unknown": "Outcome unknown",
    "activity_refused_by_policy": "Off by setting",
    "activity_rejected_target": "Address blocked",
    "activity_refused_other": "Refused otherwise",
    "activity_waiting": "Waiting for your answer",
    "activity_waiting_hint": "Asked in a conversation that is no longer open here. Approve it to "
    "run it now, or deny it to withdraw it: nothing is sent.",
    "activity_running": "Running it…",
    "activity_withdrawing": "Withdrawing it…",
    "activity_ran": "It ran.",
    "activity_withdrawn": "Withdrawn: nothing was sent.",
    "about_unread": "The About page could not be loaded: {reason}",
    "about_model_here": "Your questions and the assistant's answers stay on this device: the "
    "language model runs here.",
    "about_model_server": "Your questions and the conversation so far go to the model server at "
    "{host}, which this assistant was set up to use: they leave this device to be answered.",
    "about_data": "Everything the assistant keeps, such as its settings, the password's hash and "
    "the audit log, is in one folder on this device: {path}",
}
"""The sentences the Console writes at run time, by key, in English as
``console/console-words.js`` holds them (a test holds the two equal): ``{placeholders}``
are filled by the page; a pair is the singular and the plural, chosen by the count."""

BEFORE_SIGN_IN = frozenset({
    "setup_title", "setup_intro", "setup_missing_token", "setup_password", "setup_hint",
    "setup_again", "setup_submit", "signin_title", "signin_password", "signin_submit",
    "unreachable", "not_signed_in", "too_many_attempts", "service_problem", "not_accepted",
    "session_ended", "signed_out", "enter_password", "password_too_short", "passwords_differ",
    "pause_ends", "connecting", "unreachable_at_start", "address_shared", "address_own_name",
    "address_open_instead",
})  # fmt: skip
"""The words of sign-in and first-run setup: said before a session, in the browser's
language."""


def console_words(language: str) -> dict[str, str]:
    """:data:`CONSOLE_WORDS` said in ``language`` (English for a language without a
    catalog, and for a word a catalog lacks)."""
    voice = Voice(language, CATALOG, DOMAIN)
    return {key: voice.say(key, text) for key, text in CONSOLE_WORDS.items()}


def run_time_words(language: str) -> dict[str, str | dict[str, str]]:
    """:data:`RUN_TIME_WORDS` said in ``language``, their ``{placeholders}`` left for the
    page to fill; a counted one as ``{"one", "other"}``, the forms of this language for one
    and for several (each of the product's languages has two)."""
    voice = Voice(language, CATALOG, DOMAIN)
    said: dict[str, str | dict[str, str]] = {}
    for key, text in RUN_TIME_WORDS.items():
        if isinstance(text, tuple):
            kept = _kept(" ".join(text))
            said[key] = {
                "one": voice.say_count(key, *text, 1, **kept),
                "other": voice.say_count(key, *text, 2, **kept),
            }
        else:
            said[key] = voice.say(key, text, **_kept(text))
    return said


def before_sign_in(language: str) -> dict[str, object]:
    """What the sign-in and setup pages say, in ``language``: ``{"language", "console",
    "run_time"}`` holding only the words of :data:`BEFORE_SIGN_IN`."""
    page = console_words(language)
    run_time = run_time_words(language)
    return {
        "language": Voice(language).language,
        "console": {key: word for key, word in page.items() if key in BEFORE_SIGN_IN},
        "run_time": {key: word for key, word in run_time.items() if key in BEFORE_SIGN_IN},
    }


def browser_language(accept_language: str | None) -> str:
    """The product's language the browser prefers (its ``Accept-Language`` header, by
    its ``q`` weights, negotiated by Babel), else English."""
    ranked = []
    for position, entry in enumerate((accept_language or "").split(",")):
        tag, _, weight = entry.strip().partition(";")
        try:
            q = float(weight.strip().removeprefix("q=")) if weight else 1.0
        except ValueError:
            continue
        if tag and q > 0:
            ranked.append((-q, position, tag.strip()))
    preferred = [tag for _, _, tag in sorted(ranked)]
    return negotiate_locale(preferred, LANGUAGES, sep="-") or DEFAULT_LANGUAGE


def household_voice(data_dir: Path) -> Voice:
    """The ``console`` catalog in the household's language (its setting as it is now):
    the voice of what the service says to a signed-in household about a request."""
    return Voice(HouseholdSettingsStore(data_dir).language(), CATALOG, DOMAIN)


def say_refusal(voice: Voice, refused: ValueError) -> str:
    """A refused setting's sentence said by ``voice`` (context ``refused_<key>``); a list
    among its values is written as a choice ending in this language's "or" (CLDR), a
    refusal among them (the reason for this one) is said first. A refusal without a key
    (a plain ``ValueError``) keeps its English sentence."""
    if not isinstance(refused, SettingRefused):
        return str(refused)
    values = {name: _said_value(voice, value) for name, value in refused.values.items()}
    return voice.say(f"refused_{refused.key}", refused.english, **values)


def refusal_in(language: str, refused: ValueError) -> str:
    """:func:`say_refusal` in ``language``, from the ``console`` catalog."""
    return say_refusal(Voice(language, CATALOG, DOMAIN), refused)


def say_file_problem(voice: Voice, problem: str | None) -> str | None:
    """A settings file's problem as the Console shows it, said by ``voice``: a
    :class:`~sovereign.file_problems.FileProblem` from the ``console`` catalog (context
    ``file_problem_<key>``) with :func:`file_problem_values`, a whole number written as
    this language writes it; a plain sentence (or ``None``) as given."""
    if not isinstance(problem, FileProblem):
        return problem
    values = {
        name: format_decimal(value, locale=voice.language)
        if isinstance(value, int) and not isinstance(value, bool)
        else value
        for name, value in file_problem_values(problem, voice.language).items()
    }
    return voice.say(f"file_problem_{problem.key}", PROBLEMS[problem.key], **values)


def household_problem(data_dir: Path, problem: str | None) -> str | None:
    """A settings file's problem (or ``None``) as the Console shows it, in the
    household's language as it is set now (:func:`household_voice`, read only when
    there is a problem)."""
    return None if problem is None else say_file_problem(household_voice(data_dir), problem)


def file_problem_values(problem: FileProblem, language: str) -> dict[str, object]:
    """The values ``problem`` was made from, said in ``language`` where they are words:
    the system's reason a file is unreadable as the commands say it
    (:meth:`~sovereign.cli_words.CliWords.os_reason`) and what is wrong with its content
    as the Console says the refusal (:func:`refusal_in`)."""
    values = dict(problem.values)
    if "errno" in values:
        refused = OSError(values["errno"], values["reason"])
        values["reason"] = CliWords(language).os_reason(refused)
    if isinstance(values.get("problem"), ValueError):
        values["problem"] = refusal_in(language, values["problem"])
    return values


def _said_value(voice: Voice, value: object) -> object:
    if isinstance(value, ValueError):
        return say_refusal(voice, value)
    if isinstance(value, Sequence) and not isinstance(value, str):
        return format_list([str(item) for item in value], style="or", locale=voice.language)
    return value


def _kept(text: str) -> dict[str, str]:
    """Each ``{placeholder}`` of ``text`` filled with itself, so it reaches the page unfilled."""
    return {name: f"{{{name}}}" for _, name, _, _ in string.Formatter().parse(text) if name}
