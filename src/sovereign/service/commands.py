"""The service's CLI commands: ``serve``, ``policy``, ``audit``, ``passwd`` (attached in cli.py)."""

from __future__ import annotations

import json
import os
import socket
import textwrap
from pathlib import Path
from typing import Any

import click

from sovereign.cli_words import CliWords, command_language
from sovereign.paths import ENV_DATA_DIR, data_dir

from .audit_summary import COUNTERS, MAX_DAYS, audit_path, summarize
from .hosts import parse_pin
from .household_settings import HouseholdSettingsStore
from .listeners import AddressTaken, bind_listeners, listen_addresses, resolved_loopback
from .owner import OwnerAccount, PasswordRejected
from .policy import PolicyStore
from .settings import (
    BACKENDS,
    DEFAULT_HOST,
    DEFAULT_PORT,
    TOOL_MODES,
    Settings,
    settings_from_environment,
)
from .settings_store import say_problem

DATA_DIR_OPTION = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help=f"Data directory (default: ${ENV_DATA_DIR} or the per-user data directory).",
)


JOURNAL = CliWords()
"""What ``serve`` says of its own, English whole (``Error:`` too): its output is the
service's journal, which the README quotes and other log lines share."""


def _data_dir(option: Path | None) -> Path:
    return option.expanduser() if option else data_dir()


def command_words(option: Path | None = None) -> CliWords:
    """What a command says, in the terminal's language; when its locale says nothing, in
    the household's (read from the data directory ``option`` names, or the default one)."""
    store = HouseholdSettingsStore(_data_dir(option))
    return CliWords(command_language(lambda: store.read(log=False).value.language))


def said_refusal(words: CliWords, refused: ValueError) -> str:
    """A refused setting (a site, a search language) in the command's language: the
    sentence the Console says for it (:func:`.console_words.say_refusal`, context
    ``refused_<key>``, addressed as formally as the commands are); a refusal without
    a key keeps its English sentence."""
    from .console_words import refusal_in

    return refusal_in(words.language, refused)


def said_password_rule(words: CliWords, rejected: PasswordRejected) -> str:
    """A password rule the new password breaks, in the command's language: the sentence
    the Console says for it (the ``console`` catalog, context: the rule's key)."""
    from sovereign.conversation.voice.catalogs import Voice

    from .console_words import CATALOG, DOMAIN

    voice = Voice(words.language, CATALOG, DOMAIN)
    return voice.say(rejected.key, rejected.english, count=words.number(rejected.count))


def not_written(words: CliWords, path: Path, error: OSError) -> click.ClickException:
    """The error for a settings file the data directory refused to write."""
    return words.error(words.say("not_written", path=path, reason=words.os_reason(error)))


