"""Settings > Language of the Console and of answers in real chromium: the household chooses
the Console's language, also the one for questions too short to tell, each language named in
itself; the service keeps exactly what the page shows, the next short question is answered in
it, and refusals and a broken file are shown, never hidden."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from sovereign.service.household_settings import language_names

from .console_steps import first_run, send

LABEL = "Language of the Console, and of answers when a question is too short to tell"
SELECT = "#household-language"  # its label is said in the language chosen
SAVE = "#household-language-save"


def open_settings(page) -> None:
    page.locator("#nav-settings").click()  # named in the household's language
    expect(page.locator("#settings-view")).to_be_visible()


def stored(service) -> dict:
    return json.loads((service.data_dir / "household.json").read_text())


def test_the_household_chooses_a_language_and_the_next_short_question_is_answered_in_it(
    page, service
):
    first_run(page, service)
    open_settings(page)
    expect(page.get_by_label(LABEL)).to_have_value("en")
    language = page.locator(SELECT)
    expect(language.locator("option")).to_have_text(list(language_names().values()))
    expect(language.locator("option[value=de]")).to_have_attribute("lang", "de")
    language.select_option(label="Nederlands")
    page.locator(SAVE).click()
    expect(page.locator("#household-settings-status")).to_have_text(
        "Opgeslagen. Taal van de console, en van de antwoorden op vragen die te kort zijn om "
        "dat te zien: Nederlands."
    )
    assert stored(service) == {"language": "nl"}

    page.reload()  # what the page shows is what the service keeps
    expect(page.locator("#chat-view")).to_be_visible()
    open_settings(page)
    expect(page.locator(SELECT)).to_have_value("nl")

    page.locator("#nav-chat").click()
    send(page, "how hot")  # two words the language detector cannot place
    answer = page.locator(".message.assistant").last
    expect(answer.locator(".prose")).to_contain_text("geheugen is vrij, van")
    expect(answer.locator(".facts li").first).to_contain_text("Dit apparaat")
    expect(answer.locator(".facts h4")).to_have_text("Wat het apparaat meldde")
    expect(answer.locator(".facts")).to_have_attribute("aria-label", "Wat het apparaat meldde")
    expect(answer.locator(".prose")).not_to_contain_text("memory")


def test_a_language_the_service_refuses_is_shown_and_the_saved_one_stays(page, service):
    first_run(page, service)
    open_settings(page)
    language = page.locator(SELECT)
    language.select_option("it")
    page.locator(SAVE).click()
    expect(page.locator("#household-settings-status")).to_contain_text("Italiano")
    # a hostile or outdated page offers a language the assistant does not speak
    language.evaluate("select => { select.options[0].value = 'tlh'; select.value = 'tlh'; }")
    page.locator(SAVE).click()
    refused = page.locator("#household-settings-error")  # said in the household's Italian
    expect(refused).to_contain_text(
        "La lingua 'tlh' non è una di quelle in cui risponde l\u2019assistente; scegli en "
        "(English), de (Deutsch), fr (Français), es (Español), nl (Nederlands) o it (Italiano)."
    )
    expect(refused).to_have_attribute("lang", "it")
    expect(page.locator("#household-settings-status")).to_have_text("")
    assert stored(service) == {"language": "it"}


def test_a_broken_file_is_shown_with_its_problem_and_saving_repairs_it(page, service):
    first_run(page, service)
    (service.data_dir / "household.json").write_text('{"language": "klingon"}')
    open_settings(page)
    problem = page.locator("#household-settings-problem")
    expect(problem).to_be_visible()
    expect(problem).to_contain_text("'klingon' is not one the assistant answers in")
    expect(page.locator(SELECT)).to_have_value("en")  # what applies meanwhile
    page.locator(SELECT).select_option(label="Español")
    page.locator(SAVE).click()
    expect(problem).to_be_hidden()
    assert stored(service) == {"language": "es"}


def test_a_save_the_device_cannot_write_is_shown_as_not_saved(page, service):
    first_run(page, service)
    open_settings(page)
    (service.data_dir / "household.json").mkdir()  # no file can be written there
    page.locator(SELECT).select_option(label="Deutsch")
    page.locator(SAVE).click()
    expect(page.locator("#household-settings-error")).to_contain_text(
        "The setting could not be saved and the old one still applies"
    )
    expect(page.locator("#household-settings-status")).to_have_text("")


def test_the_console_s_own_words_follow_the_household_s_language(page, service):
    first_run(page, service)
    nav = page.locator("#main-nav")
    expect(nav.get_by_role("button")).to_have_text(
        ["Chat", "Activity", "Settings", "About", "Sign out"]
    )
    open_settings(page)
    page.locator(SELECT).select_option("de")
    page.locator(SAVE).click()
    expect(nav.get_by_role("button")).to_have_text(
        ["Unterhaltung", "Aktivität", "Einstellungen", "Über", "Abmelden"]
    )
    expect(page.locator("#nav-chat")).to_have_attribute("lang", "de")
    expect(page.get_by_role("navigation", name="Hauptmenü")).to_be_visible()
    expect(page.locator("#settings-title")).to_have_text("Einstellungen")
    expect(page.get_by_label("Ein Wort oder eine Wendung hinzufügen")).to_be_visible()
    page.get_by_role("button", name="Aktivität").click()
    expect(page.get_by_label("Zeitraum")).to_have_value("7")
    expect(page.locator("#activity-days option:checked")).to_have_text("Letzte 7 Tage")
    page.get_by_role("button", name="Unterhaltung").click()
    expect(page.get_by_role("button", name="Senden")).to_be_visible()
    expect(page.get_by_role("switch", name="Websuche")).to_be_visible()

    page.get_by_role("button", name="Einstellungen").click()  # and back to English
    page.locator(SELECT).select_option("en")
    page.locator(SAVE).click()
    expect(nav.get_by_role("button")).to_have_text(
        ["Chat", "Activity", "Settings", "About", "Sign out"]
    )
    expect(page.locator("#nav-chat")).to_have_attribute("lang", "en")


def test_the_english_the_service_says_is_the_english_the_page_holds(page, service):
    from sovereign.service.console_words import CONSOLE_WORDS

    first_run(page, service)
    words = page.evaluate(
        "async () => (await import('./console-words.js')).pageWords(document)"
    )
    assert words == CONSOLE_WORDS


def test_a_language_chosen_while_the_saved_one_is_read_again_is_kept(page, service):
    first_run(page, service)
    open_settings(page)
    expect(page.locator(SELECT)).to_have_value("en")
    held = []

    def hold_reads(route):
        if route.request.method == "GET":
            held.append(route)
        else:
            route.continue_()

    page.route("**/api/v1/settings/household", hold_reads)
    page.locator("#nav-chat").click()
    open_settings(page)  # opening Settings reads the saved setting again: held
    page.wait_for_timeout(300)
    assert held, "opening Settings did not read the setting again"
    page.locator(SELECT).select_option("de")  # chosen while the read is on its way
    with page.expect_response("**/api/v1/settings/household"):
        for route in held:
            route.continue_()
    page.unroute("**/api/v1/settings/household")
    expect(page.locator(SELECT)).to_have_value("de")
    page.locator(SAVE).click()
    expect(page.locator("#household-settings-status")).to_contain_text("Deutsch")
    assert stored(service)["language"] == "de"


def test_a_broken_settings_file_s_problem_is_shown_in_the_household_s_language(page, service):
    service.data_dir.mkdir(parents=True, exist_ok=True)
    (service.data_dir / "household.json").write_text('{"language": "fr"}')
    sites = service.data_dir / "capabilities" / "sites.json"
    sites.parent.mkdir(parents=True, exist_ok=True)
    sites.write_text('{"mode": "sometimes"}')
    first_run(page, service)
    open_settings(page)
    problem = page.locator("#site-list-problem")
    expect(problem).to_have_text(f"{sites} : mode doit valoir off, allow-only ou block.")
    expect(problem).to_have_attribute("lang", "fr")
