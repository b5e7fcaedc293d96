"""``sovereign chat --url``: sign in to the running service and talk to it.

The password is asked for without echo (or read from the first line of standard
input with ``--password-stdin``), sent once to sign in, and never kept or written
anywhere. The session ends (signed out) when the chat ends.

Once signed in, the chat asks the service for the household's language and speaks its
own words in it (:mod:`.words`). Before that (the first password prompt, a service that
cannot be reached or is not set up, a wrong password) it speaks English: the setting is
not read for someone not signed in, as on the Console's sign-in page.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import signal
import sys

import click

from sovereign.cli_words import CommandError

from .api import ServiceClient, ServiceFailure
from .display import one_line
from .session import Conversation
from .words import Words

SIGN_IN_ATTEMPTS = 3


class ClickTerminal:
    """The real terminal: lines from standard input, text to standard output."""

    async def ask(self, prompt: str) -> str | None:
        """One line, or ``None`` at end of input."""
        try:
            return await asyncio.to_thread(input, prompt)
        except EOFError:
            return None

    def say(self, text: str = "", *, end: str = "\n", dim: bool = False) -> None:
        """Show ``text``; dim when the terminal supports it."""
        click.secho(text, nl=False, dim=dim or None)
        click.echo(end, nl=False)


async def chat_with_service(url: str, *, password_stdin: bool = False) -> None:
    """Sign in at ``url`` and chat until end of input or "quit".

    Raises:
        click.ClickException: the service cannot be reached or refuses us, no
            password is set yet, or signing in failed; said whole, ``Error:`` included,
            in the chat's language (English before signing in).
    """
    terminal, words = ClickTerminal(), Words()
    try:
        async with ServiceClient(url) as client:
            await _sign_in(client, password_stdin)
            before = await client.household_words()
            words = Words(before["language"])
            leave = words.say("leave_word")
            terminal.say(words.say("signed_in", url=client.target.url, leave=leave), dim=True)
            conversation = Conversation(client, terminal, words, before)
            _stop_on_interrupt(conversation)
            while True:
                try:
                    await conversation.run()
                    return
                except ServiceFailure as failure:
                    if failure.status != 401 or password_stdin:
                        raise
                    terminal.say("\n" + words.say("session_ended"))
                    await _sign_in(client, password_stdin, words)
    except ServiceFailure as failure:
        message = one_line(_explain(failure, url))
        raise CommandError(words.say("error_prefix") + message, message) from failure
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc


def _stop_on_interrupt(conversation: Conversation) -> None:
    """Ctrl-C during an answer stops it (where nothing is half done); between answers
    it leaves, as before."""
    loop = asyncio.get_running_loop()
    stopping: set[asyncio.Task[None]] = set()

    def interrupted() -> None:
        if conversation.turn_id is None:
            raise KeyboardInterrupt
        task = loop.create_task(conversation.stop_current())
        stopping.add(task)
        task.add_done_callback(stopping.discard)

    with contextlib.suppress(NotImplementedError, RuntimeError):  # not on every platform
        loop.add_signal_handler(signal.SIGINT, interrupted)


async def _sign_in(client: ServiceClient, password_stdin: bool, words: Words | None = None) -> None:
    state = await client.state()
    if state.get("setup_required"):
        raise ServiceFailure(
            409,
            "SETUP_REQUIRED",
            "No household password is set yet: open the first-run link that "
            "`sovereign serve` printed, or run `sovereign passwd`.",
        )
    for attempt in range(1, SIGN_IN_ATTEMPTS + 1):
        password = await _password(password_stdin, words or Words())
        try:
            await client.sign_in(password)
            return
        except ServiceFailure as failure:
            if failure.code != "BAD_CREDENTIALS" or password_stdin or attempt == SIGN_IN_ATTEMPTS:
                raise
            click.echo(one_line(failure.message), err=True)
        finally:
            del password


async def _password(from_stdin: bool, words: Words) -> str:
    if from_stdin:
        line = await asyncio.to_thread(sys.stdin.readline)
        return line.rstrip("\r\n")
    return await asyncio.to_thread(getpass.getpass, words.say("password_prompt"))


def _explain(failure: ServiceFailure, url: str) -> str:
    if failure.code == "UNREACHABLE":
        return (
            f"{failure.message} Is `sovereign serve` running there? Give its address with "
            "--url, or use --in-process to run the assistant here."
        )
    return failure.message
