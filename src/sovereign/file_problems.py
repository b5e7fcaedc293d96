"""What can be wrong with one of the appliance's small settings files, said one way.

A leaf module (it imports nothing of ours, like :mod:`sovereign.strict_json`), so the
service's settings store and the capabilities' readers of the household's service
files (``pihole.json``, ``home-assistant.json``) name the same problem with the same
sentence, and a command can say it in its own language: a :class:`FileProblem` is its
English sentence, carrying the key and values it was made from.
"""

from __future__ import annotations

PROBLEMS = {
    "unreadable": "{path} cannot be read ({reason}).",
    "not_regular": "{path} is not a regular file.",
    "too_large": "{path} is larger than {limit} bytes.",
    "secret_open": "{path} holds a secret but other users can access it (mode {mode}); run: "
    "chmod 600 {path}",
    "others_read": "{path} can be read by other users (mode {mode}); run: chmod 600 {path}",
    "json_bom": "{path} starts with a byte-order mark.",
    "json_not_utf8": "{path} is not UTF-8 text.",
    "json_invalid": "{path} is not valid JSON.",
    "json_repeated_key": "{path} repeats the key {key}.",
    "json_constant": "{path} holds {name}, which is not JSON.",
    "not_object": "{path} must hold a JSON object.",
    "content": "{path}: {problem}",
}
"""The problems found in a settings file itself, whatever it holds, by key, in English
(the commands say each from their catalog, context ``settings:<key>``; an ``unreadable``
file's ``reason`` is the system's ``strerror``, said from its ``errno`` value). What is
wrong with a file's ``content`` is its reader's own sentence, a keyed refusal said by
the service's catalog."""


class FileProblem(str):
    """A problem found in a settings file: its English sentence (it is that ``str``, for
    the log, the Console and every reader), with the key of :data:`PROBLEMS` and the
    values it was made from."""

    key: str
    values: dict[str, object]

    def __new__(cls, key: str, /, **values: object) -> FileProblem:
        """The problem ``key`` filled with ``values``."""
        made = super().__new__(cls, PROBLEMS[key].format(**values))
        made.key, made.values = key, values
        return made
