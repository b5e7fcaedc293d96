"""``sovereign doctor``: check the parts of the appliance and print a fix for each failure.

Checks: that one program, the service, holds both loopback addresses of the
Console's port (``127.0.0.1`` and ``[::1]``: browsers open ``sovereign.localhost`` on
``::1`` first), SearXNG (for web.search) and the engines it dropped at start-up, the
policy file, the household's site list, search settings and language, the home IPv6 prefix
web.fetch refuses, the audit log (writable,
readable, room on the data filesystem), the embedded model file, Home Assistant's and
Pi-hole's settings files, the household's private-words file, and for the openai backend the
model server (which server and build answers, and whether a web page or another machine
could use it: its CORS answer and the addresses it listens on) and how the model chooses
tools (what its server showed it supports, probed the way the service does).

A check is ``async (DoctorConfig) -> list[Finding]``; :data:`CHECKS` lists them in the
order they run. To add one, write the function and append it to :data:`CHECKS`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import click
import httpx
import psutil
from babel.lists import format_list

from sovereign.capabilities import home_assistant, pihole
from sovereign.capabilities.searxng import (
    DEFAULT_BASE_URL,
    MESSAGES,
    SearxngClient,
    SearxngError,
    prepare_query,
)
from sovereign.capabilities.web_fetch import HOME_NETWORK, check_home_network
from sovereign.cli_words import CliWords
from sovereign.model import DEFAULT_MODEL, ModelFileError, ModelUnreadable, verify_model
from sovereign.model.cli import said_model_error
from sovereign.paths import data_dir
from sovereign.searxng_log import SEARXNG_UNITS, failed_engines, read_searxng_log
from sovereign.service.audit_check import check_audit_log
from sovereign.service.commands import command_words
from sovereign.service.egress_settings import check_egress_settings
from sovereign.service.hosts import is_this_device
from sovereign.service.household_settings import check_household_settings
from sovereign.service.listeners import check_loopback_ownership
from sovereign.service.policy import check_policy_file
from sovereign.service.private_words import check_private_words_file
from sovereign.service.settings import (
    BACKENDS,
    DEFAULT_PORT,
    TOOL_MODES,
    settings_from_environment,
)
from sovereign.service.settings_store import say_problem

PROBE_QUERY = "open source software"
"""The words the engine probe searches for; they leave the device."""
WEB_PAGE_ORIGINS = ("http://web-page.invalid", "http://localhost:8080")
"""Origins a model server's CORS answer is tested with: any web page (a name that can
never resolve), and a page served on this device by another program (Pi-hole's)."""
HOME_IPV6_EXAMPLE = '{"home_ipv6_prefixes": ["2001:db8:1200::/56"]}'
"""What the home IPv6 prefix's fix suggests writing."""


def listening_addresses(port: int) -> list[str] | None:
    """The local addresses TCP sockets listen on at ``port`` on this device (``None``
    when the system does not say)."""
    try:
        sockets = psutil.net_connections(kind="tcp")
    except (psutil.Error, OSError):
        return None
    return sorted(
        {c.laddr.ip for c in sockets if c.status == psutil.CONN_LISTEN and c.laddr.port == port}
    )


@dataclass(frozen=True)
class Finding:
    """One line of the report: ``check`` passed (``ok``) or not, why, and the fix.

    ``checked`` is False for a check that could not run or was not asked for: it is
    reported as not checked, never as ok, and does not fail the report either."""

    check: str
    ok: bool
    detail: str
    fix: str | None = None
    checked: bool = True


@dataclass(frozen=True)
class DoctorConfig:
    """What the checks look at. ``timeout_seconds``: deadline per request, in seconds."""

    searxng_url: str = DEFAULT_BASE_URL
    data_dir: Path | None = None
    probe: bool = False
    timeout_seconds: float = 10.0
    searxng_log: Callable[[], list[str] | None] = read_searxng_log
    """SearXNG's log of its current run, or ``None`` when it cannot be read."""
    backend: str = "embedded"
    openai_base_url: str = "http://127.0.0.1:8081/v1"
    openai_model: str = "local"
    tool_mode: str | None = None
    model_timeout_seconds: float = 120.0
    """Per read, for the model server's probe (a small model on two cores is slow)."""
    service_port: int = DEFAULT_PORT
    """The port ``sovereign serve`` listens on (its ``--port`` / ``SOVEREIGN_PORT``)."""
    listening: Callable[[int], list[str] | None] = listening_addresses
    """The addresses something listens on at a TCP port of this device."""
    words: CliWords = field(default_factory=CliWords)
    """The language the findings are said in (English by default)."""


Check = Callable[[DoctorConfig], Awaitable[list[Finding]]]


async def check_searxng(config: DoctorConfig) -> list[Finding]:
    """SearXNG: reachable with ``/healthz`` OK, JSON API on, limiter off, engines answering.

    Stops at the first failure that makes the later checks meaningless. The engine
    probe (a real search for :data:`PROBE_QUERY`) runs only when ``config.probe``.
    """
    words = config.words
    try:
        client = SearxngClient(config.searxng_url, deadline_seconds=config.timeout_seconds)
    except ValueError:
        detail = words.say("doctor_searxng_url_bad", url=repr(config.searxng_url))
        return [Finding("SearXNG reachable", False, detail, words.say("doctor_searxng_url_fix"))]
    findings = [await _searxng_health(client, words)]
    if findings[-1].ok:
        findings.append(await _searxng_api(client, words))
    if findings[-1].ok and config.probe:
        findings.append(await _searxng_engines(client, words))
    elif findings[-1].ok:
        detail = words.say("doctor_probe_not_asked")
        findings.append(Finding("SearXNG engines", True, detail, checked=False))
    return findings


def _searxng_failure(name: str, exc: SearxngError, words: CliWords) -> Finding:
    """SearXNG's error as a failed finding: why (by its key) and the owner's fix (by its
    problem), said in ``words``' language."""
    detail = words.phrase(f"searxng:{exc.key}", MESSAGES[exc.key], **exc.values)
    fix = words.phrase(f"searxng_fix:{exc.problem}", exc.fix) if exc.fix else None
    return Finding(name, False, detail, fix)


async def _searxng_health(client: SearxngClient, words: CliWords) -> Finding:
    name = "SearXNG reachable"
    try:
        status, text = await client.healthz()
    except SearxngError as exc:
        return _searxng_failure(name, exc, words)
    if status == 200 and text == "OK":
        return Finding(name, True, words.say("doctor_healthz_ok", url=client.base_url))
    return Finding(
        name,
        False,
        words.say("doctor_healthz_not_ok", url=client.base_url, status=status),
        words.say("doctor_healthz_fix"),
    )


async def _searxng_api(client: SearxngClient, words: CliWords) -> Finding:
    name = "SearXNG JSON API and limiter"
    try:
        status = await client.empty_search_status()
    except SearxngError as exc:
        return _searxng_failure(name, exc, words)
    if status == 400:
        return Finding(name, True, words.say("doctor_api_ok"))
    if status == 403:
        return Finding(name, False, words.say("doctor_json_refused"), words.say("doctor_json_fix"))
    if status == 429:
        return Finding(name, False, words.say("doctor_limiter"), words.say("doctor_limiter_fix"))
    return Finding(name, False, words.say("doctor_search_unexpected", status=status), None)


async def _searxng_engines(client: SearxngClient, words: CliWords) -> Finding:
    name = "SearXNG engines"
    try:
        page = await client.search(prepare_query(PROBE_QUERY))
    except SearxngError as exc:
        return _searxng_failure(name, exc, words)
    answered = sorted(page.answering_engines())
    failed = [f"{engine} ({reason})" for engine, reason in page.failed_engines]
    names = ", ".join(answered) or words.say("doctor_engines_none")
    detail = words.say_count("doctor_engines_answered", len(answered), names=names)
    if failed:
        detail += words.say_count("doctor_engines_failed", len(failed), names=", ".join(failed))
    if answered:
        return Finding(name, True, detail)
    return Finding(name, False, detail, words.say("doctor_engines_fix"))


async def check_searxng_engine_start(config: DoctorConfig) -> list[Finding]:
    """Engines SearXNG dropped at start-up because their init failed (from its log)."""
    name, words = "SearXNG engine start-up", config.words
    lines = await asyncio.to_thread(config.searxng_log)
    if lines is None:
        units = format_list(list(SEARXNG_UNITS), style="or", locale=words.language)
        detail = words.say("doctor_engine_log_unread", units=units)
        return [Finding(name, True, detail, checked=False)]
    failed = failed_engines(lines)
    if not failed:
        return [Finding(name, True, words.say("doctor_engines_started"))]
    detail = words.say_count("doctor_engines_not_started", len(failed), names=", ".join(failed))
    return [Finding(name, False, detail, words.say("doctor_engines_not_started_fix"))]


async def check_console_address(config: DoctorConfig) -> list[Finding]:
    """Who answers at the Console's address: one program must hold both
    ``127.0.0.1:<port>`` and ``[::1]:<port>`` (:mod:`sovereign.service.listeners`)."""
    ok, detail = await asyncio.to_thread(
        check_loopback_ownership, config.service_port, config.words
    )
    fix = config.words.say("doctor_console_fix")
    return [Finding("console address", ok, detail, None if ok else fix)]


async def check_policy(config: DoctorConfig) -> list[Finding]:
    """The policy file (``<data>/capabilities/policy.json``): absent or valid; corrupt = off."""
    ok, detail = check_policy_file(config.data_dir or data_dir(), config.words)
    fix = config.words.say("doctor_policy_fix")
    return [Finding("policy file", ok, detail, None if ok else fix)]


async def check_egress(config: DoctorConfig) -> list[Finding]:
    """``sites.json`` and ``search.json``: absent or valid; corrupt = no list / defaults."""
    results = await asyncio.to_thread(
        check_egress_settings, config.data_dir or data_dir(), config.words
    )
    return [Finding(*result) for result in results]


async def check_household(config: DoctorConfig) -> list[Finding]:
    """``household.json``: absent (English) or a language the product speaks; corrupt = English."""
    ok, detail, fix = await asyncio.to_thread(
        check_household_settings, config.data_dir or data_dir(), config.words
    )
    return [Finding("household language", ok, detail, fix)]


async def check_home_ipv6(config: DoctorConfig) -> list[Finding]:
    """The household's IPv6 prefix web.fetch refuses (``home_ipv6_prefixes``, or assumed)."""
    ok, key, values = await asyncio.to_thread(check_home_network, config.data_dir or data_dir())
    detail = config.words.phrase(f"home_network:{key}", HOME_NETWORK[key], **values)
    fix = config.words.say("doctor_home_ipv6_fix", example=HOME_IPV6_EXAMPLE)
    return [Finding("home IPv6 prefix", ok, detail, None if ok else fix)]


async def check_model(config: DoctorConfig) -> list[Finding]:
    """The embedded default model: present at ``<data>/models/`` and exactly the published
    file (size and SHA-256; hashing 1.1 GB takes a second or two). Not checked for the
    openai backend, which does not use it."""
    path = (config.data_dir or data_dir()) / "models" / DEFAULT_MODEL.file_name
    words = config.words
    if config.backend == "openai":
        detail = words.say("doctor_model_not_used")
        return [Finding("embedded model", True, detail, checked=False)]
    try:
        await asyncio.to_thread(verify_model, path)
    except ModelUnreadable as exc:
        detail = said_model_error(exc, words)
        return [Finding("embedded model", False, detail, words.say("doctor_model_user_fix"))]
    except ModelFileError as exc:
        detail = said_model_error(exc, words)
        return [Finding("embedded model", False, detail, words.say("doctor_model_fix"))]
    return [Finding("embedded model", True, words.say("doctor_model_ok", path=path))]


async def check_home_assistant(config: DoctorConfig) -> list[Finding]:
    """``<data>/home-assistant.json``: absent (Home Assistant off) or usable; else why not."""
    problem = home_assistant.settings_problem(config.data_dir or data_dir())
    return [_service_settings("home assistant settings", problem, "doctor_home_assistant_fix",
                              config.words)]  # fmt: skip


async def check_pihole(config: DoctorConfig) -> list[Finding]:
    """``<data>/pihole.json``: absent (Pi-hole not set up) or usable; else why not."""
    problem = pihole.settings_problem(config.data_dir or data_dir())
    return [_service_settings("Pi-hole settings", problem, "doctor_pihole_fix", config.words)]


def _service_settings(check: str, problem: str | None, fix: str, words: CliWords) -> Finding:
    if problem is not None:
        return Finding(check, False, say_problem(problem, words), words.say(fix))
    return Finding(check, True, words.say("doctor_absent_or_usable"))


async def check_audit(config: DoctorConfig) -> list[Finding]:
    """The audit log: writable (else no capability runs), readable, room on its filesystem."""
    results = await asyncio.to_thread(check_audit_log, config.data_dir or data_dir(), config.words)
    return [Finding(*result) for result in results]


async def check_private_words(config: DoctorConfig) -> list[Finding]:
    """``<data>/private-words.json``: absent or usable; unreadable means the identifier
    check runs without the household's words, and a file others can read is flagged."""
    ok, detail = check_private_words_file(config.data_dir or data_dir(), config.words)
    fix = config.words.say("doctor_private_words_fix")
    return [Finding("private words", ok, detail, None if ok else fix)]


async def check_model_server(config: DoctorConfig) -> list[Finding]:
    """For the openai backend: which server answers (llama-server names its build in
    ``GET /props``), whether its CORS answer lets a web page use it, and whether it
    listens beyond loopback when it runs on this device. A server that cannot be
    reached is reported as not checked here; :func:`check_tool_mode` fails with a fix."""
    if config.backend != "openai":
        return []
    url = config.openai_base_url.rstrip("/")
    root = url.removesuffix("/v1")
    words = config.words
    try:
        async with httpx.AsyncClient(timeout=config.timeout_seconds, trust_env=False) as client:
            identity = await _server_identity(client, root, url, words)
            cors = await _cors_finding(client, url, words)
    except httpx.HTTPError:
        detail = words.say("doctor_server_unreached")
        return [Finding("model server", True, detail, checked=False)]
    return [Finding("model server", True, identity), cors, _bind_finding(config, url)]


async def _server_identity(
    client: httpx.AsyncClient, root: str, url: str, words: CliWords
) -> str:
    props = await client.get(f"{root}/props")
    info = _json(props) if props.status_code == 200 else {}
    if isinstance(info, dict) and isinstance(info.get("build_info"), str):
        path = info.get("model_path")
        model = Path(str(path)).name if path else words.say("doctor_model_unnamed")
        return words.say("doctor_llama_server", build=info["build_info"], url=url, model=model)
    models = _json(await client.get(f"{url}/models"))
    names = [m.get("id") for m in (models or {}).get("data", []) if isinstance(m, dict)]
    served = ", ".join(str(n) for n in names) or words.say("doctor_no_model_named")
    return words.say("doctor_other_server", url=url, served=served)


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


async def _cors_finding(client: httpx.AsyncClient, url: str, words: CliWords) -> Finding:
    name = "model server CORS"
    allowed = []
    for origin in WEB_PAGE_ORIGINS:
        headers = {"Origin": origin, "Access-Control-Request-Method": "POST",
                   "Access-Control-Request-Headers": "content-type"}  # fmt: skip
        answer = (await client.options(f"{url}/chat/completions", headers=headers)).headers
        granted = answer.get("access-control-allow-origin")
        if granted in ("*", "null", origin):
            allowed.append(f"{origin} (Access-Control-Allow-Origin: {granted})")
    if not allowed:
        return Finding(name, True, words.say("doctor_cors_ok"))
    detail = words.say("doctor_cors_open", grants="; ".join(allowed))
    return Finding(name, False, detail, words.say("doctor_cors_fix"))


def _bind_finding(config: DoctorConfig, url: str) -> Finding:
    name, words = "model server address", config.words
    parts = urlsplit(url)
    host, port = parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)
    if not is_this_device(host):
        detail = words.say("doctor_bind_remote", host=host)
        return Finding(name, True, detail, checked=False)
    addresses = config.listening(port)
    if not addresses:
        detail = words.say("doctor_bind_unknown", port=port)
        return Finding(name, True, detail, checked=False)
    wide = [a for a in addresses if not is_this_device(a)]
    if not wide:
        return Finding(name, True, words.say("doctor_bind_ok", addresses=", ".join(addresses),
                                             port=port))  # fmt: skip
    detail = words.say("doctor_bind_wide", addresses=", ".join(wide), port=port)
    return Finding(name, False, detail, words.say("doctor_bind_fix"))


