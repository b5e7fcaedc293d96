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

from sovereign.capabilities.site_rules import parse_rule
from sovereign.egress import (
    LANGUAGES,
    SAFESEARCH_LEVELS,
    SearchSettings,
    SiteList,
    SiteMode,
    SiteRule,
    describe_search,
)

from .commands import DATA_DIR_OPTION, _data_dir
from .egress_settings import SearchSettingsStore, SiteListStore
from .settings_store import SettingsUnreadable

_MODE_WORDS = {
    SiteMode.OFF: "off: web.fetch may read any public site",
    SiteMode.ALLOW_ONLY: "allow-only: web.fetch reads only the allowed sites",
    SiteMode.BLOCK: "block: web.fetch reads any public site but the blocked ones",
}


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
    store = SiteListStore(_data_dir(data_dir))
    reading = store.read()
    if reading.problem:
        click.secho(f"problem: {reading.problem} No list applies.", fg="red", err=True)
        raise SystemExit(1)
    site_list = reading.value
    click.echo(f"mode: {_MODE_WORDS[site_list.mode]}")
    for name, rules, mode in (
        ("allow", site_list.allow, SiteMode.ALLOW_ONLY),
        ("block", site_list.block, SiteMode.BLOCK),
    ):
        note = " (applies)" if site_list.mode is mode else ""
        click.echo(f"{name} list{note}: {', '.join(r.text for r in rules) or '(empty)'}")


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

    def remove(site_list: SiteList, rules: list[SiteRule]) -> SiteList:
        for rule in rules:
            if rule not in site_list.allow and rule not in site_list.block:
                raise click.ClickException(f"{rule.text} is on neither list.")
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
    store = SiteListStore(_data_dir(option))
    try:
        rules = [parse_rule(text) for text in texts]
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        updated = store.update(lambda current: change(current, rules))
    except SettingsUnreadable as exc:
        raise click.ClickException(str(exc)) from exc
    except OSError as exc:
        raise click.ClickException(f"{store.path} could not be written: {exc.strerror}") from exc
    for rule in rules:
        click.echo(
            f"{rule.text}: {'added to the ' + list_name + ' list' if list_name else 'removed'}"
        )
    click.echo(f"mode: {_MODE_WORDS[updated.mode]} (from the next request on)")
    applies = {"allow": SiteMode.ALLOW_ONLY, "block": SiteMode.BLOCK}.get(list_name or "")
    if applies is not None and updated.mode is not applies:
        click.echo(f"The {list_name} list applies once you run: sovereign sites mode {applies}")


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
    store = SearchSettingsStore(_data_dir(data_dir))
    if language is None and safesearch is None:
        _show_search_settings(store)
        return
    try:
        chosen = _set_search_settings(store, language, safesearch)
    except ValueError as exc:  # a bad language, or a corrupt file and half a change
        raise click.ClickException(str(exc)) from exc
    except OSError as exc:
        raise click.ClickException(f"{store.path} could not be written: {exc.strerror}") from exc
    level = SAFESEARCH_LEVELS[chosen.safesearch]
    click.echo(
        f"Searches now go {describe_search(chosen.language, chosen.safesearch)} "
        f"(language {chosen.language}, safesearch {chosen.safesearch}: {level})."
    )


def _show_search_settings(store: SearchSettingsStore) -> None:
    reading = store.read()
    current = reading.value
    if reading.problem:
        click.secho(f"problem: {reading.problem}", fg="red", err=True)
    click.echo(
        f"language: {current.language}, safesearch: {current.safesearch} "
        f"({describe_search(current.language, current.safesearch)})"
    )
    raise SystemExit(1 if reading.problem else 0)


def _set_search_settings(
    store: SearchSettingsStore, language: str | None, safesearch: int | None
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
        raise ValueError(f"{exc} Or give both --language and --safesearch.") from exc
