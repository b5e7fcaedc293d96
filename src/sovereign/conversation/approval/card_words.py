"""Whose words a card's arguments are: the turn loop's checks before an approval.

When the model proposes a call, :func:`in_another_language` tells whether it wrote a
marked argument in another language than the question's (the turn loop then asks for
it again, in the household's). Before the executor validates a proposal,
:func:`own_words` takes out of each
argument marked ``"x-household-words"`` the words the household never wrote
(:mod:`.added_words`). When the executor is about to ask, :func:`card_flags` flags
what is still not the household's: words a result of the turn dictated
(:mod:`.dictated`) and added words left in because none of the household's would
remain without them. A household's edit is its own words: neither applies.
"""

from __future__ import annotations

from typing import Any

from sovereign.executor import Capability

from ..answer.finish import asked
from ..pending import Proposal, TurnProgress
from ..voice.language import SURE, best_guess
from .added_words import Reading, added_word_flags, marked_arguments, trimmed_arguments
from .dictated import dictated_flags


def in_another_language(
    progress: TurnProgress, capability: Capability | None, arguments: dict[str, Any] | None
) -> bool:
    """Whether a marked argument of the model's call (web.search's ``query``) is written
    in another language than the question's: the language identifier is sure of another
    one (:data:`~..voice.language.SURE`), and the household's own words do not lead it
    (:attr:`.added_words.Reading.household_led`). "Ravelta Museum opening hours" for
    "A che ora apre il museo di Ravelta?" is; "precio itv diesel sotillo" is not.

    Args:
        capability: the call's capability (``None``: a made-up one, never).
        arguments: the call's arguments as the model wrote them (``None``: not a JSON
            object, never).
    """
    if capability is None or arguments is None:
        return False
    said, language = asked(progress), progress.voice.language
    for name in marked_arguments(capability.arguments_schema):
        value = arguments.get(name)
        if not isinstance(value, str) or Reading.of(value, said, language).household_led:
            continue
        guess = best_guess(value)
        if guess is not None and guess[0] != language and guess[1] >= SURE:
            return True
    return False


def own_words(
    progress: TurnProgress,
    capability: Capability | None,
    arguments: dict[str, Any] | None,
    written: dict[str, Any] | None,
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The model's proposal with the added words taken out of its marked arguments
    (:func:`.added_words.trimmed_arguments`), in the question's language.

    Args:
        arguments: the proposal's arguments (``None`` when they were not an object).
        written: the call as the model wrote it (the context records it).

    Returns:
        The arguments to propose, and the call for the model's context: what the model
        wrote with each trimmed argument as it will be sent, so the model reads back
        the query that leaves. A made-up capability's arguments are left as they are.
    """
    recorded = dict(written or {})
    if capability is None or arguments is None:
        return arguments, recorded
    names = marked_arguments(capability.arguments_schema)
    kept = trimmed_arguments(arguments, names, asked(progress), progress.voice.language)
    recorded.update({name: kept[name] for name in names if name in kept})
    return kept, recorded


def card_flags(
    progress: TurnProgress, call: Proposal, arguments: dict[str, Any]
) -> list[dict[str, Any]]:
    """The turn's flags for the canonical ``arguments`` of ``call`` (the executor runs
    this when the call asks, so the ask's audit record has their kinds): dictated
    arguments first, then added words; none for the household's edit.

    Returns:
        Flags in the wire shape ``{"kind", "argument", "start", "end", "reason"}``.
    """
    if call.edited:
        return []
    said = asked(progress)
    flags = dictated_flags(arguments, [result for _, result in progress.results], said)
    target = call.target.capability if call.target else ""
    capability = progress.catalog.capabilities.get(target)
    names = marked_arguments(capability.arguments_schema) if capability else []
    return flags + added_word_flags(arguments, names, said, progress.voice.language)