async def check_tool_mode(config: DoctorConfig) -> list[Finding]:
    """Which way the model chooses tools, and why: for ``openai``, the server is probed
    (four small greedy requests) and the plan the service would choose is named."""
    name, words = "model tool mode", config.words
    if config.backend != "openai":
        mode = "native" if config.tool_mode == "native" else "schema"
        # a setting, not a test: the model itself is checked above (or not at all)
        detail = words.say("doctor_tool_mode_set", backend=config.backend, mode=mode)
        return [Finding(name, True, detail, checked=False)]
    from sovereign.conversation.backends.base import ModelUnavailable
    from sovereign.conversation.backends.openai.backend import OpenAIBackend

    backend = OpenAIBackend(
        config.openai_base_url,
        config.openai_model,
        mode=config.tool_mode or "auto",
        timeout_seconds=config.model_timeout_seconds,
    )
    try:
        plan = await backend.plan()
    except ModelUnavailable as exc:
        detail = words.say("doctor_server_unavailable", error=_said_unavailable(exc, words))
        return [Finding(name, False, detail, words.say("doctor_server_unavailable_fix"))]
    return [_plan_finding(name, plan, backend.features, words)]


def _said_unavailable(error: Exception, words: CliWords) -> str:
    """Why the model server is unavailable, by its key (``UNAVAILABLE``) in ``words``'
    language; an error without one as it was written."""
    from sovereign.conversation.backends.openai.http import UNAVAILABLE

    key = getattr(error, "key", None)
    if key not in UNAVAILABLE:
        return str(error)
    return words.phrase(f"model_server:{key}", UNAVAILABLE[key], **getattr(error, "values", {}))


