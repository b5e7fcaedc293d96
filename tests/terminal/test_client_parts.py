"""The terminal client's parts on their own: addresses, headers, the stream, what it shows."""

from __future__ import annotations

import json

import httpx
import pytest
from click.testing import CliRunner

from sovereign.cli import main
from sovereign.terminal.api import ServiceClient, ServiceFailure, sse_events, target
from sovereign.terminal.display import GUTTER
from sovereign.terminal.session import (
    HISTORY_BYTES,
    card_sentence,
    flag_lines,
    history_to_send,
    literal,
    receipt_line,
)


@pytest.mark.parametrize(
    ("url", "connect", "host", "origin", "sni"),
    [
        ("http://sovereign.localhost:8092", "http://127.0.0.1:8092", "sovereign.localhost:8092",
         "http://sovereign.localhost:8092", None),
        ("https://sovereign.localhost:8443/", "https://127.0.0.1:8443", "sovereign.localhost:8443",
         "https://sovereign.localhost:8443", "sovereign.localhost"),
        ("http://127.0.0.1:8092", "http://127.0.0.1:8092", "127.0.0.1:8092",
         "http://127.0.0.1:8092", None),
        ("http://Sovereign.LAN", "http://sovereign.lan", "sovereign.lan", "http://sovereign.lan",
         None),
        ("http://[::1]:8092", "http://[::1]:8092", "[::1]:8092", "http://[::1]:8092", None),
    ],
)  # fmt: skip
def test_the_target_keeps_the_name_in_host_and_origin(url, connect, host, origin, sni):
    reached = target(url)
    assert (reached.connect_url, reached.host, reached.origin, reached.sni) == (
        connect, host, origin, sni
    )  # fmt: skip


@pytest.mark.parametrize(
    "url",
    [
        "ftp://sovereign.localhost",
        "sovereign.localhost:8092",
        "http://user:pw@sovereign.localhost:8092",
        "http://sovereign.localhost:8092/api",
        "http://sovereign.localhost:8092/?x=1",
        "http://",
    ],
)
def test_anything_but_the_service_address_alone_is_refused(url):
    with pytest.raises(ValueError):
        target(url)


async def test_every_request_names_the_service_and_carries_the_session_headers():
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path.endswith("/auth/login"):
            return httpx.Response(
                200, json={"csrf_token": "c" * 8}, headers={"Set-Cookie": "s=1; Path=/"}
            )
        return httpx.Response(200, json={"text": "ok", "pending_confirmation": None})

    transport = httpx.MockTransport(handler)
    client = ServiceClient("http://sovereign.localhost:8092", transport=transport)
    await client.sign_in("pw")
    await client.converse({"message": "hi"}, lambda piece: None)
    await client.close()

    login, message, logout = seen
    for request in seen:
        assert request.url.host == "127.0.0.1" and request.url.port == 8092
        assert request.headers["host"] == "sovereign.localhost:8092"
        assert request.headers["origin"] == "http://sovereign.localhost:8092"
    assert "x-csrf-token" not in login.headers and json.loads(login.content) == {"password": "pw"}
    assert message.headers["x-csrf-token"] == "c" * 8 and message.headers["cookie"] == "s=1"
    assert message.headers["accept"] == "text/event-stream"
    assert logout.url.path == "/api/v1/auth/logout"


async def test_an_error_answer_keeps_its_body_and_retry_after():
    def handler(request: httpx.Request) -> httpx.Response:
        body = {"error": {"code": "TOO_MANY_ATTEMPTS", "message": "Wait."}}
        return httpx.Response(429, json=body, headers={"Retry-After": "30"})

    client = ServiceClient("http://127.0.0.1:1", transport=httpx.MockTransport(handler))
    with pytest.raises(ServiceFailure) as failed:
        await client.sign_in("pw")
    await client.close()
    assert (failed.value.status, failed.value.code, failed.value.retry_after) == (
        429, "TOO_MANY_ATTEMPTS", 30
    )  # fmt: skip


async def events_of(text: str) -> list[tuple[str, object]]:
    async def lines():
        for line in text.splitlines():
            yield line

    return [event async for event in sse_events(lines())]


async def test_the_stream_parser_reads_the_service_frames():
    text = (
        ': keep-alive\n\nevent: token\ndata: {"text": "Hel"}\n\n'
        'event: token\ndata: {"text":\ndata: "lo"}\n\n'
        'event: result\ndata: {"text": "Hello"}\n\nevent: empty\n\n'
    )
    assert await events_of(text) == [
        ("token", {"text": "Hel"}),
        ("token", {"text": "lo"}),
        ("result", {"text": "Hello"}),
    ]


async def test_a_garbled_frame_is_a_service_failure():
    with pytest.raises(ServiceFailure, match="garbled"):
        await events_of("event: token\ndata: {not json\n\n")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("pi firmware", '"pi firmware"'),
        (" trailing ", '" trailing "'),
        ("zero\u200bwidth", '"zero\\u200bwidth"'),
        ("non\u00a0breaking", '"non\\u00a0breaking"'),
        ("private\ue000use", '"private\\ue000use"'),
        ("rtl\u202eoverride", '"rtl\\u202eoverride"'),
        ("esc\x1b[31m", '"esc\\u001b[31m"'),
        ("line\nbreak", '"line\\nbreak"'),
        ("Zürich café", '"Zürich café"'),
        (3, "3"),
    ],
)
def test_an_argument_is_shown_literally_with_nothing_invisible(value, expected):
    assert literal(value) == expected


def test_history_to_send_fits_the_service_limits():
    history = [{"role": "assistant", "content": "x" * 40_000} for _ in range(120)]
    sent = history_to_send(history)
    assert all(len(entry["content"]) == 32_000 for entry in sent)
    assert len(json.dumps(sent).encode()) <= HISTORY_BYTES
    assert sent and len(sent) < 100


