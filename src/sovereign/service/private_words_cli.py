"""``sovereign private-words add|remove|list``: the household's private words (attached in cli.py).

The same file the Console's settings edit (``<data>/private-words.json``); a change
applies to the next card, without a restart.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from sovereign.cli_words import CliWords

from .commands import DATA_DIR_OPTION, _data_dir, command_words, not_written, said_refusal
from .private_words import PrivateWordsError, PrivateWordsReading, PrivateWordsStore
from .settings_store import SettingsUnreadable, say_problem, say_unreadable


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
    words = command_words(data_dir)
    reading = PrivateWordsStore(_data_dir(data_dir)).read(log=False)
    for word in reading.words:
        click.echo(word)
    if not reading.words:
        click.echo(words.say("no_private_words"), err=True)
    if reading.problem:
        problem = say_problem(reading.problem, words)
        click.secho(words.say("problem", problem=problem), fg="red", err=True)
        raise SystemExit(1)


@private_words.command("add")
@click.argument("words", nargs=-1, required=True)
@DATA_DIR_OPTION
def add_words(words: tuple[str, ...], data_dir: Path | None) -> None:
    """Add each WORD (quote a phrase: "Juniper Lane")."""
    said = command_words(data_dir)
    store = PrivateWordsStore(_data_dir(data_dir))
    for word in words:
        reading = _change(store, store.add, word, said)
    click.echo(said.say_count("private_words", len(reading.words)))


@private_words.command("remove")
@click.argument("words", nargs=-1, required=True)
@DATA_DIR_OPTION
def remove_words(words: tuple[str, ...], data_dir: Path | None) -> None:
    """Remove each WORD (ignoring case)."""
    said = command_words(data_dir)
    store = PrivateWordsStore(_data_dir(data_dir))
    for word in words:
        reading = _change(store, store.remove, word, said)
    click.echo(said.say_count("private_words", len(reading.words)))


def _change(
    store: PrivateWordsStore,
    change: Callable[[str], PrivateWordsReading],
    word: str,
    said: CliWords,
) -> PrivateWordsReading:
    try:
        return change(word)
    except PrivateWordsError as exc:
        reason = said_refusal(said, exc)
        raise said.error(said.say("word_not_changed", word=repr(word), reason=reason)) from exc
    except SettingsUnreadable as exc:
        reason = say_unreadable(exc, said)
        raise said.error(said.say("word_not_changed", word=repr(word), reason=reason)) from exc
    except OSError as exc:
        raise not_written(said, store.path, exc) from exc