def _plan_finding(name: str, plan: Any, features: Any, words: CliWords) -> Finding:
    """The plan's finding: its mode, why (``plan.why``), how answers come and what each
    probe showed (``features.probed``), said in ``words``' language."""
    from sovereign.conversation.backends.openai.probe import NOTES, REASONS

    def reason(key: str) -> str:
        return words.phrase(f"plan:{key}", REASONS[key], flavour=plan.response_format or "")

    case, constraint, calls = plan.why
    why = words.phrase(f"plan:{case}", REASONS[case], constraint=reason(constraint),
                       calls=reason(calls))  # fmt: skip
    answers = words.say("doctor_answers_streamed" if plan.stream else "doctor_answers_whole")
    notes = "; ".join(words.phrase(f"probe:{key}", NOTES[key], **values)
                      for key, values in features.probed)  # fmt: skip
    detail = words.say("doctor_plan", mode=plan.mode, reason=why, answers=answers,
                       notes=notes)  # fmt: skip
    if plan.mode == "native" and features.tool_calls == "refused":
        return Finding(name, False, detail, words.say("doctor_tools_refused_fix"))
    return Finding(name, True, detail)


CHECKS: list[Check] = [
    check_console_address,
    check_searxng,
    check_searxng_engine_start,
    check_policy,
    check_egress,
    check_household,
    check_home_ipv6,
    check_audit,
    check_model,
    check_home_assistant,
    check_pihole,
    check_private_words,
    check_model_server,
    check_tool_mode,
]
"""Every check ``sovereign doctor`` runs, in order."""


