"""The card's flags and the household's edit through the real app (DESIGN §4).

``confirmation.arguments`` (only with ``approve: true``) is a new proposal; a refused
edit is ``422 INVALID_EDIT`` on the JSON and the streamed path alike, and the card
stays answerable. Private words come from ``<data>/private-words.json``, edited over
``/api/v1/settings/private-words``.
"""

from __future__ import annotations

import json
import os

from sovereign.service.private_words import PrivateWordsStore

MESSAGE = "/api/v1/conversation/message"
WORDS = "/api/v1/settings/private-words"
QUERY = "westbrook primary term dates"


async def ask(signed_in, text: str = QUERY) -> dict:
    await signed_in.set_policy(True)
    body = (await signed_in.message({"message": text})).json()
    assert body["pending_confirmation"] is not None, body
    return body["pending_confirmation"]


def audit_records(signed_in) -> list[dict]:
    path = signed_in.data_dir / "capabilities" / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_a_private_word_is_flagged_on_the_card_and_only_its_kind_is_audited(signed_in):
    PrivateWordsStore(signed_in.data_dir).add("Westbrook Primary")
    pending = await ask(signed_in)
    assert pending["flags"] == [
        {"argument": "query", "start": 0, "end": 17, "kind": "private_word",
         "reason": "is on your household's list of private words"},
    ]  # fmt: skip
    ask_record = audit_records(signed_in)[-1]
    assert ask_record["flags"] == ["private_word"]
    assert "westbrook" not in json.dumps(audit_records(signed_in)).lower()


async def test_an_edited_query_is_what_searxng_receives_and_the_old_token_is_dead(signed_in):
    pending = await ask(signed_in)
    # as the Console sends it: the card's arguments with the edited query put in
    edited = {**pending["arguments"], "query": "primary school term dates"}
    answer = {"token": pending["token"], "approve": True, "arguments": edited}

    response = await signed_in.message({"confirmation": answer})

    assert response.status_code == 200, response.text
    assert signed_in.searxng.queries == ["primary school term dates"]
    assert [r["outcome"] for r in response.json()["receipts"]] == ["executed"]
    again = await signed_in.message({"confirmation": {"token": pending["token"], "approve": True}})
    assert again.json() == response.json()  # this session's retry replays; nothing reruns
    other = await signed_in.another_client()
    async with other:
        login = await other.post("/api/v1/auth/login", json={"password": "correct horse battery"})
        csrf = {"X-CSRF-Token": login.json()["csrf_token"]}
        reuse = {"confirmation": {"token": pending["token"], "approve": True}}
        refused = await other.post(MESSAGE, json=reuse, headers=csrf)
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "INVALID_CONFIRMATION"
    assert signed_in.searxng.queries == ["primary school term dates"]
    turns = signed_in.app.state.services.turns
    assert turns._executor.confirmations.seconds_left(pending["token"]) == 0


async def test_a_refused_edit_is_a_422_and_the_card_can_still_be_approved(signed_in):
    pending = await ask(signed_in)
    bad = {"token": pending["token"], "approve": True, "arguments": {"query": "a\u200bb"}}

    response = await signed_in.message({"confirmation": bad})

    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "INVALID_EDIT"
    assert error["message"] == (
        "The edited request was not accepted: it cannot be sent as it is written. "
        "The original request is still waiting for your answer."
    )
    assert response.json()["detail"] == (  # said from the executor's refusal code
        "query holds a character the card cannot show (U+200B ZERO WIDTH SPACE) at position 2."
    )
    assert response.json()["language"] == "en" == response.json()["detail_language"]
    approved = await signed_in.message(
        {"confirmation": {"token": pending["token"], "approve": True}}
    )
    assert approved.status_code == 200
    assert signed_in.searxng.queries == [pending["arguments"]["query"]]


async def test_a_german_card_is_flagged_and_its_refused_edit_said_in_german(signed_in):
    PrivateWordsStore(signed_in.data_dir).add("Westbrook")
    pending = await ask(signed_in, "Wann sind die Ferien der Grundschule Westbrook dieses Jahr?")
    assert pending["flags"][0]["reason"] == "is on your household's list of private words"
    assert pending["words"]["flag_reasons"] == {
        "private_word": "steht auf der Liste privater Wörter Ihres Haushalts"
    }
    assert pending["words"]["flag_titles"]["household"].startswith("Bevor Sie freigeben:")
    bad = {"token": pending["token"], "approve": True, "arguments": {"query": "a\u200bb"}}
    response = await signed_in.message({"confirmation": bad})
    assert response.status_code == 422
    assert response.json()["error"]["message"] == (
        "Die geänderte Anfrage wurde nicht angenommen: so, wie sie geschrieben ist, kann sie "
        "nicht gesendet werden. Die ursprüngliche Anfrage wartet weiter auf Ihre Antwort."
    )
    assert response.json()["language"] == "de" and "U+200B" in response.json()["detail"]


