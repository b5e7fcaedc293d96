"""The boundary's refusals of a request's shape are said in the language the request asks
for (``Accept-Language``), signed in or not; the code never changes
(docs/decisions/household-language.md, "Refusals of a request's shape")."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from sovereign.service.console_words import CATALOG, DOMAIN
from sovereign.service.errors import SENTENCES

MESSAGE = "/api/v1/conversation/message"
LOGIN = "/api/v1/auth/login"
HOUSEHOLD = "/api/v1/settings/household"
JSON = {"Content-Type": "application/json"}


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


@pytest.mark.parametrize("language", ["de", "fr", "es", "nl", "it"])
def test_every_refusal_of_a_request_s_shape_is_translated(language):
    with (CATALOG / language / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as source:
        catalog = read_po(source, locale=language)
    for context, english in SENTENCES:
        message = catalog.get(english, context=context)
        assert message is not None and message.string, (language, context)
        assert message.string != english, (language, context)
        assert placeholders(message.string) == placeholders(english), (language, context)


async def test_malformed_json_before_sign_in_is_told_in_the_browser_s_language(harness):
    german = await harness.client.post(
        LOGIN, content=b"{", headers={**JSON, "Accept-Language": "de-AT,de;q=0.9"}
    )
    assert german.status_code == 400
    assert german.json()["error"] == {
        "code": "MALFORMED_JSON",
        "message": "Der Inhalt der Anfrage ist kein gültiges JSON.",
    }
    english = await harness.client.post(LOGIN, content=b"{", headers=JSON)
    assert english.json()["error"] == {
        "code": "MALFORMED_JSON",
        "message": "The request body is not valid JSON.",
    }
    listed = await harness.client.post(LOGIN, json=[1], headers={"Accept-Language": "nl"})
    assert listed.json()["error"] == {
        "code": "INVALID_REQUEST",
        "message": "De inhoud van het verzoek moet een JSON-object zijn (Content-Type: "
        "application/json).",
    }
    repeated = await harness.client.post(
        LOGIN, content=b'{"password": "a", "password": "b"}',
        headers={**JSON, "Accept-Language": "it"},
    )  # fmt: skip
    assert repeated.status_code == 400
    assert repeated.json()["error"] == {
        "code": "DUPLICATE_JSON_KEY",
        "message": 'Il corpo della richiesta ripete la chiave "password"; invia ogni chiave una '
        "volta sola.",
    }


async def test_signed_in_the_request_s_language_still_decides_not_the_household_s(signed_in):
    harness = signed_in
    assert (await harness.post(HOUSEHOLD, {"language": "it"})).status_code == 200
    french = await harness.client.post(
        MESSAGE, content=b"{'message': 'hi'}",
        headers=harness.headers(**JSON, **{"Accept-Language": "fr-CH,fr;q=0.9"}),
    )  # fmt: skip
    assert french.json()["error"] == {
        "code": "MALFORMED_JSON",
        "message": "Le corps de la requête n\u2019est pas du JSON valable.",
    }
    long = await harness.post(MESSAGE, {"message": "x" * 8001}, **{"Accept-Language": "de"})
    assert long.json()["error"] == {
        "code": "TOO_LONG",
        "message": "Ihre Nachricht ist 8.001 Zeichen lang; höchstens 8.000 werden angenommen. "
        "Nichts wurde gekürzt oder gesendet: Kürzen Sie den Text und senden Sie ihn erneut.",
    }
    field = await harness.post(
        MESSAGE, {"message": "hi", "history": [{"role": "user", "content": "x" * 32001}]},
        **{"Accept-Language": "es"},
    )  # fmt: skip
    assert field.json()["error"]["message"].startswith(
        "El campo history.0.content tiene 32.001 caracteres; se aceptan como máximo 32.000."
    )
    mode = await harness.post(
        "/api/v1/settings/sites", {"mode": "sometimes"}, **{"Accept-Language": "de"}
    )
    assert mode.status_code == 422
    assert mode.json()["error"] == {
        "code": "INVALID_REQUEST",
        "message": "mode: muss 'off', 'allow-only' oder 'block' sein.",
    }
    english = await harness.post("/api/v1/settings/sites", {"mode": "sometimes"})
    assert english.json()["error"]["message"] == (
        "mode: must be 'off', 'allow-only' or 'block'."
    )
    unknown = await harness.post(
        MESSAGE, {"message": "hi", "extra": 1}, **{"Accept-Language": "nl"}
    )
    assert unknown.json()["error"]["message"] == "extra: dit veld wordt hier niet aanvaard."
    kind = await harness.post(MESSAGE, {"message": 42}, **{"Accept-Language": "it"})
    assert kind.json()["error"]["message"] == "message: deve essere un testo."
    missing = await harness.post(
        "/api/v1/conversation/policy", {}, **{"Accept-Language": "es"}
    )
    assert missing.json()["error"] == {
        "code": "INVALID_REQUEST",
        "message": "web_search_enabled: este campo es obligatorio.",
    }


async def test_the_boundary_s_other_refusals_follow_the_request_s_language(signed_in):
    harness = signed_in
    client = harness.client
    nowhere = await client.get("/api/v1/nothing", headers=harness.headers(**{
        "Accept-Language": "nl"}))  # fmt: skip
    assert nowhere.status_code == 404
    assert nowhere.json()["error"] == {
        "code": "NOT_FOUND", "message": "Op dit adres is niets te vinden."
    }
    method = await client.get(MESSAGE, headers=harness.headers(**{"Accept-Language": "it"}))
    assert method.json()["error"] == {
        "code": "METHOD_NOT_ALLOWED",
        "message": "Questo indirizzo non accetta quel metodo.",
    }
    no_secret = await client.post(
        MESSAGE, json={"message": "hi"}, headers={"Accept-Language": "de"}
    )
    assert no_secret.json()["error"] == {
        "code": "CSRF_FAILED",
        "message": "Der Header X-CSRF-Token fehlt oder ist falsch.",
    }
    large = await client.post(
        MESSAGE, content=b'{"message": "' + b"x" * (300 * 1024) + b'"}',
        headers=harness.headers(**JSON, **{"Accept-Language": "fr"}),
    )  # fmt: skip
    assert large.status_code == 413
    assert large.json()["error"]["code"] == "REQUEST_TOO_LARGE"
    assert large.json()["error"]["message"].startswith("Le corps de la requête dépasse ")
    stranger = await harness.another_client()
    async with stranger:
        outside = await stranger.get(
            "/api/v1/conversation/words", headers={"Accept-Language": "es"}
        )
    assert outside.status_code == 401
    assert outside.json()["error"] == {
        "code": "NOT_SIGNED_IN",
        "message": "Primero inicia sesión en la consola.",
    }


async def test_a_request_from_another_page_is_refused_in_the_request_s_language(signed_in):
    foreign = await signed_in.client.post(
        "/api/v1/auth/login", json={"password": "not it"},
        headers={"Origin": "http://evil.example", "Accept-Language": "de"},
    )  # fmt: skip
    assert foreign.json()["error"] == {
        "code": "ORIGIN_NOT_ALLOWED",
        "message": "Diese Anfrage kam von einer anderen Seite, und nur die Konsole selbst darf "
        "sie stellen.",
    }
    elsewhere = await signed_in.client.get(
        "/api/v1/auth/state", headers={"Host": "evil.example", "Accept-Language": "fr"}
    )
    assert elsewhere.status_code == 421
    assert elsewhere.json()["error"]["message"].startswith(
        "Ce service ne répond qu\u2019à sa propre adresse, par exemple http://"
    )
