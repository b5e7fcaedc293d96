"""What the administrator's commands say, in the language of the terminal they run in.

``sovereign household-settings``, ``policy``, ``sites``, ``search-settings``,
``private-words``, ``audit``, ``passwd``, ``doctor`` and ``model`` say their
confirmations, errors, reports and ``--help`` from the ``cli`` catalog, beside
``sovereign chat``'s own (``terminal/locale/<language>/LC_MESSAGES/cli.po``, read with
Babel once per process). Their English is here, keyed (the key is the catalog's
``msgctxt``); help texts are keyed by their own English under the context ``help``, and
click's own words (its usage errors, ``Error:``, ``Usage:``, a prompt's complaints) by
click's English under the context ``click``: click asks gettext for each, and while the
command line runs (:class:`SpokenGroup`) those calls are answered from this catalog.

The language is the terminal's locale, as gettext reads it: the first of ``LANGUAGE``
(a list: its first language the product speaks), ``LC_ALL``, ``LC_MESSAGES``, ``LANG``
that is set. A locale that names a language the product does not speak, and ``C`` or
``POSIX`` (how a script asks for the untranslated words), say English. Only when none of
the four is set does the household's setting (``household.json``) speak, else English.
What scripts read never changes: JSON, exit codes, codes and values one types (``de``,
``allow-only``). Decision record: docs/decisions/household-language.md.
"""

from __future__ import annotations

import errno
import gettext
import inspect
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from babel.numbers import format_decimal, format_percent

from sovereign.po_catalogs import translations

LANGUAGES = ("en", "de", "fr", "es", "nl", "it")
"""The languages the product speaks (ISO 639-1); English is the source language."""
ENGLISH = "en"
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
"""Where a terminal's language is read, in gettext's order."""
CATALOGS = Path(__file__).resolve().parent / "terminal" / "locale"
DOMAIN = "cli"
HELP = "help"
"""The catalog context of help texts (their msgid is the English text)."""
CLICK = "click"
"""The catalog context of click's own words (their msgid is click's English)."""

