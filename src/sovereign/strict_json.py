"""Reading the appliance's own small JSON files strictly: one meaning or none.

A leaf module (it imports nothing of ours, like :mod:`sovereign.paths`), so the
service's stores and the capabilities' settings files read the same way.

``json.loads`` accepts more than one file can mean: given bytes it skips a UTF-8
byte-order mark and reads UTF-16 and UTF-32; it lets a repeated key silently win
over the first (``{"web_search_enabled": false, "web_search_enabled": true}``);
it reads ``NaN`` and ``Infinity``. A file the service wrote has none of these, so
any of them means someone else wrote it, and it is treated as corrupt.
Files the household edits by hand (Pi-hole's, Home Assistant's) are held to the
same rule: a repeated key would otherwise mean whichever came last.
"""

from __future__ import annotations

import codecs
import json
from typing import Any

_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


class StrictJSONError(ValueError):
    """The bytes are not one unambiguous JSON document; the message says why.

    ``why`` names it (``bom``, ``not_utf8``, ``invalid``, ``repeated_key``,
    ``constant``) and ``values`` what the message names (``key``, ``name``), for a
    caller that says it in another language.
    """

    def __init__(self, message: str, why: str, /, **values: str) -> None:
        super().__init__(message)
        self.why = why
        self.values = values


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise StrictJSONError(f"repeats the key {key!r}", "repeated_key", key=repr(key))
        result[key] = value
    return result


def _constant(name: str) -> Any:
    raise StrictJSONError(f"holds {name}, which is not JSON", "constant", name=name)


def loads_strict(raw: bytes) -> Any:
    """Parse ``raw`` as UTF-8 JSON without a byte-order mark, repeated keys or NaN.

    Raises:
        StrictJSONError: with a phrase to follow the file's name, such as
            ``"repeats the key 'web_search_enabled'"``.
    """
    if raw.startswith(_BOMS):
        raise StrictJSONError("starts with a byte-order mark", "bom")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StrictJSONError("is not UTF-8 text", "not_utf8") from exc
    try:
        return json.loads(text, object_pairs_hook=_object, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise StrictJSONError("is not valid JSON", "invalid") from exc
