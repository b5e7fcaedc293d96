"""``sovereign private-words add|remove|list``: the household's private words (attached in cli.py).

The same file the Console's settings edit (``<data>/private-words.json``); a change
applies to the next card, without a restart.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from .commands import DATA_DIR_OPTION, _data_dir
from .private_words import PrivateWordsError, PrivateWordsReading, PrivateWordsStore


@click.group(
    "private-words",
    short_help="List, add or remove the household's private words.",
    invoke_without_command=True,
)
@click.pass_context
def private_words(context: click.Context) -> None:
    """Words (names, street, school) flagged on a card before a query or URL leaves.

    Without a sub-command: the same as ``private-words list``.
    """
    if context.invoked_subcommand is None:
        context.invoke(list_words)


@private_words.command("list")
@DATA_DIR_OPTION
def list_words(data_dir: Path | None) -> None:
    """Print the words, one a line; exit 1 when the file is unusable."""
    reading = PrivateWordsStore(_data_dir(data_dir)).read(log=False)
    for word in reading.words:
        click.echo(word)
    if not reading.words:
        click.echo("(no private words)", err=True)
    _report(reading)


@private_words.command("add")
@click.argument("words", nargs=-1, required=True)
@DATA_DIR_OPTION
def add_words(words: tuple[str, ...], data_dir: Path | None) -> None:
    """Add each WORD (quote a phrase: "Juniper Lane")."""
    store = PrivateWordsStore(_data_dir(data_dir))
    for word in words:
        reading = _change(store, store.add, word)
    click.echo(f"{len(reading.words)} private word(s); applies to the next request.")


@private_words.command("remove")
@click.argument("words", nargs=-1, required=True)
@DATA_DIR_OPTION
def remove_words(words: tuple[str, ...], data_dir: Path | None) -> None:
    """Remove each WORD (ignoring case)."""
    store = PrivateWordsStore(_data_dir(data_dir))
    for word in words:
        reading = _change(store, store.remove, word)
    click.echo(f"{len(reading.words)} private word(s); applies to the next request.")


def _change(
    store: PrivateWordsStore, change: Callable[[str], PrivateWordsReading], word: str
) -> PrivateWordsReading:
    try:
        return change(word)
    except PrivateWordsError as exc:
        raise click.ClickException(f"{word!r} not changed: {exc}") from exc
    except OSError as exc:
        raise click.ClickException(f"{store.path} could not be written: {exc.strerror}") from exc


def _report(reading: PrivateWordsReading) -> None:
    if reading.problem:
        click.secho(f"problem: {reading.problem}", fg="red", err=True)
        raise SystemExit(1)