@click.command(short_help="Run the Conversation Service.")
@click.option(
    "--host",
    envvar="SOVEREIGN_HOST",
    default=DEFAULT_HOST,
    show_default=True,
    help="Address to listen on (default: $SOVEREIGN_HOST or this device only).",
)
@click.option(
    "--port",
    envvar="SOVEREIGN_PORT",
    default=DEFAULT_PORT,
    show_default=True,
    type=click.IntRange(1, 65535),
    help="Port to listen on (default: $SOVEREIGN_PORT or 8092).",
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME[:PORT]",
    help="A further name the service answers to, e.g. the appliance's LAN name "
    "(repeatable; default: $SOVEREIGN_ALLOWED_HOSTS). sovereign.localhost, localhost "
    "and 127.0.0.1 always work.",
)
@click.option("--backend", type=click.Choice(BACKENDS), default=None, help="Model backend.")
@click.option("--openai-base-url", default=None, help="OpenAI-compatible server (openai backend).")
@click.option("--openai-model", default=None, help="Model name for the openai backend.")
@click.option(
    "--tool-mode",
    type=click.Choice(TOOL_MODES),
    default=None,
    help="How the model chooses tools: a JSON-schema-constrained decision (schema), the "
    "model's own tool calls (native), or auto (default: schema for the embedded model, "
    "what the server supports for openai; sovereign doctor says which).",
)
@click.option(
    "--model-path",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="A GGUF file for the embedded backend instead of the verified default model.",
)
@click.option("--searxng-url", default=None, help="SearXNG base URL for web.search.")
@click.option("--ssl-certfile", type=click.Path(dir_okay=False, exists=True), default=None)
@click.option("--ssl-keyfile", type=click.Path(dir_okay=False, exists=True), default=None)
@DATA_DIR_OPTION
def serve(
    data_dir: Path | None, ssl_certfile: str | None, ssl_keyfile: str | None, **options: Any
) -> None:
    """Run the Conversation Service (the Console at http://sovereign.localhost:8092/)."""
    from .app import create_app
    from .server import serve_forever, server_config

    if data_dir is not None:
        os.environ[ENV_DATA_DIR] = str(data_dir.expanduser())  # one data dir for every part
    options["allowed_hosts"] = options["allowed_hosts"] or None  # none given: the environment's
    try:
        settings = settings_from_environment(data_dir=data_dir, **options)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    problem = model_problem(settings)
    if problem is not None:
        raise JOURNAL.error(
            f"{problem} The service did not start. (sovereign doctor checks the model file.)"
        )
    sockets = _listen(settings)
    app = create_app(settings)
    scheme = "https" if ssl_certfile else "http"
    if not settings.loopback_only:
        click.secho(
            f"Listening on {settings.host}: other devices on the network can reach this "
            "service. Use --host 127.0.0.1 to keep it on this device.",
            fg="yellow",
            err=True,
        )
    if not settings.loopback_only and not settings.allowed_hosts:
        click.secho(
            "No --allowed-host given: other devices can connect but are refused until "
            'the appliance\'s LAN name is allowed (see the README, "Host names").',
            fg="yellow",
            err=True,
        )
    click.echo(f"Console: {settings.console_url(scheme)}")
    token = app.state.services.owner.setup_token()
    if token:
        click.echo(
            f"First run: set the owner password at {settings.console_url(scheme)}#setup={token}"
        )
    click.echo(f"Backend: {settings.backend}. Data: {settings.data_dir}")
    config = server_config(
        app, ssl_certfile=ssl_certfile, ssl_keyfile=ssl_keyfile, log_level="info"
    )
    serve_forever(config, sockets)


def _listen(settings: Settings) -> list[socket.socket]:
    """Bind every address the service must own (:mod:`.listeners`), before anything else
    starts; a program holding one of them stops the start, named."""
    names = [parse_pin(entry, settings.port)[0] for entry in settings.allowed_hosts]
    addresses = listen_addresses(settings.host, resolved_loopback(names))
    try:
        sockets = bind_listeners(addresses, settings.port)
    except AddressTaken as exc:
        raise JOURNAL.error(
            f"{exc.strerror}. Browsers opening the Console's address would reach it, so "
            "the service does not start: stop that program, or choose another --port."
        ) from exc
    except OSError as exc:
        raise JOURNAL.error(
            f"cannot listen on {settings.host}:{settings.port}: {exc.strerror}"
        ) from exc
    shown = ", ".join(_endpoint(s.getsockname()) for s in sockets)
    click.echo(f"Listening on {shown}")
    return sockets


def _endpoint(address: tuple[Any, ...]) -> str:
    host, port = address[0], address[1]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def model_problem(settings: Settings) -> str | None:
    """Why the embedded backend could not answer a first question, checked at start-up:
    the default model file missing or of the wrong size (the full SHA-256 check stays
    with the first load and ``sovereign doctor``); ``None`` when it can, or for the
    other backends and a ``--model-path`` file (click checked that it exists)."""
    if settings.backend != "embedded" or settings.model_path is not None:
        return None
    from sovereign.model import DEFAULT_MODEL, default_model_path
    from sovereign.model.errors import INSTALL_HINT

    path = default_model_path()
    if not path.is_file():
        return f"The embedded model is not installed: {path} does not exist. {INSTALL_HINT}"
    if path.stat().st_size != DEFAULT_MODEL.size_bytes:
        return (
            f"The embedded model file {path} is {path.stat().st_size:,} bytes, not "
            f"{DEFAULT_MODEL.size_bytes:,}: it is incomplete or another model. {INSTALL_HINT}"
        )
    return None


@click.group(short_help="Show or switch web search on or off.", invoke_without_command=True)
@click.pass_context
def policy(context: click.Context) -> None:
    """Show or change whether web search may be proposed (takes effect on the next message).

    Without a sub-command: the same as ``policy show``.
    """
    if context.invoked_subcommand is None:
        context.invoke(policy_show)


