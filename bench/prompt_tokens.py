"""The tokens a fetched page adds to the model's prompt, and the share its links take.

Counted with the embedded model's own tokenizer (llama-cpp-python, ``vocab_only``: the
vocabulary loads in about a second, no weights), or, when the runtime or the model file
is missing, approximated as one token per four characters (the usual rate for English
text with BPE vocabularies; printed with the figures so the two are never confused).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

from sovereign.net import PageText

__all__ = ["link_token_figures", "tokenizer"]


def tokenizer() -> tuple[Callable[[str], int], str]:
    """``(count, description)``: ``count(text)`` is the number of prompt tokens of ``text``."""
    try:
        from llama_cpp import Llama

        from sovereign.model import DEFAULT_MODEL
        from sovereign.paths import data_dir

        path = data_dir() / "models" / DEFAULT_MODEL.file_name
        vocabulary = Llama(model_path=str(path), vocab_only=True, verbose=False)
    except (ImportError, OSError, ValueError, RuntimeError):
        return (lambda text: (len(text) + 3) // 4), "approximation: 4 characters a token"

    def count(text: str) -> int:
        return len(vocabulary.tokenize(text.encode(), add_bos=False, special=False))

    return count, f"the embedded model's tokenizer ({DEFAULT_MODEL.file_name})"


def _without_links(page: PageText) -> str:
    pieces, last = [], 0
    for start, end, _ in page.markers:
        pieces.append(page.body[last:start])
        last = end
    return "".join(pieces) + page.body[last:]


def link_token_figures(pages: dict[str, list[PageText]]) -> None:
    """Print, per extractor, the prompt tokens of the page text and of its links.

    A page's text tokens are those of its body without ``[n]`` markers; its link tokens
    are what the markers and the reference list add to that (median and p90 over pages,
    and the same for the links' share of the text tokens).
    """
    count, description = tokenizer()
    print(f"prompt tokens a page adds ({description}), published pages:")
    for name, texts in pages.items():
        text_tokens = [count(_without_links(page)) for page in texts]
        link_tokens = [count(page.text) - tokens for page, tokens in zip(texts, text_tokens,
                                                                         strict=True)]
        shares = [links / max(text, 1) for links, text in zip(link_tokens, text_tokens,
                                                               strict=True)]
        print(f"  {name:<34} text median {statistics.median(text_tokens):>6.0f} "
              f"p90 {_p90(text_tokens):>6.0f} | links median {statistics.median(link_tokens):>4.0f}"
              f" p90 {_p90(link_tokens):>4.0f} | links/text median "
              f"{statistics.median(shares):.3f} p90 {_p90(shares):.3f} (target: median <= 0.10)")


def _p90(values: list[float] | list[int]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