SENTENCES = {
    "problem": "problem: {problem}",
    "not_written": "{path} could not be written: {reason}",
    "os_error": "{path}: {reason}",
    "settings_left_alone": "{problem} Fix or remove it first; it is left as it is so nothing "
    "in it is lost.",
    "household_problem": "problem: {problem} English applies.",
    "household_language": "language: {language}",
    "household_saved": "language: {language}; the Console is shown in it from its next page "
    "load, and from the next question on, a question too short to tell its language is "
    "answered in it",
    "web_search_on": "web search: on",
    "web_search_off": "web search: off",
    "web_search_now_on": "web search: on (from the next message on)",
    "web_search_now_off": "web search: off (from the next message on)",
    "policy_problem": "problem: {problem} It counts as off.",
    "no_private_words": "(no private words)",
    "word_not_changed": "{word} not changed: {reason}",
    "sites_problem": "problem: {problem} No list applies.",
    "mode_off": "off: web.fetch may read any public site",
    "mode_allow_only": "allow-only: web.fetch reads only the allowed sites",
    "mode_block": "block: web.fetch reads any public site but the blocked ones",
    "sites_mode": "mode: {mode}",
    "sites_mode_saved": "mode: {mode} (from the next request on)",
    "allow_list": "allow list: {sites}",
    "allow_list_applies": "allow list (applies): {sites}",
    "block_list": "block list: {sites}",
    "block_list_applies": "block list (applies): {sites}",
    "empty_list": "(empty)",
    "site_added_allow": "{site}: added to the allow list",
    "site_added_block": "{site}: added to the block list",
    "site_removed": "{site}: removed",
    "site_on_no_list": "{site} is on neither list.",
    "allow_list_waits": "The allow list applies once you run: sovereign sites mode allow-only",
    "block_list_waits": "The block list applies once you run: sovereign sites mode block",
    "safesearch_0": "off",
    "safesearch_1": "moderate",
    "safesearch_2": "strict",
    "search_language_auto": "any language (the search service chooses)",
    "search_language_all": "all languages",
    "search_settings": "language: {language}, safesearch: {safesearch} (in {name}, safe "
    "search {level})",
    "search_saved": "Searches now go in {name}, safe search {level} (language {language}, "
    "safesearch {safesearch}: {level}).",
    "search_give_both": "{problem} Or give both --language and --safesearch.",
    "new_password": "New password",
    "repeat_password": "Repeat for confirmation",
    "password_set": "Password set in {path}. Signed-in Console sessions are signed out.",
    "audit_unreadable": "the audit log cannot be read: {reason}",
    "audit_heading": "Capability outcomes since {since} ({period})",
    "audit_legend": "asked: approval requested; waiting: not answered yet; policy_off: web "
    "search was off; rejected: forbidden address for web.fetch; refused: other refusals "
    "(arguments, limits, no audit record possible); unknown: started, no outcome; "
    "failed_unsent: failed before anything was sent (also counted in failed)",
    "model_verifying": "Verifying {name}",
    "model_verified": "OK: {path} is the published model (SHA-256 {sha256}).",
    "doctor_fix": "fix: {fix}",
    "doctor_probe": "The engine probe sends {query} to SearXNG's search engines.",
    "doctor_searxng_url_bad": "SearXNG's address must be http(s)://host[:port], not {url}",
    "doctor_searxng_url_fix": "pass --searxng-url http://host:port",
    "doctor_probe_not_asked": "not checked: sovereign doctor --probe sends a test search to "
    "the engines",
    "doctor_healthz_ok": "{url}/healthz answered OK",
    "doctor_healthz_not_ok": "{url}/healthz answered HTTP {status}, not OK.",
    "doctor_healthz_fix": "check that the address is SearXNG's (sovereign doctor "
    "--searxng-url) and its logs (journalctl -u sovereign-searxng).",
    "doctor_api_ok": "format=json is enabled and the limiter let the check through",
    "doctor_json_refused": "SearXNG refuses format=json (HTTP 403).",
    "doctor_json_fix": "add json to search.formats in settings.yml (search: formats: [html, "
    "json]) and restart SearXNG.",
    "doctor_limiter": "SearXNG's limiter refused the check (HTTP 429).",
    "doctor_limiter_fix": "set server.limiter: false in settings.yml and "
    "SEARXNG_LIMITER=false, then restart SearXNG.",
    "doctor_search_unexpected": "unexpected answer HTTP {status} from /search.",
    "doctor_engines_none": "none",
    "doctor_engines_fix": "no engine returned a result: check the device's internet "
    "connection and SearXNG's logs.",
    "doctor_engine_log_unread": "not checked: no readable journal of a running {units}",
    "doctor_engines_started": "every engine started (SearXNG's log of this run)",
    "doctor_engines_not_started_fix": "read SearXNG's journal (journalctl -u "
    "sovereign-searxng, or -source); restart it once the cause (often no internet at "
    "start-up) is gone",
    "console_nothing_listens": "nothing listens on port {port} (the service is not running "
    "here)",
    "console_no_ipv6_loopback": "127.0.0.1:{port} is held; this device has no IPv6 loopback "
    "to take",
    "console_ipv6_free": "[::1]:{port} is free: any program on this device can take it and "
    "receive what browsers send to {name} (they try ::1 first).",
    "console_ipv4_nobody": "[::1]:{port} is held by {holder}, and 127.0.0.1:{port} by nobody.",
    "console_other_program": "[::1]:{port} is held by {holder}, not by the service on "
    "127.0.0.1:{port} ({service}): browsers opening {name} reach that program first.",
    "console_one_program": "127.0.0.1:{port} and [::1]:{port} are held by one program "
    "({holder})",
    "console_process": "process {pid} ({command})",
    "console_user_program": "a program of user {user}",
    "doctor_console_fix": "stop the program named, then restart the service (sovereign serve "
    "binds both addresses and refuses to start while another program holds one)",
    "doctor_policy_fix": "rewrite it: sovereign policy enable-web-search (or "
    "disable-web-search)",
    "doctor_home_ipv6_fix": "write {example} there, or remove the file",
    "doctor_model_not_used": "not checked: the openai backend does not use the embedded model",
    "doctor_model_user_fix": "run sovereign doctor as the service's user, or let that user "
    "read the file",
    "doctor_model_fix": "sovereign model install (or serve --backend openai / --model-path "
    "FILE.gguf)",
    "doctor_model_ok": "{path} is installed and verified",
    "doctor_home_assistant_fix": "correct the file (see README: Pi-hole and Home Assistant "
    "settings); until then it counts as off",
    "doctor_pihole_fix": "correct the file (see README: Pi-hole and Home Assistant settings); "
    "until then the assistant cannot read Pi-hole's totals",
    "doctor_absent_or_usable": "absent or usable",
    "doctor_private_words_fix": "fix or remove the file, then: sovereign private-words add "
    "WORD; or chmod 600 it",
    "doctor_server_unreached": "not checked: the server cannot be reached (see the tool mode "
    "below)",
    "doctor_model_unnamed": "an unnamed model",
    "doctor_llama_server": "llama-server {build} at {url}, serving {model}",
    "doctor_no_model_named": "no model it names",
    "doctor_other_server": "an OpenAI-compatible server at {url} (not llama-server: no "
    "/props), serving {served}",
    "doctor_cors_ok": "no other web page may read its answers",
    "doctor_cors_open": "a web page open in a browser on this device could use the model "
    "through it: it grants {grants}",
    "doctor_cors_fix": "start llama-server with --cors-origins http://sovereign.localhost:8092 "
    "--no-cors-credentials, as deploy/systemd/sovereign-llama-server.service does",
    "doctor_bind_remote": "not checked: the server is on {host}, not this device's loopback; "
    "prompts and answers cross the network, and that machine decides who else may use it",
    "doctor_bind_unknown": "not checked: this system does not say who listens on port {port}",
    "doctor_bind_ok": "listens on {addresses} port {port} only",
    "doctor_bind_wide": "listens on {addresses} port {port}: any machine that reaches this "
    "device can use the model",
    "doctor_bind_fix": "start llama-server with --host 127.0.0.1 "
    "(deploy/systemd/sovereign-llama-server.service does, and allows it loopback traffic "
    "only)",
    "doctor_tool_mode_set": "{backend} backend, {mode} mode (set, not tested)",
    "doctor_server_unavailable": "the model server is unavailable: {error}",
    "doctor_server_unavailable_fix": "start the model server (llama-server on "
    "127.0.0.1:8081) or pass --openai-base-url",
    "doctor_answers_streamed": "streamed",
    "doctor_answers_whole": "sent whole (the server does not stream)",
    "doctor_plan": "{mode} mode: {reason}; answers are {answers}. Probes: {notes}",
    "doctor_tools_refused_fix": "the server refuses tools: use --tool-mode auto (or schema)",
    "check_policy_on": "policy file readable; web search is on",
    "check_policy_off": "policy file readable; web search is off",
    "check_policy_bad": "{problem} Web search is off until it is fixed.",
    "check_sites_bad": "{problem} web.fetch applies no site list until it is fixed.",
    "check_sites_fix": "correct or delete the file, then set the list again (sovereign sites …)",
    "check_search_bad": "{problem} Searches use language auto and safe search moderate.",
    "check_search_fix": "set them again: sovereign search-settings --language … --safesearch …",
    "check_search": "language {language}, safesearch {safesearch}",
    "check_household_bad": "{problem} Short questions are answered in English.",
    "check_household_fix": "set it again: sovereign household-settings --language CODE (or "
    "in the Console)",
    "check_household": "{name} ({code}) for the Console and for questions too short to tell "
    "their language",
    "check_audit_unwritable": "{path} cannot be written: {reason}. Until it can, no "
    "capability runs (each call is refused with AUDIT_UNAVAILABLE).",
    "check_audit_unwritable_fix": "free space on the data filesystem, remount it read-write, "
    "or give the service's user write access to {directory}",
    "check_audit_writable": "{path} can be written",
    "check_audit_writable_new": "{path} (created at the first call) can be written",
    "check_audit_unreadable": "{path} cannot be read: {reason}.",
    "check_audit_storage": "check the storage",
    "check_audit_torn": "{path} ends with a torn line{aside}.",
    "check_audit_torn_fix": "restart the service (sovereign serve): it sets the torn line "
    "aside at start-up",
    "check_audit_lines_fix": "keep the file as the record it is and start a new one: mv "
    "{path} {path}.old",
    "check_audit_room": "{free} GB free of {total} GB ({used} used) on the filesystem of "
    "{where}",
    "check_audit_room_unknown": "the filesystem of {where} reports no size",
    "check_audit_room_low": "{detail}: writes will soon be refused, and a call whose audit "
    "record cannot be written does not run.",
    "check_audit_room_fix": "free space there (sovereign audit and the Activity panel keep "
    "working)",
}
"""Every sentence of the commands' own by its key (its catalog context); ``{...}`` is
filled when it is said."""

