"""The ``sovereign`` command line.

Subcommands: ``serve``, ``chat``, ``policy``, ``sites``, ``search-settings``,
``household-settings``, ``doctor``, ``audit``, ``passwd``, ``model``, ``private-words``.

Each subcommand lives next to what it drives and is attached here. Every command's
``--help``, and click's own words (usage errors, ``Error:``), are said in the language
its sentences are (:mod:`sovereign.cli_words`).
"""

from __future__ import annotations

import click

from sovereign import __version__
from sovereign.cli_words import SpokenGroup, speak
from sovereign.doctor import doctor
from sovereign.model.cli import model_group
from sovereign.service.chat import chat
from sovereign.service.commands import audit, command_words, passwd, policy, serve
from sovereign.service.egress_settings_cli import search_settings, sites
from sovereign.service.household_settings_cli import household_settings
from sovereign.service.private_words_cli import private_words


@click.group(cls=SpokenGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sovereign")
def main() -> None:
    """Sovereign: a private household assistant's Conversation Service."""


main.add_command(model_group)
main.add_command(doctor)
main.add_command(serve)
main.add_command(chat)
main.add_command(policy)
main.add_command(sites)
main.add_command(search_settings)
main.add_command(household_settings)
main.add_command(audit)
main.add_command(passwd)
main.add_command(private_words)
speak(main, lambda: command_words().language)


if __name__ == "__main__":  # pragma: no cover
    main()
