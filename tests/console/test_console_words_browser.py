"""The Console's own words beyond its navigation, in real chromium: the Settings sections,
Activity's table and the Console's error sentences follow the household's language; sign-in
and first-run setup, before any session, follow the browser's (Accept-Language) and never
the household's."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from playwright.sync_api import expect

from sovereign.conversation.voice.activity import say_activity
from sovereign.conversation.voice.catalogs import Voice

from .conftest import MODULE_ORIGIN, watch_page
from .console_steps import first_run, send

SELECT = "#household-language"
SAVE = "#household-language-save"


def choose_language(page, language: str) -> None:
    page.locator("#nav-settings").click()
    expect(page.locator("#settings-view")).to_be_visible()
    page.locator(SELECT).select_option(language)
    page.locator(SAVE).click()
    expect(page.locator("#nav-settings")).to_have_attribute("lang", language)


@contextmanager
def browser_speaking(browser, accept_language: str) -> Iterator[object]:
    """A page in a browser that asks for ``accept_language`` (its own context: no session)."""
    context = browser.new_context(extra_http_headers={"Accept-Language": accept_language})
    context.set_default_timeout(10_000)
    errors, violations = watch_page(context)
    try:
        yield context.new_page()
    finally:
        context.close()
    assert errors == [] and violations == [], (errors, violations)


def test_the_settings_sections_are_said_in_german_after_the_household_chose_german(
    page, service
):
    first_run(page, service)
    expect(page.locator("#site-list-title")).to_have_text("Sites the assistant may read")
    choose_language(page, "de")
    expect(page.locator("#household-settings-status")).to_have_text(
        "Gespeichert: Die Konsole erscheint auf Deutsch, und eine Frage, die zu kurz ist, um "
        "es zu erkennen, wird in dieser Sprache beantwortet."
    )
    expect(page.locator("#household-settings-title")).to_have_text(
        "Sprache der Konsole und der Antworten"
    )
    expect(page.locator("#site-list-title")).to_have_text("Seiten, die der Assistent lesen darf")
    expect(page.locator("#site-list-title")).to_have_attribute("lang", "de")
    expect(page.get_by_label("Nur die erlaubten Seiten")).to_be_visible()
    expect(page.get_by_role("button", name="Zu den gesperrten Seiten hinzufügen")).to_be_visible()
    expect(page.locator("#site-list-allow li.empty")).to_have_text("Keine Seiten.")
    expect(page.locator("#search-settings-title")).to_have_text("Suchsprache und sichere Suche")
    safesearch = page.get_by_label("Sichere Suche", exact=True)
    expect(safesearch.locator("option")).to_have_text(["aus", "moderat", "streng"])
    expect(page.get_by_label("Sprache", exact=True).locator("option[value=de]")).to_have_text(
        "Deutsch (de)"
    )  # the search languages are named in the household's language too
    page.get_by_role("button", name="Speichern", exact=True).click()
    expect(page.locator("#search-settings-status")).to_have_text(
        "Gespeichert. Sprache: jede Sprache (der Suchdienst wählt); sichere Suche: moderat."
    )
    expect(page.locator("#private-words-list li.empty")).to_have_text("Noch keine privaten Wörter.")

    page.get_by_label("Seite sperren").fill("tracker.example")
    page.locator("#site-block-add").click()
    expect(page.get_by_role("button", name="tracker.example entfernen")).to_have_text("Entfernen")

    page.locator("#nav-chat").click()  # the composer's notes
    expect(page.locator("#web-search-help")).to_contain_text("Nichts verlässt dieses Gerät")
    expect(page.locator("#composer-note")).to_have_text(
        "Eingabe sendet; Umschalt+Eingabe beginnt eine neue Zeile."
    )
    composer = page.locator("#composer-input")
    expect(composer).to_have_attribute("placeholder", "Fragen Sie etwas …")
    composer.fill("x" * 8002)
    expect(page.locator("#composer-count")).to_have_text("8.002 von 8.000 Zeichen")
    expect(page.locator("#composer-error")).to_have_text(
        "Zu lang zum Senden: Der Assistent liest höchstens 8.000 Zeichen auf einmal. Kürzen "
        "Sie um 2 Zeichen; nichts wurde abgeschnitten."
    )
    composer.fill("read https://a.example/my page.html")
    composer.press("Enter")
    expect(page.locator("#composer-error")).to_contain_text(
        "Mit %20 für jedes Leerzeichen lautet sie https://a.example/my%20page.html."
    )
    page.get_by_role("button", name="Stattdessen %20 verwenden").click()
    expect(composer).to_have_value("read https://a.example/my%20page.html")


def test_activity_and_an_error_are_said_in_german_after_the_household_chose_german(
    page, service
):
    first_run(page, service)
    choose_language(page, "de")
    page.locator("#nav-activity").click()
    expect(page.locator("#activity-table-wrap")).to_contain_text(
        "In diesem Zeitraum wurde keine Fähigkeit genutzt."
    )

    page.route("**/api/v1/audit/summary*", lambda route: route.fulfill(status=500, body=""))
    page.locator("#activity-days").select_option("30")
    expect(page.locator("#activity-error")).to_have_text(
        "Die Aktivität konnte nicht geladen werden: Der Dienst hatte ein Problem. Versuchen Sie "
        "es gleich noch einmal."
    )
    page.unroute("**/api/v1/audit/summary*")

    page.route("**/api/v1/conversation/policy", lambda route: route.abort())
    page.locator("#nav-chat").click()
    page.get_by_role("switch", name="Websuche").click()
    expect(page.locator("#web-search-error")).to_have_text(
        "Die Websuche konnte nicht eingeschaltet werden; sie ist weiterhin aus. Das Gerät ist "
        "nicht erreichbar. Prüfen Sie die Verbindung und versuchen Sie es erneut."
    )


def test_activity_s_table_and_repairs_are_said_in_the_household_s_language(page, service):
    first_run(page, service)
    choose_language(page, "it")
    summary = {
        "days": 7, "since": "2026-12-01T10:00:00Z", "totals": {"proposed": 2, "failed": 2},
        "capabilities": {"web.search": {"proposed": 2, "failed": 2}},
        "repairs": [{"capability": "web.search", "reason": "searxng: timeout", "count": 2,
                     "repair": "start SearXNG"}],
    }  # fmt: skip
    summary["said"] = say_activity(summary, Voice("it"))
    page.route("**/api/v1/audit/summary*", lambda route: route.fulfill(json=summary))
    page.locator("#nav-activity").click()
    expect(page.locator(".repairs h3")).to_have_text("Per il proprietario dell\u2019apparecchio")
    expect(page.locator(".repairs li")).to_have_text(
        "Ricerca sul web: 2 tentativi non riusciti. Il servizio di ricerca dell\u2019apparecchio "
        "(SearXNG) non ha risposto in tempo. Controlla che sia in funzione e verifica la "
        "connessione a internet dell\u2019apparecchio (sovereign doctor controlla entrambe le "
        "cose)."
    )
    expect(page.locator(".repairs li")).to_have_attribute("lang", "it")
    page.get_by_text("Conteggi per funzione", exact=True).click()
    head = page.locator(".activity-table thead th")
    expect(head.first).to_have_text("Funzione")
    expect(head.nth(1)).to_have_text("Proposte dall\u2019assistente")
    expect(page.locator(".activity-table tfoot th")).to_have_text("Totale")
    expect(page.locator(".activity-table caption")).to_contain_text("Dal ")


def test_sign_in_is_said_in_the_browser_s_language_never_the_household_s(
    page, browser, service
):
    first_run(page, service)
    choose_language(page, "de")  # the household's setting, which a stranger must not learn

    with browser_speaking(browser, "fr-CH,fr;q=0.9") as french:
        french.goto(service.url)
        expect(french.locator("#signin-title")).to_have_text("Connexion")
        expect(french.locator("#signin-title")).to_have_attribute("lang", "fr")
        french.get_by_role("button", name="Se connecter").click()
        expect(french.locator("#signin-error")).to_have_text("Saisissez le mot de passe du foyer.")
        french.get_by_label("Mot de passe du foyer", exact=True).fill("not the password")
        french.get_by_role("button", name="Se connecter").click()
        expect(french.locator("#signin-error")).to_have_text(
            "Ce mot de passe n\u2019est pas le bon ; encore 4 essais erronés avant que la "
            "connexion soit suspendue."
        )

    with browser_speaking(browser, "ja") as japanese:
        japanese.goto(service.url)
        expect(japanese.locator("#signin-title")).to_have_text("Sign in")
        expect(japanese.get_by_label("Household password", exact=True)).to_be_visible()
        expect(japanese.get_by_role("button", name="Sign in")).to_be_visible()


def test_first_run_setup_is_said_in_the_browser_s_language(browser, service):
    with browser_speaking(browser, "es-ES,es;q=0.9,en;q=0.5") as spanish:
        spanish.goto(service.url)  # without the first-run link
        expect(spanish.locator("#setup-title")).to_have_text("Elige la contraseña del hogar")
        expect(spanish.locator("#setup-missing-token")).to_contain_text("sovereign serve")
        expect(spanish.locator("#setup-missing-token")).to_contain_text("Para elegir")
        spanish.goto(service.setup_link)
        spanish.reload()
        spanish.get_by_label("Contraseña nueva").fill("short")
        spanish.get_by_role("button", name="Guardar contraseña y entrar").click()
        expect(spanish.locator("#setup-error")).to_have_text(
            "La contraseña necesita al menos 8 caracteres."
        )
        blank = " " * 9  # long enough for the page's own check: the service refuses it
        spanish.get_by_label("Contraseña nueva").fill(blank)
        spanish.get_by_label("Repite la contraseña").fill(blank)
        spanish.get_by_role("button", name="Guardar contraseña y entrar").click()
        expect(spanish.locator("#setup-error")).to_have_text(
            "La contraseña necesita al menos 8 caracteres."
        )
        expect(spanish.locator("#setup-view")).to_be_visible()


def test_the_first_line_and_the_address_warning_are_said_in_the_browser_s_language(
    browser, service
):
    port = service.url.rsplit(":", 1)[1]
    with browser_speaking(browser, "de-CH,de;q=0.9,en;q=0.5") as german:
        german.goto(f"http://127.0.0.1:{port}/")
        notice = german.locator("#host-notice")
        expect(notice).to_contain_text(
            "Sie haben die Konsole unter 127.0.0.1 geöffnet, einer Adresse, die sich andere "
            "Dienste auf diesem Gerät teilen"
        )
        expect(notice).to_contain_text("Öffnen Sie sie stattdessen unter ihrer eigenen Adresse:")
        expect(notice).to_have_attribute("lang", "de")
        expect(notice.get_by_role("link")).to_have_attribute("href", f"{service.url}/")
        expect(german.locator("#setup-title")).to_be_visible()
        loading = german.locator("#loading")  # hidden once the setup page shows
        expect(loading).to_have_text("Verbindung zum Gerät wird hergestellt …")
        expect(loading).to_have_attribute("lang", "de")


def test_the_run_time_english_the_page_holds_is_the_english_the_service_says(module_page):
    from sovereign.service.console_words import RUN_TIME_WORDS

    page_english = module_page.evaluate(
        "async (m) => (await import(m)).RUN_TIME_WORDS", f"{MODULE_ORIGIN}/console-words.js"
    )
    assert page_english == {
        key: {"one": text[0], "other": text[1]} if isinstance(text, tuple) else text
        for key, text in RUN_TIME_WORDS.items()
    }


SAY_WITH = """async ([m, key, runTime, language, values]) => {
  const words = await import(m);
  words.applyConsoleWords(document, {}, language, runTime);
  try {
    return words.say(key, values);
  } finally {
    words.applyConsoleWords(document, {}, "en");
  }
}"""


def say_with(module_page, key, run_time, language, values):
    """The Console's sentence ``key`` once ``run_time`` was said in ``language``."""
    url = f"{MODULE_ORIGIN}/console-words.js"
    return module_page.evaluate(SAY_WITH, [url, key, run_time, language, values])


