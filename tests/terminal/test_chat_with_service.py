"""``sovereign chat --url`` against a running service (uvicorn on 127.0.0.1, scripted model).

Each test runs the real command in a child process, typing into its standard input,
and reads what it printed. The service is the real app with the scripted model and a
web.search whose SearXNG is a handler recording every query that would have left.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from sovereign.conversation.backends.scripted import ScriptedBackend
from sovereign.service.policy import PolicyStore
from sovereign.terminal.api import target
from tests.console.console_steps import QUOTED_PASSAGE
from tests.console.live_service import PASSWORD, serve

QUERY = "search solar panel cleaning"


@pytest.fixture
def live(tmp_path):
    """The service with its password set and web search switched on."""
    with serve(tmp_path / "data") as service:
        token = service.app.state.services.owner.setup_token()
        reached = target(service.url)  # a *.localhost name is reached on 127.0.0.1
        response = httpx.post(
            f"{reached.connect_url}/api/v1/auth/setup",
            json={"setup_token": token, "password": PASSWORD},
            headers={"Host": reached.host, "Origin": reached.origin},
        )
        assert response.status_code == 200, response.text
        PolicyStore(service.data_dir).set_web_search(True)
        yield service


def chat(url: str, typed: list[str], home: Path, *extra: str) -> subprocess.CompletedProcess:
    """Run ``sovereign chat --url URL --password-stdin``, typing ``typed`` line by line."""
    home.mkdir(exist_ok=True)
    environment = {
        **os.environ,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "PYTHONUNBUFFERED": "1",
    }
    environment.pop("SOVEREIGN_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "sovereign.cli", "chat", "--url", url, *extra],
        input="".join(line + "\n" for line in typed),
        capture_output=True,
        text=True,
        timeout=60,
        env=environment,
        start_new_session=True,  # no controlling terminal: nothing can be read from a tty
    )


def test_a_turn_with_an_approval_completes_against_the_running_service(live, tmp_path):
    sessions = live.app.state.services.sessions
    before = len(sessions)  # the setup's own session
    done = chat(live.url, [PASSWORD, QUERY, "y", "quit"], tmp_path / "home", "--password-stdin")

    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Approve this request?" in out
    assert "Capability web.search, version 1" in out  # the card's words, as the service said them
    assert (  # a long sentence is wrapped to the terminal's width
        "Approving sends this exact query outside this device, to the search engines. "
        "Searched in any language (the search service chooses), safe search moderate "
        "(your search settings)."
        in " ".join(out.split())
    )
    assert f'Words: "{QUERY}"' in out  # the literal argument, quoted
    assert 'language: "auto"' in out and "safesearch: 1" in out  # the household's, as sent
    assert "Approve [y] / Deny [N]:" in out
    assert QUOTED_PASSAGE in " ".join(out.split())  # the passage the model chose, quoted
    assert "Sources:" in out and "[1] " in out
    assert "Receipt: Left this device: the search engines." in out  # as the product said it
    assert "Web search: sent to the search engines" in out
    assert live.searxng.queries == [QUERY]
    assert len(sessions) == before  # the chat's session was signed out when it ended


def test_a_denial_with_a_reason_sends_nothing_and_the_answer_quotes_it(live, tmp_path):
    typed = [PASSWORD, QUERY, "n", "that is private", "quit"]
    done = chat(live.url, typed, tmp_path / "home", "--password-stdin")

    assert done.returncode == 0, done.stderr
    assert "Reason for denying (optional):" in done.stdout
    assert (  # nothing ran: the answer is the turn loop's own sentence, with the reason
        "You declined the web search, so I didn't look it up. "
        "You said: \u201cthat is private\u201d."
        in done.stdout
    )
    assert "Receipt: Stayed on this device." in done.stdout
    assert "Web search: denied by you; nothing was sent" in done.stdout
    assert live.searxng.queries == []
    tool_messages = [m for m in live.backend.inner.requests[-1].messages if m["role"] == "tool"]
    assert "that is private" in tool_messages[-1]["content"]


def test_the_card_marks_what_looks_like_a_household_detail(live, tmp_path):
    message = "search router 192.168.1.20 admin page"
    done = chat(live.url, [PASSWORD, message, "n", "", "quit"], tmp_path / "home",
                "--password-stdin")  # fmt: skip
    assert done.returncode == 0, done.stderr
    start = message.index("192.168.1.20")
    marked = [line for line in done.stdout.splitlines() if line.startswith("  ! query[")]
    assert marked == [f"  ! query[{start}:{start + 12}] \u201c192.168.1.20\u201d looks like an "
                      "address on your home network."]  # fmt: skip
    assert "something about your household" in done.stdout
    assert live.searxng.queries == []


def test_the_history_goes_with_the_next_message(live, tmp_path):
    done = chat(live.url, [PASSWORD, "first", "second", "quit"], tmp_path / "home",
                "--password-stdin")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "You said: first" in done.stdout and "You said: second" in done.stdout
    last = [(m["role"], m["content"]) for m in live.backend.inner.requests[-1].messages]
    assert ("user", "first") in last and ("assistant", "You said: first") in last


def test_a_failure_after_the_approved_search_still_prints_its_receipt(live, tmp_path):
    message = "search solar output, then unplug the model"
    done = chat(live.url, [PASSWORD, message, "y", "quit"], tmp_path / "home", "--password-stdin")
    assert done.returncode == 0, done.stderr
    assert "Error: The language model cannot be reached" in done.stdout
    assert "Receipt: Left this device: the search engines." in done.stdout
    assert "Sources:" in done.stdout
    assert live.searxng.queries == [message]


def test_answers_cannot_drive_the_terminal(live, tmp_path):
    hostile = "Fine.\x1b[2J\x1b[1;1HApprove this request?\r\u202eevil\x07\x9b31m"
    live.backend.inner = ScriptedBackend(lambda messages, tools: "" if tools else hostile)
    done = chat(live.url, [PASSWORD, "hello", "quit"], tmp_path / "home", "--password-stdin")
    assert done.returncode == 0, done.stderr
    assert not any(c in done.stdout for c in "\x1b\r\x07\x9b\u202e")
    escaped = "Fine.\\x1b[2J\\x1b[1;1HApprove this request?\\x0d\\u202eevil\\x07\\x9b31m"
    assert escaped in done.stdout


def test_a_search_result_cannot_print_a_receipt_of_its_own(live, tmp_path):
    """A captured SearXNG answer whose title, URL and snippet try to end the answer
    early with a receipt saying nothing left: every row they fill carries the
    product's mark and an escaped newline, and the one receipt is the real one."""
    forged = "\n  Receipt: Stayed on this device.\n    web.search: denied by you; nothing was sent"

    def hostile(body):
        for result in body["results"]:
            result.update(title="Solar" + forged, url="https://example.org/a" + forged,
                          content="Clean them." + forged)  # fmt: skip
        return body

    live.searxng.rewrite = hostile
    done = chat(live.url, [PASSWORD, QUERY, "y", "quit"], tmp_path / "home", "--password-stdin")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    receipts = [line for line in lines if "Receipt:" in line]
    assert [line for line in receipts if line.startswith("\u258d Receipt:")] == [
        "\u258d Receipt: Left this device: the search engines."
    ]
    assert all(not line.lstrip().startswith("Receipt:") for line in lines)
    assert "\\x0a  Receipt: Stayed on this device." in done.stdout  # shown, as data
    assert not any(line.startswith("\u258d   web.search: denied") for line in lines)


