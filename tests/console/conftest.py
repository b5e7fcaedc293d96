"""Fixtures for the Console's tests: Debian's chromium driven by Playwright.

The browser is the system's ``/usr/bin/chromium`` (installed by ``scripts/test``),
started with flags that keep it off the network; nothing here downloads a
browser. Without chromium the browser tests are skipped on a developer's machine
and fail under CI, where ``scripts/test`` must have installed it.
"""

from __future__ import annotations

import mimetypes
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CONSOLE_DIR = REPO / "src" / "sovereign" / "console"
ARTIFACTS = REPO / "test-artifacts" / "console"
CHROMIUM = Path("/usr/bin/chromium")
REBOUND_HOST = "rebound.test"
"""A name chromium resolves to 127.0.0.1, as a DNS-rebinding page's name would."""
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    f"--host-resolver-rules=MAP {REBOUND_HOST} 127.0.0.1",
]
MODULE_ORIGIN = "http://127.0.0.1:9"
"""Pages for unit tests are answered by a route handler; nothing listens here."""


@pytest.fixture(scope="package")
def browser() -> Iterator[object]:
    """One headless chromium for the Console's tests.

    Package-scoped, not session-scoped: Playwright's sync API keeps an event loop
    running in this thread until it stops, which would break every asyncio test
    collected after this package.
    """
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing; ./scripts/test installs Debian's chromium"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def module_page(browser) -> Iterator[object]:
    """A page whose origin serves the Console's files from the source tree (no server)."""
    context = browser.new_context()
    page = context.new_page()

    def serve(route) -> None:
        name = route.request.url.removeprefix(MODULE_ORIGIN + "/").split("?")[0] or "blank"
        if name == "blank":
            route.fulfill(status=200, content_type="text/html", body="<!doctype html><p>tests")
            return
        path = (CONSOLE_DIR / name).resolve()
        if CONSOLE_DIR.resolve() not in path.parents or not path.is_file():
            route.fulfill(status=404, body="not found")
            return
        kind = "text/javascript" if path.suffix == ".js" else mimetypes.guess_type(path.name)[0]
        route.fulfill(status=200, content_type=kind or "text/plain", body=path.read_text())

    page.route(f"{MODULE_ORIGIN}/**", serve)
    page.goto(f"{MODULE_ORIGIN}/blank")
    yield page
    context.close()


@pytest.fixture(scope="module")
def js(module_page):
    """``js("present.js", "hostOf", url)`` runs an exported function in the page."""

    def call(module: str, function: str, *args):
        return module_page.evaluate(
            "async ([m, f, args]) => (await import(m))[f](...args)",
            [f"{MODULE_ORIGIN}/{module}", function, list(args)],
        )

    return call


@pytest.fixture
def service(tmp_path) -> Iterator[object]:
    """The real service app on 127.0.0.1, fresh data directory, not yet set up."""
    from .live_service import serve

    with serve(tmp_path / "data") as live:
        yield live


REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.__reportCspViolation(
    `${event.effectiveDirective} blocked ${event.blockedURI || "inline"} ` +
    `at ${event.sourceFile || event.documentURI}:${event.lineNumber}`);
});
"""
"""Installed in every page before its own scripts run: each Content-Security-Policy
violation is reported to the test, which fails on any."""


def watch_page(context) -> tuple[list[str], list[str]]:
    """Collect uncaught errors and CSP violations of every page of ``context``."""
    errors: list[str] = []
    violations: list[str] = []

    def report(violation: str) -> None:
        violations.append(violation)

    def on_error(error) -> None:
        errors.append(str(error))

    context.expose_function("__reportCspViolation", report)
    context.add_init_script(REPORT_CSP_VIOLATIONS)
    context.on("page", lambda page: page.on("pageerror", on_error))
    return errors, violations


@pytest.fixture
def page(browser, request) -> Iterator[object]:
    """A fresh browser context and page (phone-sized pages are made by the test).

    A screenshot of the page as the test left it goes to test-artifacts/console/.
    An uncaught error or a Content-Security-Policy violation fails the test.
    """
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    context.set_default_timeout(10_000)
    errors, violations = watch_page(context)
    page = context.new_page()
    yield page
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    finally:
        context.close()
    assert errors == [], f"uncaught errors in the page: {errors}"
    assert violations == [], f"Content-Security-Policy violations: {violations}"
