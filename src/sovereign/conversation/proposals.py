"""From a model reply to proposals: what the turn loop runs (DESIGN §4, RFC-0002)."""

from __future__ import annotations

import json

from .approval.card_words import own_words
from .backends.base import ModelReply
from .offer.catalog import model_safe_name
from .offer.choices import split_product_parameters
from .pending import Proposal, TurnProgress


def adopt(progress: TurnProgress, reply: ModelReply) -> list[Proposal]:
    """The reply's calls as proposals with our own ids (``call_1`` …), their product
    parameters (``facts``, ``also_asked``) taken out of the arguments the executor will
    see and a search's query given the household's words (:func:`~.approval.card_words.own_words`);
    the reply is appended to ``progress.context`` as the assistant's message.

    Arguments that were not JSON are written back as ``{}``: the raw text
    never goes back to a server (llama-server answers it with a 500).
    """
    proposals, calls = [], []
    for call in reply.tool_calls:
        progress.calls_made += 1
        target = progress.catalog.resolve(call.name)
        name = model_safe_name(target.capability if target else call.name)
        capability = progress.catalog.capabilities.get(target.capability if target else "")
        chosen = split_product_parameters(capability, call.arguments)
        arguments, written = own_words(progress, capability, chosen.arguments, call.arguments)
        proposal = Proposal(
            f"call_{progress.calls_made}",
            name,
            target,
            arguments,
            call.parse_error,
            topics=chosen.topics,
            rest_asked=chosen.rest_asked,
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
