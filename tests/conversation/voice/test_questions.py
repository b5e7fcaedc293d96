"""The questions one message holds (conversation/voice/questions.py)."""

from __future__ import annotations

import json

import pytest

from sovereign.conversation.voice.questions import CATALOG, question_parts, question_words
from sovereign.conversation.voice.words import SNOWBALL


@pytest.mark.parametrize(
    ("text", "language", "parts"),
    [
        ("how hot is it?", "en", ["how hot is it?"]),
        ("how hot is it?? and the disk?", "en", ["how hot is it??", "and the disk?"]),
        ("¿Cuánta memoria? ¿Y el disco?", "es", ["¿Cuánta memoria?", "¿Y el disco?"]),
        ("Quelle charge ? Et le disque ?", "fr", ["Quelle charge ?", "Et le disque ?"]),
        ("is it «on?» and", "en", ["is it «on?»"]),  # "and" alone asks nothing
        ("Wie lange läuft es?? Und wer schrieb „Die Verwandlung“?", "de",
         ["Wie lange läuft es??", "Und wer schrieb „Die Verwandlung“?"]),
        ("wie warm ist es? danke", "de", ["wie warm ist es?"]),
        ("read http://example.org/?q=1 please", "en", []),  # a mark inside an address
    ],
)  # fmt: skip
def test_a_question_mark_ends_a_question(text, language, parts):
    assert question_parts(text, language) == parts


@pytest.mark.parametrize(
    ("text", "language", "parts"),
    [
        ("wie warm isses in der küche? und wer hat eigentlich den faust geschrieben", "de",
         ["wie warm isses in der küche?", "und wer hat eigentlich den faust geschrieben"]),
        ("how much memory is free and who wrote faust", "en",
         ["how much memory is free", "and who wrote faust"]),
        ("sag mir die Temperatur und wer hat den Faust geschrieben", "de",
         ["sag mir die Temperatur", "und wer hat den Faust geschrieben"]),
        ("combien de requêtes bloquées et au fait qui a peint la Joconde", "fr",
         ["combien de requêtes bloquées", "et au fait qui a peint la Joconde"]),
        ("cuánta memoria queda y de paso quién escribió el Quijote", "es",
         ["cuánta memoria queda", "y de paso quién escribió el Quijote"]),
        ("hoeveel geheugen is er vrij en wie schilderde de Nachtwacht", "nl",
         ["hoeveel geheugen is er vrij", "en wie schilderde de Nachtwacht"]),
        ("la porta è chiusa? e poi, chi ha scritto la Divina Commedia", "it",
         ["la porta è chiusa?", "e poi, chi ha scritto la Divina Commedia"]),
        ("¿cuántos dominios bloquea? y dime quién pintó el Guernica", "es",
         ["¿cuántos dominios bloquea?", "y dime quién pintó el Guernica"]),
        ("how hot is it, and tell me who wrote Faust", "en",
         ["how hot is it,", "and tell me who wrote Faust"]),
        ("how hot is it", "en", ["how hot is it"]),  # begins with a question word
        # "by the way", "one more question" before a question word, in each language
        ("Ist die Hintertür zu? Und nebenbei: wer hat das Telefon erfunden",
         "de", ["Ist die Hintertür zu?", "Und nebenbei: wer hat das Telefon erfunden"]),
        ("Is the back door locked? Quick question: who wrote Dracula", "en",
         ["Is the back door locked?", "Quick question: who wrote Dracula"]),
        ("La porte est fermée ? Au passage, qui a écrit Candide", "fr",
         ["La porte est fermée ?", "Au passage, qui a écrit Candide"]),
        ("¿Está cerrada la puerta? Otra pregunta: quién escribió La Regenta", "es",
         ["¿Está cerrada la puerta?", "Otra pregunta: quién escribió La Regenta"]),
        ("Is de deur op slot? Tussen haakjes, wie schreef Max Havelaar", "nl",
         ["Is de deur op slot?", "Tussen haakjes, wie schreef Max Havelaar"]),
        ("La porta è chiusa? Tra l'altro, chi ha scritto Il Gattopardo", "it",
         ["La porta è chiusa?", "Tra l'altro, chi ha scritto Il Gattopardo"]),
    ],
)  # fmt: skip
def test_a_question_word_after_and_begins_another_question_without_its_mark(text, language, parts):
    assert question_parts(text, language) == parts


@pytest.mark.parametrize(
    ("text", "language", "second"),
    [
        # contracted and elided question words, and those a first list left out
        ("la porta sul retro è chiusa a chiave? e poi, qual è il capoluogo della Sardegna", "it",
         "e poi, qual è il capoluogo della Sardegna"),
        ("la ram è piena? e poi cos'è un kernel", "it", "e poi cos'è un kernel"),
        ("is the door locked? and what's the capital of Peru", "en",
         "and what's the capital of Peru"),
        ("how hot is it, and who's the author of Emma", "en", "and who's the author of Emma"),
        ("Ist die Tür zu? Und wozu dient eigentlich ein Router", "de",
         "Und wozu dient eigentlich ein Router"),
        ("Is de deur dicht? En hoelang duurt een marathon", "nl",
         "En hoelang duurt een marathon"),
        ("La porte est fermée ? Et d'où vient le mot robot", "fr", "Et d'où vient le mot robot"),
        ("La porte est fermée ? Et c'est quoi la capitale du Pérou", "fr",
         "Et c'est quoi la capitale du Pérou"),
        ("¿Está cerrada la puerta? Y adónde emigran las cigüeñas", "es",
         "Y adónde emigran las cigüeñas"),
    ],
)  # fmt: skip
def test_every_form_of_a_question_word_begins_another_question(text, language, second):
    assert question_parts(text, language)[1:] == [second]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("ok. und wie lang läuft er schon am Stück?", "de"),
        ("nice. and how many sites are on the list it blocks from?", "en"),
        ("super, merci. et combien de requêtes bloquées ?", "fr"),
        ("vale, gracias. ¿y cuánta memoria queda?", "es"),
        ("top, bedankt. en hoeveel schijfruimte is er nog?", "nl"),
        ("perfetto, grazie. e quanto è carico il processore?", "it"),
    ],
)
def test_thanks_before_a_follow_up_are_no_question_of_their_own(text, language):
    assert question_parts(text, language) == [text]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("tell me how much memory is free", "en"),  # a question word, no "and" before it
        ("sag mir, wie warm es ist", "de"),
        ("en wie is de eigenaar", "fr"),  # Dutch words in a French question: not read
        ("la temperatura e la memoria", "it"),  # "and", no question word after it
    ],
)
def test_a_question_word_inside_one_question_begins_no_other(text, language):
    assert len(question_parts(text, language)) <= 1


def test_only_the_questions_language_is_read():
    # Dutch "wie" is "who"; German "wie" is "how"
    text = "hoeveel geheugen is er vrij en wie schreef het"
    assert len(question_parts(text, "nl")) == 2
    assert len(question_parts(text, "de")) == 0
    assert question_parts("what is it and who wrote it", "xx") == []  # marks only


def test_every_language_the_product_speaks_has_its_question_words():
    catalog = json.loads(CATALOG.read_text(encoding="utf-8"))
    assert set(catalog) - {"_about"} == set(SNOWBALL)
    for language in SNOWBALL:
        lists = question_words(language)
        assert lists["asks"] and lists["openers"], language