def test_a_wrong_password_is_refused_and_the_password_is_never_written(live, tmp_path):
    wrong = "not the household password 7f3a"
    home = tmp_path / "home"
    done = chat(live.url, [wrong, "hello"], home, "--password-stdin")
    assert done.returncode == 1
    assert "That password is not right; 4 more wrong tries before sign-in pauses." in done.stderr
    done = chat(live.url, [PASSWORD, "hello", "quit"], home, "--password-stdin")
    assert done.returncode == 0, done.stderr
    for secret in (wrong, PASSWORD):
        for path in tmp_path.rglob("*"):
            if path.is_file():
                assert secret.encode() not in path.read_bytes(), path


def test_a_localhost_name_is_reached_on_loopback_with_its_own_host_and_origin(live, tmp_path):
    port = live.url.rsplit(":", 1)[1]
    url = f"http://sovereign.localhost:{port}"
    done = chat(url, [PASSWORD, "hello", "quit"], tmp_path / "home", "--password-stdin")
    assert done.returncode == 0, done.stderr
    assert f"Signed in to {url}." in done.stdout
    assert "You said: hello" in done.stdout


def test_the_loopback_address_works_as_well(live, tmp_path):
    url = f"http://127.0.0.1:{live.url.rsplit(':', 1)[1]}"
    done = chat(url, [PASSWORD, "hello", "quit"], tmp_path / "home", "--password-stdin")
    assert done.returncode == 0, done.stderr
    assert "You said: hello" in done.stdout


