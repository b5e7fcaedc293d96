"""The visible-character rule over an argument, refused with a stable code.

:mod:`sovereign.egress` finds the character the card could not show and says it in
English; here that finding becomes the executor's :class:`~sovereign.executor.
ArgumentRefused` (``invisible_character``, naming the argument, the character and its
position), so a refused edit can be said in the household's language.
"""

from __future__ import annotations

import unicodedata

from sovereign.egress import find_invisible
from sovereign.executor import ArgumentRefused


def require_visible_argument(text: str, argument: str, noun: str) -> None:
    """Refuse ``text`` (the value of ``argument``) when it holds a character the card
    cannot show.

    Args:
        text: the argument's value as proposed.
        argument: its name, e.g. ``"query"``.
        noun: what it is in the English sentence (``"query"``, ``"URL"``, ``"entity id"``).

    Raises:
        ArgumentRefused: ``invisible_character`` with ``argument``, ``character``
            (``"U+200B ZERO WIDTH SPACE"``) and ``position`` (from 1); its message is
            egress's sentence.
    """
    found = find_invisible(text)
    if found is not None:
        raise ArgumentRefused(
            found.sentence(noun), "invisible_character", argument=argument,
            character=found.label, position=found.position,
        )  # fmt: skip


def visible_argument(text: str, argument: str, noun: str) -> str:
    """``text`` in Unicode NFC after :func:`require_visible_argument` (as
    :func:`sovereign.egress.visible_text`).

    Raises:
        ArgumentRefused: as :func:`require_visible_argument`.
    """
    require_visible_argument(text, argument, noun)
    return unicodedata.normalize("NFC", text)