async def run_checks(config: DoctorConfig, checks: list[Check] | None = None) -> list[Finding]:
    """Run ``checks`` (default :data:`CHECKS`) one after another; returns all findings."""
    findings: list[Finding] = []
    for check in CHECKS if checks is None else checks:
        findings.extend(await check(config))
    return findings


def format_finding(finding: Finding, words: CliWords | None = None) -> str:
    """``[ ok ] check: detail``, ``[ -- ] check: detail`` (not checked) or ``[FAIL] check:
    detail`` plus an indented fix line; the check's name and ``fix:`` in ``words``'
    language (English by default), the marks always as here."""
    words = words or CliWords()
    mark = "[ -- ]" if not finding.checked else "[ ok ]" if finding.ok else "[FAIL]"
    line = f"{mark} {words.check(finding.check)}: {finding.detail}"
    if finding.fix and not finding.ok:
        return f"{line}\n       {words.say('doctor_fix', fix=finding.fix)}"
    return line


def _recent_repairs(config: DoctorConfig, words: CliWords) -> list[str]:
    """The owner's repairs for failures of the last day (the audit log's reasons)."""
    from sovereign.service.audit_summary import audit_path, summarize

    try:
        summary = summarize(audit_path(config.data_dir or data_dir()), days=1)
    except OSError:
        return []  # the audit check above says why
    return [
        words.say_count(
            "doctor_note",
            r["count"],
            name=r["capability"],
            repair=words.repair(r["reason"], r["repair"]),
        )
        for r in summary["repairs"]
    ]