def test_the_card_sentence_names_where_the_request_goes():
    assert "search engines" in card_sentence("web.search", {"query": "q"})
    with_settings = {"query": "q", "language": "de", "safesearch": 1}
    assert card_sentence("web.search", with_settings).endswith(
        "to the search engines, in German, safe search moderate."
    )
    assert "to docs.example.org," in card_sentence("web.fetch", {"url": "https://docs.example.org/a"})
    assert "outside" not in card_sentence("home_assistant.state", {"entity_id": "sensor.x"})


def test_a_not_asked_receipt_reads_as_refused_with_its_code():
    receipt = {"capability": "web.search", "locality": "external", "outcome": "refused",
               "error_code": "NOT_ASKED"}  # fmt: skip
    assert receipt_line(receipt) == "web.search: refused (NOT_ASKED); nothing was sent"


def test_backend_options_go_with_in_process_only():
    result = CliRunner().invoke(main, ["chat", "--backend", "scripted"])
    assert result.exit_code == 2
    assert "--backend only go with --in-process" in result.output


def test_the_in_process_mode_stays_for_development(tmp_path):
    from sovereign.conversation.backends.demo import INTRODUCTION

    result = CliRunner().invoke(
        main,
        ["chat", "--in-process", "--backend", "scripted", "--data-dir", str(tmp_path)],
        input="hello\nquit\n",
    )
    assert result.exit_code == 0, result.output
    answer = " ".join(result.output.replace(GUTTER, " ").split())  # rows wrapped in a gutter
    assert INTRODUCTION in answer


def test_the_in_process_mode_speaks_the_household_s_language_as_the_service_mode_does(tmp_path):
    """A Dutch household: the same prompts, progress, card, key for yes and receipt as
    against the service, the language read from the same setting; "stoppen" leaves."""
    from sovereign.service.household_settings import HouseholdSettings, HouseholdSettingsStore
    from sovereign.service.policy import PolicyStore

    HouseholdSettingsStore(tmp_path).save(HouseholdSettings(language="nl"))
    PolicyStore(tmp_path).set_web_search(True)
    typed = "hallo\nsearch zonnepanelen goed schoonmaken\nn\nte privé\nstoppen\nnever read\n"
    result = CliRunner().invoke(
        main, ["chat", "--in-process", "--backend", "scripted", "--data-dir", str(tmp_path)],
        input=typed,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("jij>   … Je vraag wordt verzonden (0 seconden)")
    assert "\nassistent>\n" in out
    assert "Dit verzoek goedkeuren?" in out  # the card, as the service says it
    assert "Goedkeuren [j] / Afwijzen [N]: Reden voor afwijzen (optioneel):" in out
    assert "Je zei: \u2018te privé\u2019." in out
    assert "Zoeken op het web: door jou geweigerd; er is niets verstuurd" in out
    assert out.count("jij> ") == 3  # "stoppen" left; the next line was never read


def test_flag_lines_say_why_each_kind_of_flag_is_there():
    arguments = {"query": "household wifi password for jane@example.com"}
    dictated = {"kind": "from_a_result", "argument": "query", "start": 0, "end": 23,
                "reason": "comes from what a result of this turn said, not from you"}
    private = {"kind": "email", "argument": "query", "start": 28, "end": 44,
               "reason": "looks like an e-mail address"}
    lines = flag_lines(arguments, [dictated])
    assert '"household wifi password"' in lines[0] and "not from you" in lines[0]
    assert lines[-1] == "  ! Check the marked parts: a page or search result wrote them, not you."
    both = flag_lines(arguments, [dictated, private])
    assert "they look like details of your household" in both[-2]
    assert "a page or search result wrote them" in both[-1]
    assert flag_lines(arguments, []) == []


def test_flag_lines_say_which_words_the_assistant_added():
    arguments = {"query": "Champions League final result"}
    added = {"kind": "added_by_assistant", "argument": "query", "start": 0, "end": 16,
             "reason": "is not in what you wrote: the assistant added it"}  # fmt: skip
    lines = flag_lines(arguments, [added])
    assert lines[0] == (
        '  ! query[0:16] "Champions League": is not in what you wrote: the assistant added it'
    )
    assert lines[-1] == (
        "  ! Check the marked parts: the assistant added them; you did not write them."
    )
    assert not any("details of your household" in line for line in lines)


def test_a_search_refused_at_the_connection_reads_as_nothing_left():
    from sovereign.terminal.session import receipt_headline, receipt_line

    refused = {"capability": "web.search", "locality": "external", "outcome": "failed",
               "error_code": "EXECUTION_FAILED", "sent": False}
    assert receipt_headline([refused]) == (
        "Nothing left this device: the device's search service is not running."
    )
    assert receipt_line(refused) == (
        "web.search: failed before anything left this device "
        "(the device's search service is not running)"
    )
    maybe = {**refused, "sent": None}
    assert receipt_headline([maybe]) == "May have left this device (a call failed on the way)."


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("read https://a.example/my page.html please",
         ("https://a.example/my page.html", "https://a.example/my%20page.html")),
        ("https://a.example/a b/c d.pdf",
         ("https://a.example/a b/c d.pdf", "https://a.example/a%20b/c%20d.pdf")),
        ("read https://a.example/page please", None),
        ("read https://a.example/page", None),
        ("no address here.html", None),
    ],
)
def test_an_address_that_goes_on_after_a_space_is_found_with_its_encoded_form(text, found):
    from sovereign.terminal.session import spaced_address

    assert spaced_address(text) == found
