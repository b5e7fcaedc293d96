"""The answer's language is the question's (DESIGN §4, "Language is data").

Detected offline by py3langid (langid.py's model, shipped in its wheel; nothing is
downloaded), restricted to the six languages the product speaks, with normalised
probabilities. A text too short or too mixed to tell ("ok", "RAM?", "Danke!" fall
under :data:`SURE`) is read again with the person's earlier messages in this
conversation, the question last; when even those do not tell, the household's own
language setting decides. Chosen over Lingua by measurement on short household
questions (docs/decisions/answers-rendered-by-the-product.md).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence
from typing import Any

from .catalogs import DEFAULT_LANGUAGE, LANGUAGES

SURE = 0.5
"""The probability (0-1) from which py3langid's first language is taken."""
_LOCK = threading.Lock()


@functools.cache
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(LANGUAGES))
    return identifier


def best_guess(text: str) -> tuple[str, float] | None:
    """The most likely of :data:`~.catalogs.LANGUAGES` for ``text`` and its probability
    (0-1), or ``None`` for text with no letters."""
    if not any(character.isalpha() for character in text):
        return None
    with _LOCK:  # the identifier is built once, on first use
        language, probability = _identifier().classify(text)
    return str(language), float(probability)


def question_language(asked: Sequence[str], household: str = DEFAULT_LANGUAGE) -> str:
    """The language to answer in.

    Args:
        asked: what the person wrote in this conversation, oldest first; the last is
            the question.
        household: the household's language setting, used when nothing tells.

    Returns:
        The question's language when py3langid is sure of it, else that of the last
        few things the person wrote read together, else ``household``.
    """
    fallback = household if household in LANGUAGES else DEFAULT_LANGUAGE
    if not asked:
        return fallback
    for text in dict.fromkeys((asked[-1], "\n".join(asked[-4:]))):
        guess = best_guess(text)
        if guess is not None and guess[1] >= SURE:
            return guess[0]
    return fallback
