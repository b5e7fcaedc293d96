"""What is said about web search and web fetch when they did not run (DESIGN §4).

Both sit behind the household's one web switch and share a catalog domain (``web``),
so a turn that withholds both offers one stand-in for them.
"""

from __future__ import annotations

from pathlib import Path

from sovereign.executor import Phrases

CATALOG = Path(__file__).resolve().parent / "locale"
DOMAIN = "web"
SWITCHED_OFF = "Web search is switched off, so I can't search the web or read web pages for you."
STANDS_FOR = "asks to search the web or read a web page, or asks for news, weather or prices"

SEARCH = Phrases(
    denied="You declined the web search, so I didn't look it up.",
    expired="The approval request for the web search expired before you answered, "
    "so I didn't look it up.",
    failed="I tried the web search, but it failed, so I have no results from it.",
    not_asked="You declined an earlier request, so I didn't ask you about the web search "
    "either.",
    switched_off=SWITCHED_OFF,
    stands_for=STANDS_FOR,
    ask="Before I go on, I need your approval to search the web.",
    catalog=CATALOG,
    domain=DOMAIN,
)
"""``web.search``'s sentences."""

FETCH = Phrases(
    denied="You declined reading that web page, so I didn't read it.",
    expired="The approval request for reading that web page expired before you answered, "
    "so I didn't read it.",
    failed="I tried to read that web page, but it failed, so I have nothing from it.",
    not_asked="You declined an earlier request, so I didn't ask you about reading that web "
    "page either.",
    switched_off=SWITCHED_OFF,
    stands_for=STANDS_FOR,
    ask="Before I go on, I need your approval to read this web page.",
    catalog=CATALOG,
    domain=DOMAIN,
)
"""``web.fetch``'s sentences."""
