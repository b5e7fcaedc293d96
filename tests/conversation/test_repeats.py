"""A reply that loops is cut after its first copy of the repeated block, in both backends
(backends/repeats.py): the pure rule with its neighbours (refrains, tables, counting,
white space, blocks too long to look for), the embedded generation stopped early, and a
server's stream closed early."""

from __future__ import annotations

import pytest

from sovereign.conversation.backends.embedded.backend import Sampling
from sovereign.conversation.backends.repeats import MAX_BLOCK, MIN_COPIES, MIN_SPAN, loop_cut

from .replay_server import chunks
from .test_cut_off import ASK, Sink, _running, backend, server  # noqa: F401 (the fixtures)
from .test_embedded import backend_with
from .token_model import FakeModel

NOTICE = "Hier ist ein kurzer Aushang für das Treppenhaus:\n\n"
COUNTING = "".join(str(n) for n in range(200))
"""Characters with no period: a block of any length cut from it repeats nothing."""
POEM = "Hier is een sinterklaasgedichtje voor je zus Femke:\n\n"


@pytest.mark.parametrize(
    ("before", "block"),
    [
        (NOTICE, "---\n\n"),  # a rule, no letters at all
        ("Hier is een kort sinterklaasgedichtje voor je zus Femke:\n\n", POEM),
        ("", "Всё в порядке. "),  # any script: characters, not words
        ("Die Antwort: ", "ja"),
        ("x", "é" * 1),
        ("", COUNTING[:MAX_BLOCK]),  # the longest block looked for
    ],
)
def test_a_loop_is_cut_after_its_first_copy(before, block):
    copies = max(MIN_COPIES, -(-MIN_SPAN // len(block)))
    for extra in (0, 1, 7):
        text = before + block * (copies + extra)
        cut = loop_cut(text)
        assert cut is not None
        kept = text[:cut]
        assert kept.startswith(before)
        assert kept == before + block


def test_a_loop_found_mid_line_keeps_whole_lines():
    # the heading came once with "kort", then again and again without it
    first = "Hier is een kort sinterklaasgedichtje voor je zus Femke:\n\n"
    for tail in ("Hier is een", "Hier is een sinter", "Hier", ""):
        text = first + POEM * 8 + tail
        kept = text[: loop_cut(text)]
        assert kept.endswith("\n") and text.startswith(kept) and loop_cut(kept) is None
        assert kept.startswith(first) and len(kept) <= len(first) + len(POEM)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "ha ha ha ha ha ha ",  # a refrain too short to be a loop
        "| a | b | c |\n|---|---|---|---|---|---|---|---|\n",  # a table's rule
        "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18",
        " " * 200 + "\n" * 100,  # white space alone is no block
        NOTICE + "---\n\n" * (MIN_COPIES - 1),  # one copy short
        "Regel 1\nRegel 2\nRegel 1\nRegel 2\nRegel 1\nRegel 2\n",  # short of the span
        "z" * 30,  # six copies of one letter and more, but under the span
    ],
)
def test_what_is_no_loop_is_left_whole(text):
    assert loop_cut(text) is None


def test_a_block_longer_than_looked_for_is_not_a_loop():
    block = COUNTING[: MAX_BLOCK + 1]
    assert loop_cut(block * MIN_COPIES) is None
    assert loop_cut(block[:-1] * MIN_COPIES) is not None


async def test_the_embedded_answer_stops_generating_when_it_loops():
    pieces = [NOTICE, *["---\n\n"] * 60, "Schluss."]
    fake = FakeModel(pieces=pieces)
    engine, _ = backend_with(fake, sampling=Sampling(answer_max_tokens=200))
    sink = Sink()
    reply = await engine.complete(ASK, tools=None, on_token=sink)
    assert reply.cut_off
    assert reply.content == NOTICE + "---\n\n"
    assert fake.pulled < len(pieces) // 2  # generation stopped, not run to its limit
    assert "".join(sink.pieces).startswith(reply.content)


async def test_an_embedded_answer_that_does_not_loop_is_whole():
    fake = FakeModel(pieces=[NOTICE, "Am Samstag ", "wird ", "gefegt."])
    engine, _ = backend_with(fake, sampling=Sampling(answer_max_tokens=200))
    reply = await engine.complete(ASK, tools=None, on_token=Sink())
    assert not reply.cut_off and reply.content == NOTICE + "Am Samstag wird gefegt."


async def test_a_servers_stream_is_closed_when_its_prose_loops(server):  # noqa: F811
    server.queue(chunks("Kort: ", *[POEM] * 40, "Einde."))
    sink = Sink()
    reply = await backend(server).complete(ASK, tools=None, on_token=sink)
    assert reply.cut_off
    assert reply.content == "Kort: " + POEM
    assert len("".join(sink.pieces)) < len(POEM) * 20  # not the whole stream


async def test_a_servers_prose_that_does_not_loop_is_whole(server):  # noqa: F811
    server.queue(chunks("Kort: ", POEM, "Sint zit in de schoorsteen."))
    reply = await backend(server).complete(ASK, tools=None, on_token=Sink())
    assert not reply.cut_off and reply.content == "Kort: " + POEM + "Sint zit in de schoorsteen."
