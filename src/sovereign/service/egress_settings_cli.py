"""``sovereign sites`` and ``sovereign search-settings``: the household's egress settings.

The same files and checks as the Console's settings (:mod:`.egress_settings`,
:func:`sovereign.capabilities.site_rules.parse_rule`); a change applies from the next
proposal on, without a restart. A corrupt file is never overwritten by an edit: the
command says what is wrong and stops.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import click
from babel import Locale, UnknownLocaleError

from sovereign.capabilities.site_rules import parse_rule
from sovereign.cli_words import ENGLISH, CliWords
from sovereign.egress import (
    LANGUAGES,
    SAFESEARCH_LEVELS,
    SearchSettings,
    SiteList,
    SiteMode,
    SiteRule,
    language_name,
)

from .commands import DATA_DIR_OPTION, _data_dir, command_words, not_written, said_refusal
from .egress_settings import SearchSettingsStore, SiteListStore
from .settings_store import SettingsUnreadable, say_problem, say_unreadable

AUTO, ALL = "auto", "all"

_MODE_WORDS = {
    SiteMode.OFF: "mode_off",
    SiteMode.ALLOW_ONLY: "mode_allow_only",
    SiteMode.BLOCK: "mode_block",
}
"""The sentence saying each mode, by key of :data:`sovereign.cli_words.SENTENCES`."""


@click.group(short_help="Show or edit the sites web.fetch may read.", invoke_without_command=True)
@click.pass_context
def sites(context: click.Context) -> None:
    """The household's site list for web.fetch: off, allow-only or block.

    Sites are host names (example.org), wildcards one label or more below a name
    (*.example.org, never a public suffix such as *.co.uk) or public IP addresses.
    Without a sub-command: the same as ``sites list``.
    """
    if context.invoked_subcommand is None:
        context.invoke(sites_list)


@sites.command("list")
@DATA_DIR_OPTION
def sites_list(data_dir: Path | None) -> None:
    """Print the mode and both lists; exit 1 when the file is unusable."""
    words = command_words(data_dir)
    store = SiteListStore(_data_dir(data_dir))
    reading = store.read()
    if reading.problem:
        problem = say_problem(reading.problem, words)
        click.secho(words.say("sites_problem", problem=problem), fg="red", err=True)
        raise SystemExit(1)
    site_list = reading.value
    click.echo(words.say("sites_mode", mode=words.say(_MODE_WORDS[site_list.mode])))
    for name, rules, mode in (
        ("allow", site_list.allow, SiteMode.ALLOW_ONLY),
        ("block", site_list.block, SiteMode.BLOCK),
    ):
        key = f"{name}_list_applies" if site_list.mode is mode else f"{name}_list"
        shown = ", ".join(r.text for r in rules) or words.say("empty_list")
        click.echo(words.say(key, sites=shown))


@sites.command("allow")
@click.argument("site", nargs=-1, required=True)
@DATA_DIR_OPTION
def sites_allow(site: tuple[str, ...], data_dir: Path | None) -> None:
    """Add SITE to the allow list (applies in allow-only mode)."""
    _edit(data_dir, lambda s, rules: replace(s, allow=_added(s.allow, rules)), site, "allow")


@sites.command("block")
@click.argument("site", nargs=-1, required=True)
@DATA_DIR_OPTION
def sites_block(site: tuple[str, ...], data_dir: Path | None) -> None:
    """Add SITE to the block list (applies in block mode)."""
    _edit(data_dir, lambda s, rules: replace(s, block=_added(s.block, rules)), site, "block")


@sites.command("remove")
@click.argument("site", nargs=-1, required=True)
@DATA_DIR_OPTION
def sites_remove(site: tuple[str, ...], data_dir: Path | None) -> None:
    """Remove SITE from whichever list holds it."""

    words = command_words(data_dir)

    def remove(site_list: SiteList, rules: list[SiteRule]) -> SiteList:
        for rule in rules:
            if rule not in site_list.allow and rule not in site_list.block:
                raise words.error(words.say("site_on_no_list", site=rule.text))
        kept = [
            tuple(r for r in lst if r not in rules) for lst in (site_list.allow, site_list.block)
        ]
        return replace(site_list, allow=kept[0], block=kept[1])

    _edit(data_dir, remove, site, None)


@sites.command("mode")
@click.argument("mode", type=click.Choice([m.value for m in SiteMode]))
@DATA_DIR_OPTION
def sites_mode(mode: str, data_dir: Path | None) -> None:
    """Choose which list applies: off, allow-only or block."""
    _edit(data_dir, lambda s, _rules: replace(s, mode=SiteMode(mode)), (), None)


def _added(current: tuple[SiteRule, ...], rules: list[SiteRule]) -> tuple[SiteRule, ...]:
    return current + tuple(rule for rule in dict.fromkeys(rules) if rule not in current)


def _edit(
    option: Path | None,
    change: Callable[[SiteList, list[SiteRule]], SiteList],
    texts: tuple[str, ...],
    list_name: str | None,
) -> None:
    words = command_words(option)
    store = SiteListStore(_data_dir(option))
    try:
        rules = [parse_rule(text) for text in texts]
    except ValueError as exc:
        raise words.error(said_refusal(words, exc)) from exc
    try:
        updated = store.update(lambda current: change(current, rules))
    except SettingsUnreadable as exc:
        raise words.error(say_unreadable(exc, words)) from exc
    except OSError as exc:
        raise not_written(words, store.path, exc) from exc
    for rule in rules:
        click.echo(words.say(f"site_added_{list_name}" if list_name else "site_removed",
                             site=rule.text))  # fmt: skip
    click.echo(words.say("sites_mode_saved", mode=words.say(_MODE_WORDS[updated.mode])))
    applies = {"allow": SiteMode.ALLOW_ONLY, "block": SiteMode.BLOCK}.get(list_name or "")
    if applies is not None and updated.mode is not applies:
        click.echo(words.say(f"{list_name}_list_waits"))


@click.command("search-settings", short_help="Show or set the search language and safe search.")
@click.option(
    "--language", default=None, help="A SearXNG language code (de, en-GB, …), auto or all."
)
@click.option(
    "--safesearch", type=click.IntRange(0, 2), default=None, help="0 off, 1 moderate, 2 strict."
)
@click.option("--list-languages", is_flag=True, help="Print every language code and its name.")
@DATA_DIR_OPTION
def search_settings(
    language: str | None, safesearch: int | None, list_languages: bool, data_dir: Path | None
) -> None:
    """Show the household's search settings, or change them (every search card shows them)."""
    if list_languages:
        for code, name in LANGUAGES.items():
            click.echo(f"{code}\t{name}")
        return
    words = command_words(data_dir)
    store = SearchSettingsStore(_data_dir(data_dir))
    if language is None and safesearch is None:
        _show_search_settings(store, words)
        return
    try:
        chosen = _set_search_settings(store, language, safesearch, words)
    except ValueError as exc:  # a bad language, or a corrupt file and half a change
        raise words.error(said_refusal(words, exc)) from exc
    except OSError as exc:
        raise not_written(words, store.path, exc) from exc
    click.echo(words.say("search_saved", **_search_values(chosen, words)))


