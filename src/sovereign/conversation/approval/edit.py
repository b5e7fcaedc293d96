"""The household edits a proposal on its card (DESIGN §4, ``confirmation.arguments``).

An edit is a new proposal: its arguments go through validation, the policy stage
and the household-identifier check again and get a token of their own; the
original ask is answered ``edited`` and its token discarded. An edit that
validation refuses answers nothing: :func:`check_edit` raises before anything is
taken, so the original card stays answerable until it expires.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sovereign.executor import Executor, canonical_arguments

from ..pending import PendingTurn, PendingTurnStore
from ..results import InvalidEdit

__all__ = ["check_edit", "is_unchanged", "typed_exactly"]


def check_edit(
    executor: Executor, pending: PendingTurnStore, token: str, owner: str, arguments: Any
) -> None:
    """Refuse edited ``arguments`` that stages 1-2 would refuse, touching nothing.

    An edit of a card that has expired is not checked: answering it ends the turn
    with an "expired" denial, as any late answer does.

    Raises:
        InvalidConfirmation: no turn of ``owner`` is paused on ``token``.
        InvalidEdit: the executor's code, sentence and refusal for the refused
            arguments, with the paused turn's language.
    """
    paused = pending.peek(token, owner)
    target = paused.halted.target
    if target is None or executor.confirmations.seconds_left(token) <= 0:
        return
    checked = executor.validate(target.capability, target.version, arguments)
    if not checked.ok:
        language = paused.progress.voice.language
        raise InvalidEdit(str(checked.error_code), checked.message, language, checked.refusal)


def is_unchanged(executor: Executor, paused: PendingTurn, arguments: Any) -> bool:
    """True when the edit's canonical form is what the card already showed."""
    target = paused.halted.target
    if target is None or paused.arguments is None:
        return False
    checked = executor.validate(target.capability, target.version, arguments)
    return checked.ok and _same(checked.arguments, paused.arguments)


def typed_exactly(canonical: Mapping[str, Any] | None, typed: Mapping[str, Any]) -> bool:
    """True when the canonical arguments are, byte for byte, what the household typed:
    it then saw exactly what leaves, and its edit is its approval."""
    return canonical is not None and _same(canonical, typed)


def _same(one: Mapping[str, Any] | None, other: Mapping[str, Any] | None) -> bool:
    if one is None or other is None:
        return False
    return canonical_arguments(one) == canonical_arguments(other)
