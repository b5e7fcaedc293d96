"""/api/docs in a real Chromium: it works, and the browser asks no host but the service."""

from __future__ import annotations

from urllib.parse import urlsplit

from playwright.sync_api import expect

from .conftest import watch_page


def test_the_api_docs_render_and_every_request_stays_on_the_service(browser, service):
    context = browser.new_context()
    errors, violations = watch_page(context)
    page = context.new_page()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    try:
        page.goto(f"{service.url}/api/docs")
        expect(page.locator(".swagger-ui .info .title")).to_contain_text("Sovereign")
        expect(page.get_by_text("/api/v1/conversation/message").first).to_be_visible()
    finally:
        context.close()
    origin = urlsplit(service.url).netloc
    assert errors == [] and violations == [], (errors, violations)  # the CSP holds here too
    assert requested, "the page made no request at all"
    assert {urlsplit(url).netloc for url in requested if not url.startswith("data:")} == {origin}