def test_a_sentence_is_filled_and_counted_in_the_language_it_was_said_in(module_page):
    french = {"activity_repair": {"one": "{capability} : {n} échec", "other": "{capability} : "
              "{n} échecs"}}  # fmt: skip
    values = {"capability": "web.search", "n": 0}
    assert say_with(module_page, "activity_repair", french, "fr", values) == "web.search : 0 échec"
    values["n"] = 1200  # French counts zero as one; numbers are written the French way
    assert say_with(module_page, "activity_repair", french, "fr", values) == (
        "web.search : 1\u202f200 échecs"
    )
    english = say_with(module_page, "composer_count", {}, "en", {"count": 7950, "limit": 8000})
    assert english == "7,950 of 8,000 characters"
    missing = say_with(module_page, "signed_out", {"signed_out": ""}, "de", {})
    assert missing == "You are signed out."  # a word not said is the English


def test_the_offer_after_a_redirect_is_said_in_the_household_s_language(page, service):
    from .test_console_failures import answer_with, result

    first_run(page, service)
    choose_language(page, "nl")
    redirected = {
        "capability": "web.fetch", "title": "http://example.org/old",
        "url": "http://example.org/old", "snippet": "", "retrieved_at": "2026-01-01T00:00:00Z",
        "redirected": True, "final_url": "https://www.example.org/new",
    }  # fmt: skip
    answer_with(page, result("Die pagina is verhuisd.", citations=[redirected]))
    page.locator("#nav-chat").click()
    send(page, "lees http://example.org/old")
    expect(page.locator(".redirect p")).to_have_text(
        "Deze pagina is verhuisd naar https://www.example.org/new. Van het nieuwe adres is "
        "niets gelezen."
    )
    expect(page.locator(".redirect-target")).to_have_text("https://www.example.org/new")
    expect(page.locator(".fetch-redirect")).to_have_text("Vraag om het nieuwe adres op te halen")


