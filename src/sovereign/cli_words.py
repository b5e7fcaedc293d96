"""What the administrator's commands say, in the language of the terminal they run in.

``sovereign household-settings``, ``policy``, ``sites``, ``search-settings``,
``private-words``, ``audit``, ``passwd``, ``doctor`` and ``model`` say their
confirmations, errors, reports and ``--help`` from the ``cli`` catalog, beside
``sovereign chat``'s own (``terminal/locale/<language>/LC_MESSAGES/cli.po``, read with
Babel once per process). Their English is here, keyed (the key is the catalog's
``msgctxt``); help texts are keyed by their own English under the context ``help``.

The language is the terminal's locale, as gettext reads it: the first of ``LANGUAGE``
(a list: its first language the product speaks), ``LC_ALL``, ``LC_MESSAGES``, ``LANG``
that is set. A locale that names a language the product does not speak, and ``C`` or
``POSIX`` (how a script asks for the untranslated words), say English. Only when none of
the four is set does the household's setting (``household.json``) speak, else English.
What scripts read never changes: JSON, exit codes, codes and values one types (``de``,
``allow-only``). Decision record: docs/decisions/household-language.md.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from babel.numbers import format_decimal
from babel.support import NullTranslations

from sovereign.po_catalogs import read_catalog

LANGUAGES = ("en", "de", "fr", "es", "nl", "it")
"""The languages the product speaks (ISO 639-1); English is the source language."""
ENGLISH = "en"
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
"""Where a terminal's language is read, in gettext's order."""
CATALOGS = Path(__file__).resolve().parent / "terminal" / "locale"
DOMAIN = "cli"
HELP = "help"
"""The catalog context of help texts (their msgid is the English text)."""

SENTENCES = {
    "error_prefix": "Error: ",
    "problem": "problem: {problem}",
    "not_written": "{path} could not be written: {reason}",
    "household_problem": "problem: {problem} English applies.",
    "household_language": "language: {language}",
    "household_saved": "language: {language}; from the next question on, a question too "
    "short to tell its language is answered in it",
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
    "help_usage": "Usage: ",
    "help_options": "Options",
    "help_commands": "Commands",
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
}
"""Sentences said by a count (``{count}``, written by :meth:`CliWords.say_count`), singular
and plural English, by key."""

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
    "private words",
    "model server",
    "model server CORS",
    "model server address",
    "model tool mode",
)
"""``sovereign doctor``'s check names, said under the context ``doctor``."""


@functools.lru_cache(maxsize=16)
def _translations(language: str) -> NullTranslations:
    if language == ENGLISH:
        return NullTranslations()
    return read_catalog(CATALOGS / language / "LC_MESSAGES" / f"{DOMAIN}.po", language, DOMAIN)


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
        self._translations = _translations(self.language)

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

    def audit_label(self, counter: str) -> str:
        """The audit table's heading for ``counter`` (a key of :data:`AUDIT_LABELS`)."""
        return self._translations.pgettext(f"audit:{counter}", AUDIT_LABELS[counter])

    def check(self, name: str) -> str:
        """A doctor check's name in this language (a name not in :data:`DOCTOR_CHECKS`
        is said as given)."""
        return self._translations.pgettext("doctor", name)

    def help_text(self, english: str) -> str:
        """A help text of a command or option in this language (English when the catalog
        has none)."""
        return self._translations.pgettext(HELP, inspect.cleandoc(english))

    def error(self, message: str) -> click.ClickException:
        """A click error whose ``Error: `` is said in this language too."""
        return CommandError(message, self.say("error_prefix"))


class CommandError(click.ClickException):
    """A command's failure (exit 1) said whole in one language, its prefix included."""

    def __init__(self, message: str, prefix: str) -> None:
        super().__init__(message)
        self.prefix = prefix

    def show(self, file: Any = None) -> None:
        """Print ``<prefix><message>`` to standard error (or ``file``)."""
        click.echo(f"{self.prefix}{self.format_message()}", file=file, err=file is None)


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


_WORDS = "sovereign.cli_words"
"""Where a context keeps the words its help is being said in."""


class _SaidFormatter(click.HelpFormatter):
    """Click's help layout with its headings (Usage, Options, Commands) said in ``words``."""

    def __init__(self, words: CliWords, **options: Any) -> None:
        super().__init__(**options)
        self._words = words

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        """The usage line, its ``Usage:`` said."""
        super().write_usage(prog, args, self._words.say("help_usage") if prefix is None else prefix)

    def section(self, name: str) -> Any:
        """A section of the help, ``Options`` and ``Commands`` said."""
        said = {"Options": "help_options", "Commands": "help_commands"}.get(name)
        return super().section(self._words.say(said) if said else name)


def speak_help(root: click.Command, language: Callable[[], str]) -> None:
    """Make ``root`` and every command under it say ``--help`` in ``language()``, decided
    when the help is shown."""

    class SaidContext(click.Context):
        def get_help(self) -> str:
            words = CliWords(language())
            self.meta[_WORDS] = words
            with said_help(self.command, self, words):
                return super().get_help()

        def make_formatter(self) -> click.HelpFormatter:
            words = self.meta.get(_WORDS)
            if words is None:
                return super().make_formatter()
            width, widest = self.terminal_width, self.max_content_width
            return _SaidFormatter(words, width=width, max_width=widest)

    commands = [root]
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