COUNTED = {
    "private_words": (
        "{count} private word; applies to the next request.",
        "{count} private words; applies to the next request.",
    ),
    "days": ("{count} day", "{count} days"),
    "may_have_left": (
        "{name}: {count} call may have left — outcome unknown (the service stopped while it "
        "ran)",
        "{name}: {count} calls may have left — outcome unknown (the service stopped while it "
        "ran)",
    ),
    "repairs": ("{name}: {count} failure: {repair}", "{name}: {count} failures: {repair}"),
    "clock_jumps": (
        "The device's clock jumped {count} time; times are placed by the device's uptime "
        "instead.",
        "The device's clock jumped {count} times; times are placed by the device's uptime "
        "instead.",
    ),
    "set_aside": (
        "{count} torn line was set aside in audit.jsonl.corrupt.",
        "{count} torn lines were set aside in audit.jsonl.corrupt.",
    ),
    "unreadable": ("{count} unreadable line skipped", "{count} unreadable lines skipped"),
    "lost": (
        "{count} record was lost while the audit log could not be written (the data "
        "filesystem was full or read-only); the counts above miss it.",
        "{count} records were lost while the audit log could not be written (the data "
        "filesystem was full or read-only); the counts above miss them.",
    ),
    "doctor_note": (
        "[note] {name} failed {count} time in the last day: {repair}",
        "[note] {name} failed {count} times in the last day: {repair}",
    ),
    "doctor_engines_answered": (
        "{count} engine answered the probe ({names})",
        "{count} engines answered the probe ({names})",
    ),
    "doctor_engines_failed": ("; {count} failed: {names}", "; {count} failed: {names}"),
    "doctor_engines_not_started": (
        "{count} engine failed to initialise and is left out of every search until SearXNG "
        "restarts: {names}",
        "{count} engines failed to initialise and are left out of every search until SearXNG "
        "restarts: {names}",
    ),
    "check_private_words": (
        "{count} private word checked before anything leaves",
        "{count} private words checked before anything leaves",
    ),
    "check_sites": ("mode {mode}, {count} site applies", "mode {mode}, {count} sites apply"),
    "check_audit_set_aside": (
        "; {count} torn line was set aside in {name}",
        "; {count} torn lines were set aside in {name}",
    ),
    "check_audit_lines_unreadable": (
        "{unreadable} of {count} line of {path} cannot be read{aside}.",
        "{unreadable} of {count} lines of {path} cannot be read{aside}.",
    ),
    "check_audit_readable": (
        "{count} record, every line readable{aside}",
        "{count} records, every line readable{aside}",
    ),
}
"""Sentences said by a count (``{count}``, written by :meth:`CliWords.say_count`), singular
and plural English, by key."""

