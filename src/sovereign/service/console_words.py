"""The Console's own words (its chrome) in the household's language.

Beside what the product says about a turn, the Console shows words of its own: the
navigation, the message box, the headings and fixed texts of Settings and Activity. The
page holds them in English (``data-word`` on each element in ``console/index.html``);
the service says them from the ``console`` catalog (``service/locale/<language>/
LC_MESSAGES/console.po``; context: the key) in the household's language, and the Console
puts each one it is given in place of its English (``console/console-words.js``). Only
the signed-in pages are said: sign-in and first-run setup come before a session, when
the household's setting is not to be read.
"""

from __future__ import annotations

from pathlib import Path

from sovereign.conversation.voice.catalogs import Voice

CATALOG = Path(__file__).resolve().parent / "locale"
"""Where the ``console`` catalogs are."""
DOMAIN = "console"

CONSOLE_WORDS = {
    "skip_to_message": "Skip to the message box",
    "nav_main": "Main",
    "nav_chat": "Chat",
    "nav_activity": "Activity",
    "nav_settings": "Settings",
    "nav_sign_out": "Sign out",
    "web_search": "Web search",
    "your_message": "Your message",
    "send": "Send",
    "settings_title": "Settings",
    "private_words_title": "Private words",
    "private_words_intro": "Names, your street, the children's school: before a search or a "
    "page address leaves this device, the request card points out these words, and also the "
    "addresses, e-mail addresses, phone numbers and device names it recognises. Nothing is "
    "blocked; you decide on the card.",
    "private_words_add_label": "Add a word or phrase",
    "private_words_add": "Add",
    "activity_title": "Activity",
    "activity_intro": "What the assistant's capabilities did, counted from this appliance's "
    "audit log. The log never holds your questions, queries or addresses.",
    "activity_period": "Period",
    "activity_last_day": "Last day",
    "activity_last_7_days": "Last 7 days",
    "activity_last_30_days": "Last 30 days",
}
"""Each word of the Console's chrome by its key (the ``data-word`` of its element), in
English as the page holds it (a test holds the two equal)."""


def console_words(language: str) -> dict[str, str]:
    """:data:`CONSOLE_WORDS` said in ``language`` (English for a language without a
    catalog, and for a word a catalog lacks)."""
    voice = Voice(language, CATALOG, DOMAIN)
    return {key: voice.say(key, text) for key, text in CONSOLE_WORDS.items()}