async def test_a_french_turn_s_refused_edit_gives_its_detail_in_french(signed_in):
    """The executor's detail is said from its refusal code (it stays language-free);
    ``detail_language`` names the language it is said in."""
    pending = await ask(signed_in, "Quand commencent les vacances scolaires de cette année ?")
    edits = {
        "a\u200bb": "query contient, en position 2, un caractère que la carte ne peut pas "
        "montrer (U+200B ZERO WIDTH SPACE).",
        "   ": "query ne contient aucun mot, seulement des espaces.",
    }
    for query, detail in edits.items():
        bad = {"token": pending["token"], "approve": True, "arguments": {"query": query}}
        response = await signed_in.message({"confirmation": bad})
        assert response.status_code == 422
        body = response.json()
        assert body["language"] == "fr" and body["detail_language"] == "fr"
        assert body["detail"] == detail
        assert body["error"]["message"].startswith("La demande modifiée")


async def test_a_refused_edit_on_the_streamed_path_is_a_422_before_any_stream(signed_in):
    pending = await ask(signed_in)
    bad = {"token": pending["token"], "approve": True, "arguments": {"query": ""}}
    response = await signed_in.post(MESSAGE, {"confirmation": bad}, Accept="text/event-stream")
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "INVALID_EDIT"
    assert signed_in.searxng.queries == []


async def test_edited_arguments_with_a_denial_are_an_invalid_request(signed_in):
    pending = await ask(signed_in)
    answer = {"token": pending["token"], "approve": False, "arguments": {"query": "x"}}
    response = await signed_in.message({"confirmation": answer})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "INVALID_REQUEST"


async def test_private_words_are_listed_added_and_removed(signed_in):
    empty = (await signed_in.client.get(WORDS, headers=signed_in.headers())).json()
    assert empty["words"] == [] and empty["problem"] is None
    assert set(empty["automatic"]) == {
        "home_assistant", "pihole", "device_names", "device_addresses", "wifi",
    }  # fmt: skip
    added = await signed_in.post(WORDS, {"add": "  Juniper   Lane "})
    assert added.status_code == 200 and added.json()["words"] == ["Juniper Lane"]
    assert (await signed_in.post(WORDS, {"add": "juniper lane"})).json()["words"] == [
        "Juniper Lane"
    ]
    mode = os.stat(signed_in.data_dir / "private-words.json").st_mode & 0o777
    assert mode == 0o600
    removed = await signed_in.post(WORDS, {"remove": "JUNIPER LANE"})
    assert removed.json()["words"] == []


async def test_bad_words_and_requests_are_refused_with_a_sentence(signed_in):
    for body, code in [
        ({"add": "x"}, "INVALID_PRIVATE_WORD"),
        ({"add": "a\u200bb c"}, "INVALID_PRIVATE_WORD"),
        ({"add": "y" * 101}, "INVALID_PRIVATE_WORD"),
        ({"add": "ok", "remove": "ok"}, "INVALID_REQUEST"),
        ({}, "INVALID_REQUEST"),
        ({"add": 5}, "INVALID_REQUEST"),
    ]:
        response = await signed_in.post(WORDS, body)
        assert response.status_code == 422, body
        assert response.json()["error"]["code"] == code, body
        assert response.json()["error"]["message"]


async def test_a_corrupt_words_file_is_reported_never_overwritten(signed_in):
    path = signed_in.data_dir / "private-words.json"
    path.write_text('{"words": ["Juniper Lane",')
    path.chmod(0o600)
    reading = (await signed_in.client.get(WORDS, headers=signed_in.headers())).json()
    assert reading["words"] == [] and "not valid" in reading["problem"]
    response = await signed_in.post(WORDS, {"add": "Maya"})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "PRIVATE_WORDS_UNREADABLE"
    assert path.read_text() == '{"words": ["Juniper Lane",'


async def test_the_words_routes_need_the_session_and_its_csrf_header(harness):
    assert (await harness.client.get(WORDS)).status_code == 401
    await harness.sign_in()
    response = await harness.client.post(WORDS, json={"add": "Maya"})
    assert response.status_code == 403


async def test_activity_counts_the_warning_and_the_edit_not_a_second_proposal(signed_in):
    PrivateWordsStore(signed_in.data_dir).add("Westbrook Primary")
    pending = await ask(signed_in)
    edited = {**pending["arguments"], "query": "term dates"}  # as the Console sends it
    edit = {"token": pending["token"], "approve": True, "arguments": edited}
    assert (await signed_in.message({"confirmation": edit})).status_code == 200
    summary = await signed_in.client.get(
        "/api/v1/audit/summary?days=1", headers=signed_in.headers()
    )
    counts = summary.json()["capabilities"]["web.search"]
    assert {k: counts[k] for k in ("proposed", "confirmation_requested", "flagged", "edited",
                                   "approved", "executed", "awaiting", "expired")} == {
        "proposed": 1, "confirmation_requested": 2, "flagged": 1, "edited": 1,
        "approved": 1, "executed": 1, "awaiting": 0, "expired": 0,
    }  # fmt: skip


async def test_the_openapi_schema_documents_the_edit_and_the_words_route(harness):
    spec = (await harness.client.get("/api/openapi.json")).json()
    answer = spec["components"]["schemas"]["ConfirmationAnswer"]
    assert "approve: true" in answer["properties"]["arguments"]["description"]
    assert "INVALID_EDIT" in answer["description"]
    assert set(spec["paths"]["/api/v1/settings/private-words"]) == {"get", "post"}
