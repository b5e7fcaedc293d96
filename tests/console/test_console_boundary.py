"""The service's boundary seen from real chromium (DESIGN §5): the cookie stays with
the Console's own name, no other page can frame it or sign in through it, and a
rebound name reaches nothing.

A *sibling* server on another 127.0.0.1 port stands for the device's other
services (Pi-hole's page, SearXNG) and for a hostile page: it records the
cookies it receives and serves whatever page the test gives it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from sovereign.service.sessions import COOKIE_NAME

from .conftest import REBOUND_HOST, watch_page
from .console_steps import first_run
from .live_service import PASSWORD


class Sibling:
    """Serves ``pages[path]`` as HTML on 127.0.0.1 and records each ``Cookie`` header."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        self.cookies: list[str] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        sibling = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                sibling.cookies.append(self.headers.get("Cookie", ""))
                body = sibling.pages.get(self.path.split("?")[0], "<!doctype html><p>sibling")
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        return Handler


@pytest.fixture
def sibling() -> Iterator[Sibling]:
    server = Sibling()
    thread = threading.Thread(target=server._server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server._server.shutdown()
        server._server.server_close()
        thread.join(timeout=5)


def visit_sibling_pages(page, sibling: Sibling) -> None:
    """Open the sibling's page under every name a household might use for it."""
    for host in ("127.0.0.1", "localhost", "pihole.localhost"):
        page.goto(f"http://{host}:{sibling.port}/admin")
        page.evaluate("() => fetch('/api/stats', {credentials: 'include'}).then(r => r.text())")


def test_a_service_on_another_port_never_receives_the_console_cookie(page, service, sibling):
    first_run(page, service)
    assert COOKIE_NAME in {cookie["name"] for cookie in page.context.cookies()}
    expect(page.locator("#host-notice")).to_be_hidden()
    visit_sibling_pages(page, sibling)
    assert len(sibling.cookies) >= 6  # both pages and fetches, plus any icon request
    assert not any(COOKIE_NAME in cookie for cookie in sibling.cookies), sibling.cookies


def test_at_127_0_0_1_the_page_warns_and_the_sibling_does_receive_the_cookie(
    page, service, sibling
):
    """What the household loses by insisting on 127.0.0.1, shown, not just said."""
    port = service.url.rsplit(":", 1)[1]
    page.goto(f"http://127.0.0.1:{port}/#setup={service.app.state.services.owner.setup_token()}")
    notice = page.locator("#host-notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("other services on this device share")
    expect(notice.get_by_role("link")).to_have_attribute("href", f"{service.url}/")
    page.get_by_label("New password").fill(PASSWORD)
    page.get_by_label("Repeat the password").fill(PASSWORD)
    page.get_by_role("button", name="Set password and sign in").click()
    expect(page.locator("#chat-view")).to_be_visible()
    page.goto(f"http://127.0.0.1:{sibling.port}/admin")
    assert COOKIE_NAME in sibling.cookies[-1]


FRAMING_PAGE = """<!doctype html><title>a page that frames the Console</title>
<iframe id="victim" src="{url}/" width="900" height="700"></iframe>"""


@pytest.mark.parametrize("framer", ["127.0.0.1", "localhost"])
def test_the_console_framed_by_another_page_shows_nothing_clickable(page, service, sibling, framer):
    first_run(page, service)
    port = service.url.rsplit(":", 1)[1]
    for target in (service.url, f"http://{framer}:{port}"):  # cross-site, then same-site
        sibling.pages["/frame"] = FRAMING_PAGE.format(url=target)
        page.goto(f"http://{framer}:{sibling.port}/frame")
        page.wait_for_load_state("load")
        [frame] = [f for f in page.frames if f is not page.main_frame]
        controls = frame.locator("button, input, textarea, select, a")
        assert controls.count() == 0, target
        assert frame.locator("#chat-view, #signin-view, #setup-view").count() == 0


GUESS_FORTY_TIMES = """async ([url, mode]) => {
    for (let i = 0; i < 40; i++) {
        await fetch(url + "/api/v1/auth/login", {method: "POST", mode, credentials: "include",
            headers: {"Content-Type": mode === "no-cors" ? "text/plain" : "application/json"},
            body: JSON.stringify({password: "guess " + i})})
            .catch(() => null);  // CORP hides even the opaque answer of a no-cors request
    }
}"""


def test_a_hostile_pages_sign_in_attempts_leave_the_owner_able_to_sign_in(page, service, sibling):
    """Cross-site guesses, and a rebound page's same-origin ones, never reach the
    throttle: the owner signs in at once afterwards."""
    first_run(page, service)
    page.get_by_role("button", name="Sign out").click()
    hostile = page.context.new_page()
    hostile.goto(f"http://127.0.0.1:{sibling.port}/")
    hostile.evaluate(GUESS_FORTY_TIMES, [service.url, "no-cors"])
    rebound = f"http://{REBOUND_HOST}:{service.url.rsplit(':', 1)[1]}"
    hostile.goto(f"{rebound}/")
    hostile.evaluate(GUESS_FORTY_TIMES, [rebound, "same-origin"])
    password = page.get_by_label("Household password", exact=True)
    password.fill(PASSWORD)
    password.press("Enter")
    expect(page.locator("#chat-view")).to_be_visible()


def test_a_rebound_name_reaches_no_route_even_from_its_own_origin(page, service):
    """DNS rebinding: the hostile name now resolves to 127.0.0.1, so the hostile page's
    scripts are same-origin with whatever answers there, and read the answers."""
    first_run(page, service)
    port = service.url.rsplit(":", 1)[1]
    rebound = page.context.new_page()
    rebound.goto(f"http://{REBOUND_HOST}:{port}/")
    answers = rebound.evaluate(
        """async () => {
            const codes = [];
            for (const [method, path, body] of [
                ["GET", "/api/v1/auth/state", undefined],
                ["POST", "/api/v1/auth/login", JSON.stringify({password: "guess"})],
                ["POST", "/api/v1/conversation/policy", JSON.stringify({web_search_enabled: true})],
            ]) {
                const response = await fetch(path, {method, body,
                    headers: {"Content-Type": "application/json"}});
                codes.push([response.status, (await response.json()).error.code]);
            }
            return codes;
        }"""
    )
    assert answers == [[421, "HOST_NOT_ALLOWED"]] * 3
    assert not service.app.state.services.policy.path.exists()


def test_a_csp_violation_is_reported_to_the_test(browser, service):
    """The page fixture fails a test on any violation: check that one is seen at all."""
    context = browser.new_context()
    _errors, violations = watch_page(context)
    try:
        page = context.new_page()
        page.goto(f"{service.url}/")
        ran = page.evaluate(
            """() => new Promise((done) => {
                document.addEventListener("securitypolicyviolation", () => done(window.ran === 1));
                const script = document.createElement("script");
                script.textContent = "window.ran = 1";
                document.body.append(script);
            })"""
        )
        assert ran is False
        expect_violation = [v for v in violations if v.startswith("script-src")]
        assert expect_violation, violations
    finally:
        context.close()


def test_the_console_frames_nothing_not_even_itself(browser, service):
    """frame-src/child-src 'none': a frame the Console's own page makes stays empty."""
    context = browser.new_context()
    _errors, violations = watch_page(context)
    try:
        page = context.new_page()
        page.goto(f"{service.url}/")
        blocked = page.evaluate(
            """() => new Promise((done) => {
                document.addEventListener("securitypolicyviolation",
                  (event) => done(event.effectiveDirective));
                const frame = document.createElement("iframe");
                frame.src = "/";
                document.body.append(frame);
            })"""
        )
        assert blocked in ("frame-src", "child-src")
        assert not page.frames[1].url.startswith(service.url)  # an error page, not the Console
        assert any(v.startswith("frame-src") for v in violations), violations
    finally:
        context.close()


@pytest.mark.parametrize(
    ("hostname", "port", "suggested"),
    [
        ("127.0.0.1", "8092", "http://sovereign.localhost:8092/"),
        ("127.0.0.2", "8092", "http://sovereign.localhost:8092/"),
        ("localhost", "8092", "http://sovereign.localhost:8092/"),
        ("[::1]", "8092", "http://sovereign.localhost:8092/"),
        ("localhost", "", "http://sovereign.localhost/"),
        ("192.168.1.20", "8092", None),
        ("[fd00::20]", "8092", None),
    ],
)
def test_the_page_warns_at_every_address_other_services_share(js, hostname, port, suggested):
    warning = js("host.js", "sharedAddressWarning", hostname, port)
    assert warning["url"] == suggested
    assert hostname in warning["text"] and "sign-in cookie" in warning["text"]
    if suggested is None:
        assert "--allowed-host" in warning["text"]


@pytest.mark.parametrize("hostname", ["sovereign.localhost", "sovereign.lan", "pi.home.arpa"])
def test_the_page_is_quiet_at_a_name_of_its_own(js, hostname):
    assert js("host.js", "sharedAddressWarning", hostname, "8092") is None
