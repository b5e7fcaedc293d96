"""SIGKILL the service while an approved search is at SearXNG: the record was there first.

The service runs in its own process (uvicorn on 127.0.0.1, real web.search
against the replaying fake SearXNG on loopback, which holds the search). When
the search arrives, its "executing" record must already be in the audit file;
the service is then killed. After a restart, Activity shows the search as
"may have left — outcome unknown" and the approval nobody answered as expired.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import httpx

from sovereign.service.audit_summary import audit_path
from tests.fakes.searxng import FakeSearxng

from .harness import PASSWORD, build_harness

SERVICE = textwrap.dedent(
    """
    import socket, sys
    from pathlib import Path
    import uvicorn
    from sovereign.capabilities import web_search
    from sovereign.conversation.backends.scripted import ScriptedBackend
    from sovereign.executor import Registry
    from sovereign.service.app import create_app
    from sovereign.service.settings import Settings
    from tests.console.live_service import CHEAP_HASHER, household_model

    registry = Registry()
    web_search.register(registry, base_url=sys.argv[2])
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    settings = Settings(data_dir=Path(sys.argv[1]), backend="scripted",
                        port=sock.getsockname()[1])  # the port its Host names
    app = create_app(settings, backend=ScriptedBackend(household_model), registry=registry,
                     password_hasher=CHEAP_HASHER)
    print(app.state.services.owner.setup_token(), sock.getsockname()[1], flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off")).run(sockets=[sock])
    """
)


def records(data_dir):
    return [json.loads(line) for line in audit_path(data_dir).read_text().splitlines()]


def start_service(data_dir, searxng):
    process = subprocess.Popen(
        [sys.executable, "-c", SERVICE, str(data_dir), searxng.base_url],
        stdout=subprocess.PIPE, cwd=os.getcwd(),
    )
    token, port = process.stdout.readline().decode().split()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return process, token, url
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "the service did not start"
        time.sleep(0.1)


def sign_in(url, token):
    client = httpx.Client(base_url=url, headers={"Origin": url}, timeout=30)
    signed = client.post("/api/v1/auth/setup", json={"setup_token": token, "password": PASSWORD})
    assert signed.status_code == 200, signed.text
    client.headers["X-CSRF-Token"] = signed.json()["csrf_token"]
    assert client.post("/api/v1/conversation/policy", json={"web_search_enabled": True}).is_success
    return client


def pending(client, words):
    reply = client.post("/api/v1/conversation/message", json={"message": words}).json()
    return reply["pending_confirmation"]


async def test_a_search_killed_at_searxng_was_recorded_first_and_shows_as_may_have_left(
    tmp_path,
):
    with FakeSearxng() as searxng:
        searxng.answer("/search", "search_basic", delay_seconds=60)  # held until the kill
        process, token, url = start_service(tmp_path, searxng)
        try:
            client = sign_in(url, token)
            left_open = pending(client, "search tidal power")
            approved = pending(client, "search solar panel cleaning")
            answer = {"confirmation": {"token": approved["token"], "approve": True}}
            approving = threading.Thread(
                target=lambda: _ignore_errors(client.post, "/api/v1/conversation/message",
                                              json=answer),
                daemon=True,
            )
            approving.start()
            deadline = time.monotonic() + 30
            while not searxng.requests_to("/search"):
                assert time.monotonic() < deadline, "the approved search never arrived"
                time.sleep(0.01)
            on_disk = records(tmp_path)  # at the moment the query reached SearXNG
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=10)
            approving.join(timeout=30)
            client.close()
        finally:
            process.kill()
            process.stdout.close()
    [query] = searxng.requests_to("/search")
    assert query.q == approved["arguments"]["query"]
    executing = on_disk[-1]
    assert (executing["capability"], executing["outcome"]) == ("web.search", "executing")
    assert executing["asked"] is not None
    assert records(tmp_path) == on_disk, "nothing was written after the kill"

    restarted = build_harness(tmp_path)
    async with restarted.client:
        await restarted.sign_in()
        response = await restarted.client.get(
            "/api/v1/audit/summary", params={"days": 1}, headers=restarted.headers()
        )
    summary = response.json()
    search = summary["capabilities"]["web.search"]
    assert summary["may_have_left"] == {"web.search": 1}
    assert (search["confirmation_requested"], search["approved"], search["outcome_unknown"]) == (
        2, 1, 1
    )
    assert (search["expired"], search["awaiting"], search["executed"]) == (1, 0, 0)
    assert left_open is not None
    closing = records(tmp_path)[-1]
    assert (closing["outcome"], closing["reason"]) == ("expired", "service restarted")


def _ignore_errors(call, *args, **kwargs):
    with contextlib.suppress(httpx.HTTPError):  # the service was killed mid-request
        call(*args, **kwargs)
