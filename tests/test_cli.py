"""The ``sovereign`` console script."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from sovereign import __version__
from sovereign.cli import main


def test_version_prints_the_package_version():
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert __version__ in result.output


def test_help_lists_every_command_with_a_whole_sentence():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    commands = result.output.split("Commands:")[1].strip().splitlines()
    names = [line.split()[0] for line in commands]
    assert names == [
        "audit", "chat", "doctor", "household-settings", "model", "passwd", "policy",
        "private-words", "search-settings", "serve", "sites",
    ]  # fmt: skip
    assert not any(line.rstrip().endswith("...") for line in commands), commands


def test_the_module_runs_as_a_program():
    completed = subprocess.run(
        [sys.executable, "-m", "sovereign.cli", "--version"],
        capture_output=True, text=True, check=True,
    )
    assert __version__ in completed.stdout