OS_REASONS = {
    "ENOSPC": "No space left on device",
    "EDQUOT": "Disk quota exceeded",
    "EROFS": "Read-only file system",
    "EACCES": "Permission denied",
    "EPERM": "Operation not permitted",
    "EIO": "Input/output error",
    "ENOENT": "No such file or directory",
}
"""Why the system refused to read or write a file, by ``errno`` name, in the system's
English (``strerror``); said under the context ``os_error:<name>``. Other errors are
said in the system's own words."""

AUDIT_LABELS = {
    "capability": "capability",
    "proposed": "proposed",
    "confirmation_requested": "asked",
    "flagged": "flagged",
    "awaiting": "waiting",
    "approved": "approved",
    "edited": "edited",
    "denied": "denied",
    "expired": "expired",
    "refused_by_policy": "policy_off",
    "rejected_target": "rejected",
    "refused_other": "refused",
    "failed": "failed",
    "failed_nothing_left": "failed_unsent",
    "executed": "executed",
    "outcome_unknown": "unknown",
    "total": "total",
}
"""The audit table's column headings (and its last row's ``total``), by counter; said
under the context ``audit:<counter>``."""

DOCTOR_CHECKS = (
    "console address",
    "SearXNG reachable",
    "SearXNG JSON API and limiter",
    "SearXNG engines",
    "SearXNG engine start-up",
    "policy file",
    "site list",
    "search settings",
    "household language",
    "home IPv6 prefix",
    "audit log writable",
    "audit log readable",
    "data filesystem space",
    "embedded model",
    "home assistant settings",
    "Pi-hole settings",
    "private words",
    "model server",
    "model server CORS",
    "model server address",
    "model tool mode",
)
"""``sovereign doctor``'s check names, said under the context ``doctor``."""

