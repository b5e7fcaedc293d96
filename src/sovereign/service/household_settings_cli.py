"""``sovereign household-settings``: show or set the household's language.

The same file and check as the Console's setting (:mod:`.household_settings`): the
language the signed-in Console is shown in, and the one questions too short to tell
their own are answered in. A change applies to the next question, and to the Console
when it next loads, without a restart.
"""

from __future__ import annotations

from pathlib import Path

import click

from sovereign.conversation.voice.catalogs import LANGUAGES

from .commands import DATA_DIR_OPTION, _data_dir, command_words, not_written
from .household_settings import HouseholdSettings, HouseholdSettingsStore, language_names
from .settings_store import say_problem


@click.command(
    "household-settings",
    short_help="Show or set the household's language (the Console's too).",
)
@click.option(
    "--language",
    type=click.Choice(LANGUAGES),
    default=None,
    help="The Console's language, and the one answers fall back to when a question does not "
    "tell its own.",
)
@DATA_DIR_OPTION
def household_settings(language: str | None, data_dir: Path | None) -> None:
    """Show the household's language, or set it (exit 1 when the file is unusable).

    The Console is shown in it, and questions too short to tell their own are answered in it.
    """
    words = command_words(data_dir)
    store = HouseholdSettingsStore(_data_dir(data_dir))
    if language is None:
        reading = store.read(log=False)
        if reading.problem:
            problem = say_problem(reading.problem, words)
            click.secho(words.say("household_problem", problem=problem), fg="red", err=True)
        click.echo(words.say("household_language", language=_named(reading.value.language)))
        raise SystemExit(1 if reading.problem else 0)
    try:
        store.save(HouseholdSettings(language))
    except OSError as exc:
        raise not_written(words, store.path, exc) from exc
    click.echo(words.say("household_saved", language=_named(language)))


def _named(code: str) -> str:
    return f"{code} ({language_names()[code]})"
