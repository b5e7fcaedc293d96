"""``sovereign chat``: talk to the assistant in a terminal.

By default it talks to the running service (``--url``, default the local one),
signed in with the household password, through the same API as the Console:
no second copy of the model is loaded. ``--in-process`` runs the turn loop,
capabilities, policy file and audit log in this process instead, for
development: the same conversation in the terminal (:class:`~sovereign.terminal.session.
Conversation`), spoken to through :class:`InProcess` instead of HTTP, its own words in
the household's language read from the same setting the service reads. Either way a
proposal that needs approval is shown with its exact arguments and runs only after a
"y", and what the model or a result wrote is drawn so it can neither drive the terminal
nor pass for a receipt (:mod:`sovereign.terminal.display`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from sovereign.terminal.api import DEFAULT_URL, ServiceFailure
from sovereign.terminal.session import Conversation
from sovereign.terminal.words import Words

from .commands import DATA_DIR_OPTION
from .errors import ServiceError
from .policy import PolicyStore
from .settings import BACKENDS, Settings, settings_from_environment
from .wiring import build_registry, policy_reader

if TYPE_CHECKING:
    from sovereign.conversation import Progress

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
    from sovereign.conversation.voice.around import before_the_turn
    from sovereign.conversation.voice.catalogs import Voice
    from sovereign.terminal.run import ClickTerminal

    from .app import build_turn_loop
    from .household_settings import HouseholdSettingsStore
    from .household_sources import HouseholdSources

    household = HouseholdSources(settings.data_dir)
    registry = build_registry(settings, on_home_assistant_names=household.entity_names.remember)
    turns = build_turn_loop(settings, registry=registry, household=household)
    read_policy = policy_reader(settings, PolicyStore(settings.data_dir))
    language = HouseholdSettingsStore(settings.data_dir).language()
    before = before_the_turn(Voice(language))
    client = InProcess(turns, read_policy)
    conversation = Conversation(client, ClickTerminal(), Words(before["language"]), before)
    try:
        await conversation.run()
    finally:
        await registry.close()  # Pi-hole's API session is given back


class InProcess:
    """The turn loop in this process, spoken to as ``sovereign chat`` speaks to the
    service: :meth:`converse` takes the request the service takes and gives back what it
    answers (DESIGN §4), so the chat shows a turn, its card, progress, receipt and errors
    here exactly as it does against the service.

    Args:
        turns: the turn loop (:func:`~.app.build_turn_loop`).
        read_policy: ``() -> policy``, read for every request as the service reads it.
    """

    def __init__(self, turns: Any, read_policy: Callable[[], Any]) -> None:
        self._turns, self._read_policy = turns, read_policy

    async def converse(
        self,
        payload: dict[str, Any],
        on_token: Callable[[str], None],
        on_event: Callable[[str, Any], None] | None = None,
    ) -> dict[str, Any]:
        """One ``POST /conversation/message``: a new message (``message``, ``history``) or
        the answer to a card (``confirmation``); each piece of the answer to ``on_token``,
        each stage to ``on_event("progress", wire)``.

        Returns:
            The turn's wire object (:meth:`~sovereign.conversation.TurnResult.to_wire`).

        Raises:
            ServiceFailure: as the service answers: a failed turn with its provenance in
                ``body``, 400 INVALID_CONFIRMATION, 422 INVALID_EDIT.
        """
        from sovereign.conversation import InvalidConfirmation, InvalidEdit, TurnFailed

        from .routes.conversation import UNKNOWN_CONFIRMATION, invalid_edit, turn_error

        async def token(piece: str) -> None:
            on_token(piece)

        async def progress(event: Progress) -> None:
            if on_event is not None:
                on_event("progress", event.to_wire())

        policy = self._read_policy()
        try:
            if "confirmation" in payload:
                answer = payload["confirmation"]
                result = await self._turns.resume_turn(
                    answer["token"], answer["approve"], policy=policy, owner=OWNER,
                    reason=answer.get("reason"), arguments=answer.get("arguments"),
                    on_token=token, on_progress=progress,
                )  # fmt: skip
            else:
                asked = {"role": "user", "content": payload["message"]}
                messages = [*payload.get("history", []), asked]
                result = await self._turns.process_turn(
                    messages, policy=policy, owner=OWNER, on_token=token, on_progress=progress
                )
        except InvalidConfirmation as exc:
            refused = ServiceError(400, "INVALID_CONFIRMATION", UNKNOWN_CONFIRMATION)
            raise _failure(refused) from exc
        except InvalidEdit as exc:
            raise _failure(invalid_edit(exc)) from exc
        except TurnFailed as failed:
            raise _failure(turn_error(failed)) from failed
        return result.to_wire()

    async def stop(self, turn_id: str) -> bool:
        """Nothing to stop from here: Ctrl-C leaves the in-process chat, as before."""
        return False


def _failure(error: ServiceError) -> ServiceFailure:
    """The service's answer for ``error`` as the chat receives it from the service."""
    return ServiceFailure(error.status, error.code, error.message, error.body())