def test_a_refused_site_and_search_setting_are_said_in_the_household_s_language(page, service):
    first_run(page, service)
    choose_language(page, "nl")
    page.get_by_label("Site om te blokkeren").fill("*.co.uk")
    page.locator("#site-block-add").click()
    refused = page.locator("#site-list-error")
    expect(refused).to_have_text(
        "Geblokkeerde sites: *.co.uk zou elke site omvatten die onder het publieke "
        "achtervoegsel co.uk is geregistreerd; noem een site daaronder."
    )
    expect(refused).to_have_attribute("lang", "nl")
    page.get_by_label("Site om te blokkeren").fill("192.168.1.1")
    page.locator("#site-block-add").click()
    expect(refused).to_contain_text("web.fetch leest 192.168.1.1 nooit, wat de lijst ook zegt")
    # a hostile or outdated page offers a safe search level the service does not know
    level = page.get_by_label("Veilig zoeken", exact=True)
    level.evaluate("select => { select.options[0].value = '7'; select.value = '7'; }")
    page.locator("#search-settings-save").click()
    search = page.locator("#search-settings-error")
    expect(search).to_have_text("Veilig zoeken: moet 0 (uit), 1 (gemiddeld) of 2 (streng) zijn.")
    expect(search).to_have_attribute("lang", "nl")
