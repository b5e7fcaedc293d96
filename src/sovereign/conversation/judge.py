"""The model as a judge of each passage a web answer may quote (DESIGN §4, issue 30).

After an approved search or page read, :func:`~.sources.candidates` ranks the passages
by the question's words, days and quantities. Those rules keep missing new kinds of
decoy (another day's menu, another team, a page in another language), and a small
model shown the candidates in one list takes the first. Asked of one passage at a time
("Does this passage give the answer to the question? Answer yes or no."), the model
judges each without the list's order, and its log-odds of "yes" over "no"
(:class:`~.backends.base.YesNoJudge`) order the candidates: the product still quotes
the passage word for word, and the model writes nothing
(docs/decisions/answers-rendered-by-the-product.md, point 34).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from .backends.base import BackendProgress, Message, YesNoJudge
from .sources import Sources

JUDGE_SYSTEM = "You judge whether a passage from the web answers a household's question."
"""The judge's system message: the same for every passage, so its evaluated state is
reused (the fixed prefix of :class:`~.backends.embedded.run.Runner`)."""


def judge_messages(question: str, title: str, passage: str) -> list[Message]:
    """The chat messages that ask whether ``passage`` (read under its source's ``title``,
    :meth:`~.sources.Source.under_heading`) answers ``question``. The question comes
    after the passage, right before the instruction: a small model weighs what it read
    last."""
    return [
        {"role": "system", "content": JUDGE_SYSTEM},
        {
            "role": "user",
            "content": (
                f"Passage: {title}\n{passage}\n\nQuestion: {question}\n\n"
                "Does this passage give the answer to the question? Answer yes or no."
            ),
        },
    ]


async def judged(
    judge: YesNoJudge,
    sources: Sources,
    question: str,
    choices: Sequence[str],
    late: Collection[str] = frozenset(),
    on_progress: BackendProgress | None = None,
) -> list[str]:
    """``choices`` (passage numbers, the ranking's order) ordered by the judge's log-odds
    that each answers ``question``, highest first; equal odds keep the ranking's order.
    Those in ``late`` (:attr:`~.sources.Ranking.late`: about another day, year,
    quantity or model, or a line of links, as the rules read for sure) stay after the
    others: the judge orders each group, and never lifts a passage the rules know to be
    about something else above one they do not. Numbers that name no passage are left
    out.

    Raises:
        ModelUnavailable, ModelError: as :meth:`~.backends.base.YesNoJudge.yes_odds`.
    """
    located = [(c, found) for c in choices if (found := sources.passage(c)) is not None]
    if len(located) < 2:
        return [c for c, _ in located]
    prompts = [
        judge_messages(question, source.title, source.under_heading(passage))
        for _, (source, passage) in located
    ]
    odds = await judge.yes_odds(prompts, on_progress=on_progress)
    order = sorted(range(len(located)), key=lambda i: (located[i][0] in late, -odds[i]))
    return [located[i][0] for i in order]
