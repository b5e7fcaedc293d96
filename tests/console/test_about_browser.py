"""The Console's About view in real chromium: reachable from the navigation, it names the
product, its version and licence, says what leaves this device and when, and where the data
is; in the household's language like the rest of the Console, under the same CSP."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from sovereign import __version__

from .console_steps import first_run


def open_about(page) -> object:
    page.locator("#nav-about").click()
    view = page.locator("#about-view")
    expect(view).to_be_visible()
    return view


def test_the_about_view_names_the_version_licence_what_leaves_and_the_data_folder(
    page, service
):
    first_run(page, service)
    nav = page.locator("#main-nav")
    expect(nav.get_by_role("button")).to_have_text(
        ["Chat", "Activity", "Settings", "About", "Sign out"]
    )
    view = open_about(page)
    expect(page.locator("#nav-about")).to_have_attribute("aria-current", "page")
    expect(page.locator("#chat-view")).to_be_hidden()
    expect(view.get_by_role("heading", level=2)).to_have_text("About Sovereign")
    expect(page.locator("#about-version")).to_have_text(__version__)
    expect(page.locator("#about-licence")).to_have_text("Apache-2.0")
    expect(page.locator("#about-model")).to_have_text(
        "Your questions and the assistant's answers stay on this device: the language model "
        "runs here."
    )
    expect(view).to_contain_text("nothing leaves until you approve that one request")
    expect(page.locator("#about-data code")).to_have_text(str(service.data_dir))
    expect(view).to_contain_text("Conversations are not saved on this device")

    page.locator("#nav-chat").click()
    expect(view).to_be_hidden()
    expect(page.locator("#nav-about")).to_have_attribute("aria-current", "false")


def test_the_about_view_is_said_in_the_household_s_language(page, service):
    first_run(page, service)
    page.locator("#nav-settings").click()
    page.locator("#household-language").select_option("de")
    page.locator("#household-language-save").click()
    expect(page.locator("#nav-about")).to_have_text("Über")
    view = open_about(page)
    expect(view.get_by_role("heading", level=2)).to_have_text("Über Sovereign")
    expect(view.get_by_role("heading", level=2)).to_have_attribute("lang", "de")
    model = page.locator("#about-model")
    expect(model).to_contain_text("bleiben auf diesem Gerät")
    expect(model).to_have_attribute("lang", "de")
    expect(page.locator("#about-data")).to_contain_text(str(service.data_dir))
    expect(page.locator("#about-data")).to_have_attribute("lang", "de")
    expect(page.locator("#about-version")).to_have_text(__version__)  # a figure, not a word


def test_an_about_view_the_service_cannot_answer_says_so(page, service):
    first_run(page, service)
    page.route(
        "**/api/v1/about",
        lambda route: route.fulfill(
            status=503,
            content_type="application/json",
            body='{"error": {"code": "X", "message": "The service is busy."}}',
        ),
    )
    open_about(page)
    expect(page.locator("#about-error")).to_have_text(
        "The About page could not be loaded: The service is busy."
    )


def test_a_model_server_elsewhere_is_said_to_be_where_the_questions_go(page, service):
    first_run(page, service)
    said = {
        "product": "Sovereign", "version": "9.9.9", "licence": "Apache-2.0",
        "model": {"on_device": False, "host": "<b>gpu-box.lan</b>"},
        "data_dir": "/var/lib/sovereign",
    }  # fmt: skip
    page.route(
        "**/api/v1/about",
        lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps(said)
        ),
    )
    open_about(page)
    model = page.locator("#about-model")
    expect(model).to_have_text(
        "Your questions and the conversation so far go to the model server at "
        "<b>gpu-box.lan</b>, which this assistant was set up to use: they leave this device "
        "to be answered."
    )
    expect(model.locator("code")).to_have_text("<b>gpu-box.lan</b>")  # text, never markup
    expect(model.locator("b")).to_have_count(0)
    expect(page.locator("#about-data code")).to_have_text("/var/lib/sovereign")
