"""A value refused with a sentence that can be said in another language.

:class:`SettingRefused` is a ``ValueError`` whose message is the English sentence, as
before, and which also carries a stable key, the English template and the values that
fill it, so a caller that speaks the household's language (the service's Settings
routes) says the same refusal from its own catalog. This module imports nothing.
"""

from __future__ import annotations

from collections.abc import Sequence


class SettingRefused(ValueError):
    """A refused value: ``str(error)`` is the English sentence.

    Args:
        key: stable name of the refusal (a catalog's context is built from it).
        english: the English sentence with ``{placeholders}``.
        values: what fills them; a sequence of strings is a choice, written as a list
            ending in "or" in the sentence's language.
    """

    def __init__(self, key: str, english: str, **values: object) -> None:
        self.key, self.english, self.values = key, english, values
        super().__init__(english.format(**{k: _english(v) for k, v in values.items()}))


def _english(value: object) -> object:
    if isinstance(value, Sequence) and not isinstance(value, str):
        items = [str(item) for item in value]
        return ", ".join(items[:-1]) + f" or {items[-1]}" if len(items) > 1 else "".join(items)
    return value
