"""The household's own words and names, compiled for the identifier check (DESIGN §4).

The service gathers them (the private-words file, Home Assistant's allowlist and
the friendly names it reported, Pi-hole's local DNS names, this device's host and
domain names and addresses, the Wi-Fi network's name) and passes them in as plain
strings: nothing here reads a file. :meth:`Household.build` compiles them once;
the check then costs a pass over the proposal, whatever the lists' length.

How each is matched, case-insensitively on the folded view (:mod:`.scanview`):

- **Phrases** (private words, friendly names, Wi-Fi names, multi-word device
  labels) by their letters and digits, and also by their look-alike spellings
  (:mod:`.lookalikes`: confusable letters from other scripts, digits for letters,
  the words in another order; kind ``look_alike``): a run of whole tokens of the text matches
  when its tokens written together equal the phrase's. A token is a run of
  letters or of digits, split at a lower-to-upper case change, compared after
  NFKD with its marks dropped and casefolded; a possessive ``'s`` is dropped. So
  ``Zoë Müller`` is found in ``zoe muller``, ``ZoeMuller``, ``zoe-muller``,
  ``Zoe_Müller``, ``zoe%20muller`` and ``zoemuller``, and "Gran's iPad" in ``gran's
  ipad`` and ``gran ipad``; never inside a longer word (``Emma`` is not in
  ``Emmanuel``).
  Words in scripts written without spaces (CJK, Thai, …) are found anywhere.
- **Names** (Pi-hole names, this device's names, Home Assistant entity ids and
  their ``object_id`` when it has an ``_``) as literal host names: at a label
  boundary, followed by nothing that continues the name. The device's domain
  matches itself and every name under it.
- **Home Assistant** names (entity ids and friendly names) only when they hold a
  word beyond Home Assistant's own vocabulary of domains, device classes and
  rooms (:data:`HOME_ASSISTANT_VOCABULARY`): ``sensor.kitchen_temperature`` /
  "Kitchen Temperature" is in every home and says nothing of this one;
  ``light.maya_bedroom`` / "Maya's Bedroom" does.
- **Home-network host names**: any name ending in a suffix reserved or used for
  home networks (the table below), except names every home has
  (:data:`FACTORY_NAMES`, e.g. ``homeassistant.local``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise

from .addresses import AddressContext
from .lookalikes import Lookalikes, fold
from .names import (
    FACTORY_DOMAINS,
    FACTORY_LABELS,
    FACTORY_NAMES,
    FACTORY_SUFFIXES,
    HOME_ASSISTANT_VOCABULARY,
    HOME_SUFFIXES,
)

__all__ = [
    "FACTORY_NAMES",
    "HOME_ASSISTANT_VOCABULARY",
    "HOME_SUFFIXES",
    "Household",
    "fold",
    "tokens",
]

Match = tuple[str, int, int]
LOOK_ALIKE = "look_alike"


_RUN = re.compile(r"[^\W_]+")
_PIECE = re.compile(r"\d+|[^\W\d_]+")
_CAMEL = re.compile(r"(?<=[^\W\d_])(?=[A-Z])")
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
_LABEL = r"[^\W_](?:[\w-]{0,61}[^\W_])?"
_HOME_NAME = re.compile(
    rf"(?<![\w.-])(?:{_LABEL}\.)+(?:{'|'.join(re.escape(s) for s in HOME_SUFFIXES)})"
    r"(?![\w-]|\.[^\W_])",
    re.IGNORECASE,
)


def tokens(text: str) -> list[tuple[str, int, int]]:
    """``(folded token, start, end)`` for each token of ``text`` (see the module)."""
    found = []
    for run in _RUN.finditer(text):
        for piece in _PIECE.finditer(run.group()):
            word, offset = piece.group(), run.start() + piece.start()
            cuts = [0, *(m.start() for m in _CAMEL.finditer(word)), len(word)]
            if word.isupper():
                cuts = [0, len(word)]
            if word in "sS" and offset and text[offset - 1] in "'\u2019":
                continue  # the possessive 's: "Maya's room" is "Maya room"
            for a, b in pairwise(cuts):
                if a < b:
                    found.append((fold(word[a:b]), offset + a, offset + b))
    return found


def _phrase(text: str) -> tuple[str, ...]:
    return tuple(token for token, _, _ in tokens(text))


@dataclass(frozen=True)
class Household:
    """Everything the identifier check knows about this household, compiled.

    Build it with :meth:`build`; an empty ``Household()`` knows no words, names or
    addresses (the grammars still apply).
    """

    addresses: AddressContext = field(default_factory=AddressContext)
    joined: dict[str, str] = field(default_factory=dict)
    longest: int = 0
    names: dict[str, str] = field(default_factory=dict)
    domains: dict[str, str] = field(default_factory=dict)
    unspaced: dict[str, str] = field(default_factory=dict)
    _names_pattern: re.Pattern[str] | None = None
    _domains_pattern: re.Pattern[str] | None = None
    _unspaced_pattern: re.Pattern[str] | None = None
    lookalikes: Lookalikes = field(default_factory=Lookalikes)
    """The phrases again, by confusable skeleton (:mod:`.lookalikes`)."""

    @classmethod
    def build(
        cls,
        *,
        private_words: Iterable[str] = (),
        home_assistant: Iterable[tuple[str, str | None]] = (),
        pihole_names: Iterable[str] = (),
        device_names: Iterable[str] = (),
        device_domains: Iterable[str] = (),
        wifi_names: Iterable[str] = (),
        device_addresses: Iterable[object] = (),
        device_networks: Iterable[object] = (),
    ) -> Household:
        """Compile the sources. Each iterable holds plain strings; ``home_assistant``
        holds ``(entity_id, friendly_name or None)``. Later sources never replace an
        earlier kind for the same word (private words win, then Home Assistant, …)."""
        book = _Book()
        for word in private_words:
            book.phrase(word, "private_word")
        for entity_id, friendly in home_assistant:
            book.entity(entity_id, friendly)
        for name in pihole_names:
            book.name(name, "pihole_name")
        for name in device_names:
            book.device_name(name)
        for domain in device_domains:
            book.domain(domain)
        for name in wifi_names:
            book.name(name, "wifi_name")
            book.phrase(name, "wifi_name")
        return cls(
            AddressContext.build(device_addresses, device_networks),
            book.joined,
            max(map(len, book.joined), default=0),
            book.names,
            book.domains,
            book.unspaced,
            _alternation(book.names, prefix=""),
            _alternation(book.domains, prefix=rf"(?:{_LABEL}\.)*"),
            _alternation(book.unspaced, prefix="", bounded=False),
            lookalikes=Lookalikes.build(book.phrases),
        )

    def find_words(self, text: str) -> list[Match]:
        """The household's phrases in the scan view ``text``, and their look-alike
        spellings (kind ``look_alike``, where no exact match covers the same span)."""
        found: list[Match] = []
        if self.joined:
            found.extend(self._phrase_matches(tokens(text)))
        if self._unspaced_pattern is not None:
            for match in self._unspaced_pattern.finditer(text):
                kind = self.unspaced.get(match.group("name").casefold())
                if kind is not None:
                    found.append((kind, match.start(), match.end()))
        exact = {(start, end) for _, start, end in found}
        for _, start, end in self.lookalikes.find(text):
            if (start, end) not in exact:
                found.append((LOOK_ALIKE, start, end))
        return found

    def _phrase_matches(self, toks: list[tuple[str, int, int]]) -> list[Match]:
        """Runs of whole tokens whose letters, run together, are a phrase's letters."""
        found = []
        for index, (_, start, _) in enumerate(toks):
            run = ""
            for token, _, end in toks[index:]:
                run += token
                if len(run) > self.longest:
                    break
                kind = self.joined.get(run)
                if kind is not None:
                    found.append((kind, start, end))
        return found

    def find_names(self, text: str) -> list[Match]:
        """Home-network host names and the household's own names in ``text``."""
        found: list[Match] = []
        for match in _HOME_NAME.finditer(text):
            if not _factory_name(match.group()):
                found.append(("local_host_name", match.start(), match.end()))
        for pattern, table in (
            (self._names_pattern, self.names),
            (self._domains_pattern, self.domains),
        ):
            if pattern is None:
                continue
            for match in pattern.finditer(text):
                kind = table.get(match.group("name").casefold())
                if kind is not None:
                    found.append((kind, match.start(), match.end()))
        return found