CLICK_WORDS = (
    "Error: {message}",
    "Usage:",
    "Try '{command} {option}' for help.",
    "Options",
    "Commands",
    "Positional arguments",
    "Aborted!",
    "Missing command.",
    ("Got unexpected extra argument ({args})", "Got unexpected extra arguments ({args})"),
    "No such option {name!r}.",
    "No such command {name!r}.",
    ("Did you mean {possibility}?", "(Did you mean one of: {possibilities}?)"),
    "Option {name!r} does not take a value.",
    ("Option {name!r} requires an argument.", "Option {name!r} requires {nargs} arguments."),
    "Argument {name!r} takes {nargs} values.",
    ("Takes {nargs} values but 1 was given.", "Takes {nargs} values but {len} were given."),
    (
        "{len_type} values are required, but {len_value} was given.",
        "{len_type} values are required, but {len_value} were given.",
    ),
    "Missing argument",
    "Missing option",
    "Missing parameter",
    "Missing {param_type}",
    "Invalid value: {message}",
    "Invalid value for {param_hint}: {message}",
    "Choose from:\n\t{choices}",
    ("{value!r} is not {choice}.", "{value!r} is not one of {choices}."),
    "{value!r} is not a valid {number_type}.",
    "{value} is not in the range {range}.",
    "{value!r} is not a valid boolean. Recognized values: {states}",
    "{value!r} is not a valid UUID.",
    (
        "{value!r} does not match the format {format}.",
        "{value!r} does not match the formats {formats}.",
    ),
    "{name} {filename!r} does not exist.",
    "{name} {filename!r} is a file.",
    "{name} {filename!r} is a directory.",
    "{name} {filename!r} is not readable.",
    "{name} {filename!r} is not writable.",
    "{name} {filename!r} is not executable.",
    "Could not open file {filename!r}: {message}",
    "unknown error",
    "Error: The two entered values do not match.",
    "Error: invalid input",
    "default: {default}",
    "env var: {var}",
    "required",
    "(dynamic)",
    "deprecated",
    "DeprecationWarning: The command {name!r} is deprecated.{extra_message}",
    "DeprecationWarning: The {param_type} {name!r} is deprecated.{extra_message}",
)
"""click's own words an administrator can meet while a command runs: usage errors and
their ``Usage:``/``Try … for help.``/``Error:`` frame, the help's headings and notes
(``[default: …]``, ``[required]``), a prompt's complaints, ``Aborted!``; a pair is said by
a count. Their msgid is click's English, under the context :data:`CLICK`. Words click
fixes when a command is defined (``Show this message and exit.``, the names ``file`` and
``directory`` of a path) are not among them: the help texts are said as help, and the
path sentences are said without the name."""


def _code(entry: str) -> str:
    """``"de_DE.UTF-8@euro"`` → ``"de"``; ``"C.UTF-8"`` → ``"c"``."""
    return entry.split(".", 1)[0].split("@", 1)[0].replace("-", "_").split("_", 1)[0].lower()


def locale_language(environ: Mapping[str, str]) -> str | None:
    """The language the terminal's locale asks for: one of :data:`LANGUAGES`, English for
    a locale the product does not speak (``C``, ``POSIX``, ``pt_BR``), or ``None`` when
    none of :data:`LOCALE_VARIABLES` is set (the locale says nothing)."""
    for name in LOCALE_VARIABLES:
        value = environ.get(name, "").strip()
        if not value:
            continue
        entries = value.split(":") if name == "LANGUAGE" else [value]
        for entry in entries:
            if _code(entry) in LANGUAGES:
                return _code(entry)
        return ENGLISH
    return None


