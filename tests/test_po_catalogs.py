"""Gettext catalogs read from .po files (sovereign.po_catalogs): a leaf every layer uses."""

import ast
import logging
from pathlib import Path

from sovereign import po_catalogs
from sovereign.po_catalogs import read_catalog

PO = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgctxt "greeting"
msgid "Hello"
msgstr "Hallo"
"""


def test_a_catalog_is_read_and_says_its_translations(tmp_path):
    path = tmp_path / "de" / "LC_MESSAGES" / "demo.po"
    path.parent.mkdir(parents=True)
    path.write_text(PO, encoding="utf-8")
    assert read_catalog(path, "de", "demo").pgettext("greeting", "Hello") == "Hallo"


def test_a_missing_or_corrupt_catalog_says_the_english_and_logs_the_corrupt_one(
    tmp_path, caplog
):
    assert read_catalog(tmp_path / "none.po", "de", "demo").pgettext("g", "Hello") == "Hello"
    corrupt = tmp_path / "corrupt.po"
    corrupt.write_bytes(b'msgid "a"\nmsgstr "\xff\xfe unterminated\nmsgctxt')
    with caplog.at_level(logging.ERROR):
        assert read_catalog(corrupt, "de", "demo").pgettext("g", "Hello") == "Hello"
    assert "cannot be read" in caplog.text


def test_it_imports_nothing_of_ours():
    tree = ast.parse(Path(po_catalogs.__file__).read_text(encoding="utf-8"))
    modules = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    modules += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert not [m for m in modules if m and m.startswith("sovereign")]


def test_translations_read_a_catalog_once_and_english_needs_none(tmp_path):
    path = tmp_path / "de" / "LC_MESSAGES" / "demo.po"
    path.parent.mkdir(parents=True)
    path.write_text(PO, encoding="utf-8")
    german = po_catalogs.translations(tmp_path, "demo", "de")
    assert german.pgettext("greeting", "Hello") == "Hallo"
    path.write_text(PO.replace("Hallo", "Servus"), encoding="utf-8")
    assert po_catalogs.translations(tmp_path, "demo", "de") is german
    (tmp_path / "en" / "LC_MESSAGES").mkdir(parents=True)
    (tmp_path / "en" / "LC_MESSAGES" / "demo.po").write_text(PO, encoding="utf-8")
    assert po_catalogs.translations(tmp_path, "demo", "en").pgettext("greeting", "Hello") == "Hello"
