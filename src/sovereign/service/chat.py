"""``sovereign chat``: talk to the assistant in a terminal.

By default it talks to the running service (``--url``, default the local one),
signed in with the household password, through the same API as the Console:
no second copy of the model is loaded. ``--in-process`` runs the turn loop,
capabilities, policy file and audit log in this process instead, for
development. Either way a proposal that needs approval is shown with its exact
arguments and runs only after a "y", and what the model or a result wrote is drawn
so it can neither drive the terminal nor pass for a receipt
(:mod:`sovereign.terminal.display`).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import click

from sovereign.terminal.api import DEFAULT_URL
from sovereign.terminal.display import MARK, AnswerWriter, one_line, rows

from .commands import DATA_DIR_OPTION
from .policy import PolicyStore
from .settings import BACKENDS, Settings, settings_from_environment
from .wiring import build_registry, policy_reader

OWNER = "terminal"


IN_PROCESS_ONLY = ("backend", "openai_base_url", "openai_model", "data_dir")


@click.command(short_help="Chat in this terminal, with approvals at the prompt.")
@click.option(
    "--url",
    envvar="SOVEREIGN_URL",
    default=DEFAULT_URL,
    show_default=True,
    help="The running service to talk to (env SOVEREIGN_URL).",
)
@click.option(
    "--password-stdin",
    is_flag=True,
    help="Read the household password from the first line of standard input.",
)
@click.option(
    "--in-process",
    is_flag=True,
    help="Run the assistant in this process instead (development; loads its own model).",
)
@click.option("--backend", type=click.Choice(BACKENDS), default=None, help="Model backend.")
@click.option("--openai-base-url", default=None)
@click.option("--openai-model", default=None)
@DATA_DIR_OPTION
def chat(url: str, password_stdin: bool, in_process: bool, **options: Any) -> None:
    """Chat with the assistant in this terminal (Ctrl-D or "quit" to leave).

    Talks to the running service at --url, signing in with the household
    password (asked for, never stored). --backend, --openai-* and --data-dir
    go with --in-process only.
    """
    if in_process:
        settings = settings_from_environment(**options)
        asyncio.run(_chat(settings))
        return
    given = [name for name in IN_PROCESS_ONLY if options.get(name) is not None]
    if given:
        flags = ", ".join("--" + name.replace("_", "-") for name in given)
        raise click.UsageError(f"{flags} only go with --in-process.")
    from sovereign.terminal.run import chat_with_service

    asyncio.run(chat_with_service(url, password_stdin=password_stdin))


async def _chat(settings: Settings) -> None:
    from sovereign.conversation import TurnFailed

    from .app import build_turn_loop
    from .household_sources import HouseholdSources

    household = HouseholdSources(settings.data_dir)
    registry = build_registry(settings, on_home_assistant_names=household.entity_names.remember)
    turns = build_turn_loop(settings, registry=registry, household=household)
    read_policy = policy_reader(settings, PolicyStore(settings.data_dir))
    history: list[dict[str, str]] = []
    try:
        while (line := await _ask("you> ")) is not None:
            if not line.strip():
                continue
            try:
                text = await _one_turn(turns, read_policy, history, line)
            except TurnFailed as failed:
                click.secho(f"The turn failed: {one_line(failed.error)}", fg="red", err=True)
                _receipts(failed.receipts)
                continue
            history += [{"role": "user", "content": line}, {"role": "assistant", "content": text}]
    finally:
        await registry.close()  # Pi-hole's API session is given back


async def _one_turn(turns: Any, read_policy: Any, history: list[dict[str, str]], line: str) -> str:
    writer = AnswerWriter()

    async def show(piece: str) -> None:
        click.echo(writer.feed(piece), nl=False)

    click.echo("assistant>")
    messages = [*history, {"role": "user", "content": line}]
    result = await turns.process_turn(messages, policy=read_policy(), owner=OWNER, on_token=show)
    while result.pending_confirmation is not None:
        click.echo(writer.end(), nl=False)
        approve, reason = await _approval(result.pending_confirmation)
        writer = AnswerWriter()
        click.echo("assistant>")
        result = await turns.resume_turn(
            result.pending_confirmation.token,
            approve,
            policy=read_policy(),
            owner=OWNER,
            reason=reason,
            on_token=show,
        )
    click.echo(writer.end(), nl=False)
    _receipts(result.receipts)
    return result.text


def _receipts(receipts: Any) -> None:
    for receipt in receipts:
        what = f"{one_line(receipt.capability)}: {one_line(receipt.outcome)}"
        click.secho(f"{MARK}[{what}]", dim=True)


async def _approval(pending: Any) -> tuple[bool, str | None]:
    click.echo()
    click.secho(f"Allow {one_line(pending.capability)} v{pending.version} to run with:", bold=True)
    for key, value in pending.arguments.items():
        for row in rows(json.dumps(value, ensure_ascii=False), f"  {one_line(key)}: ", "    "):
            click.echo(row)
    answer = (await _ask("Allow? [y/N] ") or "").strip()
    if answer.lower() in ("y", "yes"):
        return True, None
    reason = (await _ask("Reason (optional): ") or "").strip()[:500]
    return False, reason or None


async def _ask(prompt: str) -> str | None:
    """One line from the terminal, or None at end of input or "quit"."""
    try:
        line = await asyncio.to_thread(input, prompt)
    except EOFError:
        return None
    return None if line.strip() in ("quit", "exit") else line