def command_language(
    household: Callable[[], str], environ: Mapping[str, str] | None = None
) -> str:
    """The language a command speaks: the locale's (:func:`locale_language`), or when the
    locale says nothing, ``household()`` (the household's setting), else English."""
    said = locale_language(os.environ if environ is None else environ)
    if said is not None:
        return said
    try:
        chosen = household()
    except OSError:
        return ENGLISH
    return chosen if chosen in LANGUAGES else ENGLISH


class CliWords:
    """The commands' own sentences in one language.

    Args:
        language: ISO 639-1; one of :data:`LANGUAGES` (anything else speaks English).
    """

    def __init__(self, language: object = ENGLISH) -> None:
        self.language = str(language) if language in LANGUAGES else ENGLISH
        self._translations = translations(CATALOGS, DOMAIN, self.language)

    def say(self, key: str, **values: object) -> str:
        """The sentence ``key`` of :data:`SENTENCES` in this language, filled with ``values``.

        Raises:
            KeyError: ``key`` is not one of :data:`SENTENCES`.
        """
        return self._translations.pgettext(key, SENTENCES[key]).format(**values)

    def say_count(self, key: str, count: int, **values: object) -> str:
        """The sentence ``key`` of :data:`COUNTED` for ``count`` by this language's plural
        rule, ``{count}`` written as this language writes numbers."""
        one, many = COUNTED[key]
        sentence = self._translations.npgettext(key, one, many, count)
        return sentence.format(count=self.number(count), **values)

    def number(self, value: int) -> str:
        """``value`` written as this language writes numbers (``8,107``; ``8.107`` in German)."""
        return format_decimal(value, locale=self.language)

    def decimal(self, value: float) -> str:
        """``value`` with one decimal, as this language writes it (``1.5``; ``1,5`` in German)."""
        return format_decimal(value, format="#,##0.0", locale=self.language)

    def percent(self, share: float) -> str:
        """``share`` (0 to 1) as a whole percentage, as this language writes it (``42%``,
        ``42 %`` in German and French)."""
        return format_percent(share, locale=self.language)

    def os_reason(self, error: OSError) -> str:
        """Why the system refused a file operation (``error``), in this language: one of
        :data:`OS_REASONS` from the catalog, any other in the system's words."""
        name = errno.errorcode.get(error.errno or 0, "")
        if name in OS_REASONS:
            return self._translations.pgettext(f"os_error:{name}", OS_REASONS[name])
        return error.strerror or str(error)

    def audit_label(self, counter: str) -> str:
        """The audit table's heading for ``counter`` (a key of :data:`AUDIT_LABELS`)."""
        return self._translations.pgettext(f"audit:{counter}", AUDIT_LABELS[counter])

    def phrase(self, context: str, english: str, /, **values: object) -> str:
        """A sentence a layer below the commands keys itself (``context``; ``english``: its
        English with ``{placeholders}``), in this language, filled with ``values``; a
        whole number among them written as this language writes numbers."""
        filled = {
            name: self.number(value)
            if isinstance(value, int) and not isinstance(value, bool)
            else value
            for name, value in values.items()
        }
        return self._translations.pgettext(context, english).format(**filled)

    def repair(self, reason: str, english: str) -> str:
        """The owner's repair for a failure the audit log gives ``reason`` for (its English
        ``english``: :data:`sovereign.conversation.voice.activity.REPAIRS`), in this
        language; said under the context ``repair:<reason>``."""
        return self._translations.pgettext(f"repair:{reason}", english)

    def check(self, name: str) -> str:
        """A doctor check's name in this language (a name not in :data:`DOCTOR_CHECKS`
        is said as given)."""
        return self._translations.pgettext("doctor", name)

    def help_text(self, english: str) -> str:
        """A help text of a command or option in this language (English when the catalog
        has none)."""
        return self._translations.pgettext(HELP, inspect.cleandoc(english))

    def click_text(self, english: str) -> str:
        """One of click's own words (:data:`CLICK_WORDS`, its msgid) in this language
        (click's English when the catalog has none)."""
        return self._translations.pgettext(CLICK, english)

    def click_count(self, one: str, many: str, count: int) -> str:
        """One of click's own words said by ``count`` (a pair of :data:`CLICK_WORDS`), by
        this language's plural rule."""
        return self._translations.npgettext(CLICK, one, many, count)

    def error(self, message: str) -> click.ClickException:
        """A click error whose ``Error:`` is said in this language too."""
        return CommandError(self.click_text("Error: {message}").format(message=message), message)


