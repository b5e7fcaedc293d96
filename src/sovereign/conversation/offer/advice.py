"""Whether a message asks for advice: what the household should do, set or buy.

A question about a thing of the home may ask for its reading ("is the fridge cold
enough?") or for the household's own what-to-do ("what should the fridge be set on?",
"¿a qué temperatura pongo el horno para asar un pollo?"). With Home Assistant not set
up, a small model answered the second kind with "Home Assistant is not set up", which
answers nothing asked. The turn loop answers it in prose instead.

The words are data, per language (``advice_requests.json``): phrases in which the
person asks about their own doing ("should I", "soll ich", "je dois", "pongo", "moet
ik", "devo"), matched as whole words by their letters, every language's in every
message (the language a short message is read in can be wrong).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from ..voice.words import PhraseIndex

ADVICE_REQUESTS = Path(__file__).resolve().parent / "advice_requests.json"
EXPLANATION_REQUESTS = Path(__file__).resolve().parent / "explanation_requests.json"
_ASKED = re.compile(r"[^.!?;\n]*[?\uff1f]")
"""A sentence that ends with a question mark."""


@functools.cache
def _index(catalog: Path = ADVICE_REQUESTS) -> PhraseIndex[bool]:
    data = json.loads(catalog.read_text(encoding="utf-8"))
    phrases = [p for language, listed in data.items() if language != "_about" for p in listed]
    return PhraseIndex.of((phrase, True) for phrase in phrases)


def _asks(message: str, catalog: Path) -> bool:
    asked = _ASKED.findall(message)
    return any(_index(catalog).in_text(sentence) for sentence in asked or [message])


def asks_for_advice(message: str) -> bool:
    """Whether ``message`` asks what the household should do, set or buy: a phrase of
    ``advice_requests.json`` (any language) in it, as whole words; in a message with a
    question mark, in a sentence that ends with one. "c'è ancora inchiostro nella
    stampante? stasera devo stampare i biglietti" asks how the printer is; "devo" tells
    why."""
    return _asks(message, ADVICE_REQUESTS)


def asks_for_an_explanation(message: str) -> bool:
    """Whether ``message`` asks why something is so, or whether there is a way to do
    something ("why do phones get hot when they charge?", "por qué los portátiles se
    calientan tanto?", "any way to stop the kids buying stuff in games?"): a phrase of
    ``explanation_requests.json`` (any language), read as :func:`asks_for_advice` reads
    its own. Such a question about another thing of the household's asks for an
    explanation, not for how that thing is now, and is answered in prose; the turn loop
    reads it for no other question ("why is the server so hot?" is read as before, and
    "is there a way to see if the front door is locked?" asks a state)."""
    return _asks(message, EXPLANATION_REQUESTS)