def _particular(name: str) -> bool:
    """A Home Assistant name with a word of its own (see :data:`HOME_ASSISTANT_VOCABULARY`)."""
    return any(
        not word.isdigit() and word not in HOME_ASSISTANT_VOCABULARY and len(word) > 1
        for word in _phrase(name)
    )


def _factory_name(name: str) -> bool:
    lowered = name.lower()
    return lowered in FACTORY_NAMES or lowered.endswith(FACTORY_SUFFIXES)


def _alternation(
    table: dict[str, str], *, prefix: str, bounded: bool = True
) -> re.Pattern[str] | None:
    if not table:
        return None
    names = "|".join(re.escape(name) for name in sorted(table, key=len, reverse=True))
    if not bounded:
        return re.compile(f"(?P<name>{names})", re.IGNORECASE)
    return re.compile(rf"(?<![\w-]){prefix}(?P<name>{names})(?![\w-])", re.IGNORECASE)


class _Book:
    """The tables :meth:`Household.build` fills; the first kind for an entry stays."""

    def __init__(self) -> None:
        self.joined: dict[str, str] = {}
        self.names: dict[str, str] = {}
        self.domains: dict[str, str] = {}
        self.unspaced: dict[str, str] = {}
        self.phrases: list[tuple[str, str]] = []

    def phrase(self, text: str, kind: str) -> None:
        words = _phrase(text)
        if len("".join(words)) < 2:
            return
        if _UNSPACED.search(text):
            self.unspaced.setdefault(text.strip().casefold(), kind)
            return
        self.joined.setdefault("".join(words), kind)
        self.phrases.append((text, kind))

    def name(self, name: str, kind: str) -> None:
        cleaned = name.strip().rstrip(".").casefold()
        if len(cleaned) >= 2 and cleaned not in FACTORY_LABELS and not _factory_name(cleaned):
            self.names.setdefault(cleaned, kind)

    def entity(self, entity_id: str, friendly: str | None) -> None:
        kind = "home_assistant_name"
        if _particular(entity_id):
            self.name(entity_id, kind)
            self.phrase(entity_id, kind)
            object_id = entity_id.partition(".")[2]
            if "_" in object_id:
                self.name(object_id, kind)
        if friendly and _particular(friendly):
            self.phrase(friendly, kind)

    def device_name(self, name: str) -> None:
        cleaned = name.strip().rstrip(".").casefold()
        label = cleaned.split(".", 1)[0]
        if label in FACTORY_LABELS:
            return
        self.name(cleaned, "device_name")
        self.name(label, "device_name")
        if len(_phrase(label)) > 1:
            self.phrase(label, "device_name")

    def domain(self, domain: str) -> None:
        cleaned = domain.strip().strip(".").casefold()
        if "." in cleaned and cleaned not in FACTORY_DOMAINS:
            self.domains.setdefault(cleaned, "device_name")