@click.command("doctor", short_help="Check SearXNG, the settings files and the model.")
@click.option(
    "--searxng-url",
    default=DEFAULT_BASE_URL,
    show_default=True,
    envvar="SOVEREIGN_SEARXNG_URL",
    help="Address of the local SearXNG.",
)
@click.option("--backend", type=click.Choice(BACKENDS), default=None, help="As for serve.")
@click.option("--openai-base-url", default=None, help="OpenAI-compatible server to probe.")
@click.option("--openai-model", default=None, help="Model name for the openai backend.")
@click.option("--tool-mode", type=click.Choice(TOOL_MODES), default=None, help="As for serve.")
@click.option(
    "--port",
    "service_port",
    envvar="SOVEREIGN_PORT",
    default=DEFAULT_PORT,
    show_default=True,
    type=click.IntRange(1, 65535),
    help="The port the service listens on (as for serve).",
)
@click.option(
    "--probe/--no-probe",
    default=False,
    show_default=True,
    help=f"Also search for {PROBE_QUERY!r} to count the engines that answer: these words "
    "leave the device, so it is asked for, never the default.",
)
def doctor(searxng_url: str, probe: bool, service_port: int, **model: str | None) -> None:
    """Check the appliance's parts and print a fix for each failure (exit status 1)."""
    words = command_words()
    settings = settings_from_environment(**model)
    config = DoctorConfig(
        words=words,
        service_port=service_port,
        searxng_url=searxng_url,
        data_dir=data_dir(),
        probe=probe,
        backend=settings.backend,
        openai_base_url=settings.openai_base_url,
        openai_model=settings.openai_model,
        tool_mode=settings.tool_mode,
    )
    if probe:
        click.echo(words.say("doctor_probe", query=repr(PROBE_QUERY)))
    findings = asyncio.run(run_checks(config))
    for finding in findings:
        click.echo(format_finding(finding, words))
    for note in _recent_repairs(config, words):
        click.echo(note)
    if not all(finding.ok for finding in findings):
        raise SystemExit(1)
