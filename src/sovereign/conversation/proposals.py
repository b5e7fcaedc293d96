"""From a model reply to proposals: what the turn loop runs (DESIGN §4, RFC-0002)."""

from __future__ import annotations

import json

from sovereign.executor import Capability

from .approval.card_words import own_words
from .backends.base import ModelReply, user_texts
from .offer.catalog import model_safe_name
from .offer.choices import split_product_parameters
from .offer.guidance import is_time_window
from .offer.subjects import asks_beyond, conversation_topics, topics_to_state
from .offer.time_spans import time_scope
from .pending import Proposal, TurnProgress


def adopt(progress: TurnProgress, reply: ModelReply) -> list[Proposal]:
    """The reply's calls as proposals with our own ids (``call_1`` …), their product
    parameters (``facts``, ``also_asked``) taken out of the arguments the executor will
    see (the facts read against those the question names in their words,
    :func:`~.offer.subjects.topics_to_state`; the rest asked whenever the question's
    words ask more than the reply's calls and the turn's results read,
    :func:`~.offer.subjects.asks_beyond`) and a search's query given the household's
    words (:func:`~.approval.card_words.own_words`);
    the reply is appended to ``progress.context`` as the assistant's message.

    Arguments that were not JSON are written back as ``{}``: the raw text
    never goes back to a server (llama-server answers it with a 500).
    """
    proposals, calls = [], []
    questions = user_texts(progress.context)
    capabilities = list(progress.catalog.capabilities.values())
    called = [
        progress.catalog.capabilities.get(progress.catalog.resolve_target(c.name))
        for c in reply.tool_calls
    ] + [progress.catalog.capabilities.get(name) for name, _ in progress.results]
    beyond = bool(questions) and asks_beyond(
        questions[-1],
        [c for c in called if c is not None],
        progress.catalog,
        progress.voice.language,
    )
    for call in reply.tool_calls:
        progress.calls_made += 1
        target = progress.catalog.resolve(call.name)
        name = model_safe_name(target.capability if target else call.name)
        capability = progress.catalog.capabilities.get(target.capability if target else "")
        chosen = split_product_parameters(capability, call.arguments)
        topics = chosen.topics
        if capability is not None and capability.facts is not None:
            asked = conversation_topics(
                questions, capability.facts, capabilities, progress.voice.language, topics
            )
            topics = topics_to_state(topics, asked, capability.facts)
        arguments, written = own_words(progress, capability, chosen.arguments, call.arguments)
        proposal = Proposal(
            f"call_{progress.calls_made}",
            name,
            target,
            arguments,
            call.parse_error,
            topics=topics,
            rest_asked=chosen.rest_asked or beyond,
            other_time=bool(questions) and asks_another_time(capability, questions[-1]),
        )
        proposals.append(proposal)
        calls.append(
            {
                "id": proposal.call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(written, ensure_ascii=False)},
            }
        )
    progress.context.append({"role": "assistant", "content": reply.content, "tool_calls": calls})
    return proposals


def asks_another_time(capability: Capability | None, question: str) -> bool:
    """Whether ``capability`` states facts counted over a window back from now (an
    argument marked :data:`~.offer.guidance.TIME_WINDOW`, Pi-hole's ``period``) and
    ``question`` names a time scope that is no such span (:func:`.offer.time_spans.time_scope`:
    "und gestern?", "last Tuesday", "since March"): the facts are for the window read,
    and the household is told that there are none for its time alone."""
    if capability is None or capability.facts is None:
        return False
    properties = capability.arguments_schema.get("properties", {})
    windowed = any(is_time_window(schema) for schema in properties.values())
    scope = time_scope(question)
    return windowed and scope.named and scope.days is None
