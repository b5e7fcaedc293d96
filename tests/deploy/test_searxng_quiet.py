"""deploy/searxng/settings.yml: no dead key, and nothing that contacts anyone by itself.

``SEARXNG_KEYS`` lists the settings SearXNG reads, from ``searx/settings_defaults.py``
(``SCHEMA``) at the commit the fixtures were captured from (9fea41204, 2026-08-22),
for the sections this file uses. A key outside it is silently ignored by SearXNG: the
setting would look effective and be dead.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

SETTINGS = Path(__file__).resolve().parents[2] / "deploy" / "searxng" / "settings.yml"

SEARXNG_KEYS = {
    "use_default_settings", "plugins", "engines",
    "general.debug", "general.instance_name", "general.privacypolicy_url",
    "general.contact_url", "general.donation_url", "general.enable_metrics",
    "general.open_metrics",
    "search.safe_search", "search.autocomplete", "search.autocomplete_min",
    "search.favicon_resolver", "search.default_lang", "search.languages",
    "search.ban_time_on_fail", "search.max_ban_time_on_fail", "search.formats", "search.max_page",
    "server.port", "server.bind_address", "server.limiter", "server.public_instance",
    "server.secret_key", "server.base_url", "server.image_proxy", "server.http_protocol_version",
    "server.method", "server.default_http_headers",
    "valkey.url",
    "ui.static_path", "ui.templates_path", "ui.default_theme", "ui.default_locale",
    "ui.center_alignment", "ui.results_on_new_tab", "ui.query_in_title", "ui.cache_url",
    "ui.search_on_category_select", "ui.hotkeys", "ui.url_formatting",
    "outgoing.useragent_suffix", "outgoing.request_timeout", "outgoing.enable_http2",
    "outgoing.verify", "outgoing.max_request_timeout", "outgoing.pool_connections",
    "outgoing.pool_maxsize", "outgoing.keepalive_expiry", "outgoing.max_redirects",
    "outgoing.retries", "outgoing.proxies", "outgoing.source_ips", "outgoing.using_tor_proxy",
    "outgoing.extra_proxy_timeout",
}  # fmt: skip

# Engines whose init() makes a request when SearXNG starts (searx/engines/<module>.py);
# only "inactive: true" skips init(), "disabled: true" does not.
ENGINES_CONTACTING_AT_START = {"wikidata", "radio browser"}


@pytest.fixture(scope="module")
def settings():
    return yaml.safe_load(SETTINGS.read_text())


def leaf_keys(mapping, prefix=""):
    for key, value in mapping.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict) and dotted not in {"plugins"}:
            yield from leaf_keys(value, dotted + ".")
        else:
            yield dotted


def test_every_key_is_one_searxng_reads(settings):
    assert [key for key in leaf_keys(settings) if key not in SEARXNG_KEYS] == []


def test_no_checker_block_remains(settings):
    assert "checker" not in settings  # SearXNG removed its checker; the block was dead


def test_no_plugin_is_loaded_so_none_can_contact_anyone(settings):
    # An empty mapping replaces SearXNG's default plugin list (settings_loader.py:
    # "if plugins is not None: default_settings['plugins'] = plugins").
    assert settings["plugins"] == {}


def test_engines_that_contact_their_site_at_start_up_are_inactive(settings):
    inactive = {e["name"] for e in settings["engines"] if e.get("inactive") is True}
    assert inactive >= ENGINES_CONTACTING_AT_START
    assert all(set(e) <= {"name", "inactive"} for e in settings["engines"])


def test_settings_that_would_contact_third_parties_are_off(settings):
    assert settings["search"]["autocomplete"] == ""
    assert settings["search"]["favicon_resolver"] == ""
    assert settings["server"]["image_proxy"] is False
    assert settings["server"]["limiter"] is False
    assert settings["valkey"]["url"] is False
    assert settings["general"]["enable_metrics"] is False


def test_the_readme_lists_what_searxng_still_sends_and_why():
    readme = (SETTINGS.parent / "README.md").read_text()
    section = readme.split("## What SearXNG still sends without a search", 1)[1].split("\n## ")[0]
    for words in ("clearurls", "wikidata", "radio-browser", "autocomplete", "favicon",
                  "image_proxy", "checker", "sc", "vqd", "pull"):
        assert words in section.lower(), words
