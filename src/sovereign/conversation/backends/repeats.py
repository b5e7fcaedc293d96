"""A reply that repeats itself is looping, not answering (DESIGN §4, "nothing cut silently").

A small model writing prose greedily can fall into a loop: the same heading, rule or
sentence again and again until its token limit ("---" forty times under a notice for
the stairwell; "Hier is een sinterklaasgedichtje voor je zus Femke:" thirty times).
Each repetition costs the household seconds of generation on the appliance and says
nothing. Both backends therefore watch the prose as it is written: when its end is one
block written :data:`MIN_COPIES` times in a row, generation stops, one copy is kept,
and the reply is marked cut off, so the household is told the answer is incomplete.

Only a run long enough to be no refrain counts: at least :data:`MIN_COPIES` copies and
:data:`MIN_SPAN` characters ("ha ha ha" and a table's "|---|---|" are left alone), of a
block of at most :data:`MAX_BLOCK` characters that is not only white space. The check
reads characters, never words, so it holds in every language.
"""

from __future__ import annotations

MIN_COPIES = 6
"""The fewest copies of a block, one after another, that make a loop."""
MIN_SPAN = 48
"""The fewest characters a loop covers (a short block needs more copies)."""
MAX_BLOCK = 200
"""The longest block looked for, in characters (a few sentences)."""


def loop_cut(text: str) -> int | None:
    """Where ``text`` should end if its end is a loop, or ``None`` if it is not.

    Args:
        text: the prose written so far.

    Returns:
        The length of ``text`` that keeps everything before the loop and one copy of
        the repeated block, back to the copy's last line break when it holds one (so a
        loop found mid-line leaves no half line); ``None`` when no block of 1 to
        :data:`MAX_BLOCK` characters
        (not only white space) ends ``text`` at least :data:`MIN_COPIES` times in a row
        over at least :data:`MIN_SPAN` characters.
    """
    for size in range(1, min(MAX_BLOCK, len(text) // MIN_COPIES) + 1):
        block = text[-size:]
        needed = max(MIN_COPIES, -(-MIN_SPAN // size))
        if len(text) < needed * size or text[-2 * size : -size] != block:
            continue
        if block.isspace() or text[-needed * size :] != block * needed:
            continue
        copies = needed
        while text[-(copies + 1) * size : -copies * size] == block:
            copies += 1
        cut = len(text) - (copies - 1) * size
        # The loop may be found mid-line ("…Femke:\n\nHier is een"): keep whole lines.
        line_end = text.rfind("\n", cut - size, cut)
        return cut if line_end == -1 else line_end + 1
    return None
