"""Every catalog translates every sentence the product can say (voice.catalogs, inventory)."""

from __future__ import annotations

import re
import string

import pytest
from babel.messages.pofile import read_po

from sovereign.conversation.voice.catalogs import LANGUAGES, Voice, translations
from sovereign.conversation.voice.inventory import all_entries

TRANSLATED = [language for language in LANGUAGES if language != "en"]


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.fixture(scope="module")
def entries(registry):
    return all_entries(registry)


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_sentence_is_translated_with_the_same_placeholders(entries, language):
    catalogs = {}
    for entry in entries:
        path = entry.directory / language / "LC_MESSAGES" / f"{entry.domain}.po"
        if path not in catalogs:
            with path.open("rb") as source:
                catalogs[path] = read_po(source, locale=language)
        message = catalogs[path].get(
            (entry.text, entry.plural) if entry.plural else entry.text, context=entry.context
        )
        assert message is not None, (path.name, entry.context, entry.text)
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(forms), (entry.context, entry.text)
        for form in forms:
            assert placeholders(form) == placeholders(entry.text), (entry.text, form)


def test_the_inventory_lists_every_fact_every_phrase_and_the_own_sentences(entries):
    contexts = {(e.domain, e.context) for e in entries}
    assert ("system", "memory") in contexts and ("pihole", "period") in contexts
    assert ("home_assistant", "lock") in contexts and ("web", "switched_off") in contexts
    assert ("conversation", "did_not_run") in contexts and ("conversation", "cut_off") in contexts
    assert len(entries) == len(set(entries))


def test_an_unknown_language_speaks_english_and_a_missing_catalog_gives_the_source(tmp_path):
    assert Voice("xx").language == "en"
    voice = Voice("de", tmp_path, "nothing")
    assert voice.say("ctx", "Hello {name}.", name="you") == "Hello you."


def test_a_corrupt_catalog_is_reported_and_speaks_english(tmp_path, caplog):
    broken = tmp_path / "de" / "LC_MESSAGES"
    broken.mkdir(parents=True)
    (broken / "broken.po").write_bytes(b'msgid "a\nmsgstr "\xff\xfe')
    translations.cache_clear()
    voice = Voice("de", tmp_path, "broken")
    assert voice.say("ctx", "Plain.") == "Plain."


def test_german_plurals_pick_their_form_by_count():
    voice = Voice("de", *_pihole())
    one = voice.say_count("blocklist", "{domains} domain is on the blocklist.",
                          "{domains} domains are on the blocklist.", 1, domains="1")  # fmt: skip
    many = voice.say_count("blocklist", "{domains} domain is on the blocklist.",
                           "{domains} domains are on the blocklist.", 2, domains="2")  # fmt: skip
    assert re.match(r"1 Domain steht", one) and re.match(r"2 Domains stehen", many)


def _pihole():
    from sovereign.capabilities import pihole

    return pihole.CATALOG, "pihole"