class CommandError(click.ClickException):
    """A command's failure (exit 1) said whole in one language, its ``Error:`` included.

    Args:
        line: what is printed (``Fehler: …``). message: the failure alone.
    """

    def __init__(self, line: str, message: str) -> None:
        super().__init__(message)
        self.line = line

    def show(self, file: Any = None) -> None:
        """Print the line to standard error (or ``file``)."""
        click.echo(self.line, file=file, err=file is None)


def _helped(command: click.Command, context: click.Context) -> Iterator[Any]:
    yield command
    yield from command.get_params(context)
    if isinstance(command, click.Group):
        yield from command.commands.values()


@contextmanager
def said_help(command: click.Command, context: click.Context, words: CliWords) -> Iterator[None]:
    """While formatting ``command``'s help: its text, its options' and (for a group) its
    commands' short help said in ``words``' language; put back afterwards."""
    kept: list[tuple[Any, str, str]] = []
    try:
        for item in _helped(command, context):
            for attribute in ("help", "short_help"):
                english = getattr(item, attribute, None)
                if isinstance(english, str) and english:
                    kept.append((item, attribute, english))
                    setattr(item, attribute, words.help_text(english))
        yield
    finally:
        for item, attribute, english in kept:
            setattr(item, attribute, english)


@contextmanager
def said_click(language: Callable[[], str]) -> Iterator[None]:
    """While open: click's own words said in ``language()`` (decided the first time click
    says one), from the catalog's context :data:`CLICK`; put back afterwards.

    click asks gettext for its words (``from gettext import gettext as _``, and
    ``ngettext``), in the default domain that no catalog of ours fills; each of its loaded
    modules' names bound to those two functions is bound to this language's answers
    instead, and bound back on leaving.
    """
    chosen: list[CliWords] = []

    def words() -> CliWords:
        if not chosen:
            chosen.append(CliWords(language()))
        return chosen[0]

    def said(english: str) -> str:
        return words().click_text(english)

    def said_count(one: str, many: str, count: int) -> str:
        return words().click_count(one, many, count)

    answers: dict[Any, Any] = {gettext.gettext: said, gettext.ngettext: said_count}
    kept: list[tuple[Any, str, Any]] = []
    try:
        for name, module in list(sys.modules.items()):
            if module is None or (name != "click" and not name.startswith("click.")):
                continue
            for attribute, value in list(vars(module).items()):
                if any(value is plain for plain in answers):
                    kept.append((module, attribute, value))
                    setattr(module, attribute, answers[value])
        yield
    finally:
        for module, attribute, value in kept:
            setattr(module, attribute, value)


class SpokenGroup(click.Group):
    """The command line's root group: while it runs (:meth:`main`, which also shows its
    errors), click's own words are said in the language :func:`speak` gave it."""

    language: Callable[[], str] = staticmethod(lambda: ENGLISH)

    def main(self, *args: Any, **options: Any) -> Any:
        """Run the command line as click does, saying click's own words (:func:`said_click`)."""
        with said_click(self.language):
            return super().main(*args, **options)


def speak(root: SpokenGroup, language: Callable[[], str]) -> None:
    """Make the command line under ``root`` speak ``language()``, decided when it speaks:
    every command's ``--help`` (its texts from the context ``help``), and click's own
    words while it runs (:class:`SpokenGroup`)."""
    root.language = language

    class SaidContext(click.Context):
        def get_help(self) -> str:
            words = CliWords(language())
            with said_help(self.command, self, words):
                return super().get_help()

    commands: list[click.Command] = [root]
    while commands:
        command = commands.pop()
        command.context_class = SaidContext
        if isinstance(command, click.Group):
            commands.extend(command.commands.values())


def every_help_text(root: click.Command) -> Iterator[str]:
    """Every help text under ``root`` (commands' help and short help, options' help),
    cleaned as :meth:`CliWords.help_text` looks them up."""
    commands = [root]
    while commands:
        command = commands.pop()
        context = click.Context(command)
        for item in _helped(command, context):
            for attribute in ("help", "short_help"):
                english = getattr(item, attribute, None)
                if isinstance(english, str) and english:
                    yield inspect.cleandoc(english)
        if isinstance(command, click.Group):
            commands.extend(command.commands.values())