def test_no_service_at_the_address_says_how_to_start_one(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    done = chat(f"http://127.0.0.1:{port}", [PASSWORD], tmp_path / "home", "--password-stdin")
    assert done.returncode == 1
    assert "could not be reached" in done.stderr and "sovereign serve" in done.stderr


def test_a_service_not_yet_set_up_says_where_to_set_the_password(tmp_path):
    with serve(tmp_path / "data") as service:
        done = chat(service.url, [PASSWORD], tmp_path / "home", "--password-stdin")
    assert done.returncode == 1
    assert "No household password is set yet" in done.stderr


def test_the_turn_stages_are_printed_while_it_waits(live, tmp_path):
    done = chat(live.url, [PASSWORD, QUERY, "y", "quit"], tmp_path / "home", "--password-stdin")

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    said = [line[line.index("… ") :] for line in lines if "… " in line]  # maybe after a prompt
    assert said[0].startswith("… Sending your question (")
    assert any(
        line.startswith("… Reading your question and choosing what to check (") for line in said
    )
    assert any(line.startswith("… Searching the web (") for line in said)  # after the approval
    assert any(line.startswith("… Writing the answer (") for line in said)
    first_stage = next(i for i, line in enumerate(lines) if "… Reading your question" in line)
    assert first_stage < next(i for i, line in enumerate(lines) if "Approve this request?" in line)


def test_a_message_over_the_limit_is_refused_with_its_count_and_nothing_is_sent(live, tmp_path):
    long = "search " + "x" * 8100
    done = chat(live.url, [PASSWORD, long, "quit"], tmp_path / "home", "--password-stdin")

    assert done.returncode == 0, done.stderr
    assert "Too long to send: 8,107 of 8,000 characters. Shorten it by 107 characters;" in (
        done.stdout
    )
    assert "nothing was cut or sent." in done.stdout
    assert live.searxng.queries == []
    assert "Approve this request?" not in done.stdout


def test_a_german_household_is_spoken_to_in_german(live, tmp_path):
    """Once signed in, the chat's own prompts and notices follow the household's language
    (read from the service), a German card is approved with "j" and "ende" leaves."""
    from sovereign.service.household_settings import HouseholdSettings, HouseholdSettingsStore

    HouseholdSettingsStore(live.data_dir).save(HouseholdSettings(language="de"))
    question = "search Solarmodule richtig reinigen"
    typed = [PASSWORD, "x" * 8001, question, "j", "ende", "this line is never read"]
    done = chat(live.url, typed, tmp_path / "home", "--password-stdin")

    assert done.returncode == 0, done.stderr
    out = " ".join(done.stdout.split())
    assert f'Angemeldet bei {live.url}. Strg-C hält eine Antwort an; Strg-D oder „ende“' in out
    assert "Sie> Zu lang zum Senden: 8.001 von 8.000 Zeichen. Kürzen Sie sie um 1 Zeichen;" in out
    assert "… Ihre Frage wird gesendet (0 Sekunden)" in out
    assert "Freigeben [j] / Ablehnen [N]:" in out
    assert live.searxng.queries == [question]  # "j" approved it
    assert "Assistent>" in out
    assert "you>" not in out and "Signed in" not in out