@policy.command("show")
@DATA_DIR_OPTION
def policy_show(data_dir: Path | None) -> None:
    """Print the web-search switch; exit 1 when the policy file is unusable."""
    words = command_words(data_dir)
    reading = PolicyStore(_data_dir(data_dir)).read(log=False)
    click.echo(words.say("web_search_on" if reading.web_search_enabled else "web_search_off"))
    if reading.problem:
        problem = say_problem(reading.problem, words)
        click.secho(words.say("policy_problem", problem=problem), fg="red", err=True)
        raise SystemExit(1)


@policy.command("enable-web-search")
@DATA_DIR_OPTION
def policy_enable(data_dir: Path | None) -> None:
    """Let the assistant propose web searches and page reads (each still needs approval)."""
    _set_policy(data_dir, True)


@policy.command("disable-web-search")
@DATA_DIR_OPTION
def policy_disable(data_dir: Path | None) -> None:
    """Stop the assistant from proposing anything that leaves the device."""
    _set_policy(data_dir, False)


def _set_policy(option: Path | None, enabled: bool) -> None:
    words = command_words(option)
    store = PolicyStore(_data_dir(option))
    try:
        store.set_web_search(enabled)
    except OSError as exc:
        raise not_written(words, store.path, exc) from exc
    click.echo(words.say("web_search_now_on" if enabled else "web_search_now_off"))


@click.command(short_help="Count capability outcomes from the audit log.")
@click.option("--days", type=click.IntRange(1, MAX_DAYS), default=7, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@DATA_DIR_OPTION
def audit(days: int, as_json: bool, data_dir: Path | None) -> None:
    """Count capability outcomes from the audit log (never queries or URLs)."""
    words = command_words(data_dir)
    try:
        summary = summarize(audit_path(_data_dir(data_dir)), days=days)
    except OSError as exc:
        raise words.error(words.say("audit_unreadable", reason=words.os_reason(exc))) from exc
    if as_json:
        click.echo(json.dumps(summary, indent=2))
        return
    period = words.say_count("days", days)
    click.echo(words.say("audit_heading", since=summary["since"], period=period))
    click.echo(textwrap.fill(words.say("audit_legend"), width=80))
    for line in _table(summary, words):
        click.echo(line)
    for line in audit_notes(summary, words):
        click.echo(line)


def audit_notes(summary: dict[str, Any], words: CliWords | None = None) -> list[str]:
    """The sentences under the table: calls that may have left, the owner's repairs for
    failures, clock jumps, damaged lines (in ``words``' language; English by default)."""
    words = words or CliWords()
    notes = [
        words.say_count("may_have_left", count, name=name)
        for name, count in summary.get("may_have_left", {}).items()
    ]
    notes.extend(
        words.say_count(
            "repairs",
            repair["count"],
            name=repair["capability"],
            repair=words.repair(repair["reason"], repair["repair"]),
        )
        for repair in summary.get("repairs", [])
    )
    for key, counted in (
        ("clock_jumps", "clock_jumps"),
        ("set_aside_lines", "set_aside"),
        ("unreadable_lines", "unreadable"),
        ("lost_records", "lost"),
    ):
        if summary.get(key):
            notes.append(words.say_count(counted, summary[key]))
    return notes


def _table(summary: dict[str, Any], words: CliWords) -> list[str]:
    headers = [words.audit_label(key) for key in ("capability", *COUNTERS)]
    rows = [
        [name, *(words.number(c[k]) for k in COUNTERS)]
        for name, c in summary["capabilities"].items()
    ]
    totals = summary["totals"]
    rows.append([words.audit_label("total"), *(words.number(totals[k]) for k in COUNTERS)])
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [headers, *rows]
    ]


@click.command(short_help="Set the Console owner's password.")
@DATA_DIR_OPTION
def passwd(data_dir: Path | None) -> None:
    """Set the Console owner's password (signs every Console session out)."""
    words = command_words(data_dir)
    owner = OwnerAccount(_data_dir(data_dir))
    password = click.prompt(
        words.say("new_password"),
        hide_input=True,
        confirmation_prompt=words.say("repeat_password"),
    )
    try:
        owner.set_password(password)
    except PasswordRejected as exc:
        raise words.error(said_password_rule(words, exc)) from exc
    except OSError as exc:
        raise not_written(words, owner.path, exc) from exc
    click.echo(words.say("password_set", path=owner.path))