def _search_values(settings: SearchSettings, words: CliWords) -> dict[str, object]:
    level = settings.safesearch
    said = words.say(f"safesearch_{level}") if level in SAFESEARCH_LEVELS else str(level)
    return {
        "language": settings.language,
        "name": _language_named(settings.language, words),
        "safesearch": level,
        "level": said,
    }


def _language_named(code: str, words: CliWords) -> str:
    """A search language's name in ``words``' language: ``auto`` and ``all`` from the
    catalog, a code by CLDR (Babel), SearXNG's English name in English or when CLDR has
    none."""
    if code in (AUTO, ALL):
        return words.say(f"search_language_{code}")
    if words.language != ENGLISH:
        try:
            return Locale.parse(code.replace("-", "_")).get_display_name(words.language)
        except (UnknownLocaleError, ValueError):  # a code CLDR does not know
            pass
    return language_name(code)


def _show_search_settings(store: SearchSettingsStore, words: CliWords) -> None:
    reading = store.read()
    if reading.problem:
        problem = say_problem(reading.problem, words)
        click.secho(words.say("problem", problem=problem), fg="red", err=True)
    click.echo(words.say("search_settings", **_search_values(reading.value, words)))
    raise SystemExit(1 if reading.problem else 0)


def _set_search_settings(
    store: SearchSettingsStore, language: str | None, safesearch: int | None, words: CliWords
) -> SearchSettings:
    """Both given: the settings, whatever the file held. One given: the other kept,
    in one locked read-change-write (a corrupt file then refuses the change).

    Raises:
        ValueError: a language SearXNG does not list, or a corrupt file (its sentence).
        OSError: the data directory refused the write.
    """
    if language is not None and safesearch is not None:
        return store.save(SearchSettings(language, safesearch))

    def change(current: SearchSettings) -> SearchSettings:
        return SearchSettings(
            current.language if language is None else language,
            current.safesearch if safesearch is None else safesearch,
        )

    try:
        return store.update(change)
    except SettingsUnreadable as exc:
        problem = say_unreadable(exc, words)
        raise ValueError(words.say("search_give_both", problem=problem)) from exc
