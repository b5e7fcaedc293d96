"""One writer at a time: racing CLI processes and the API never lose a settings write.

Every settings file the CLI and the service both write goes through one store
(sovereign.service.settings_store) that holds an exclusive lock around each
read-change-write. These tests race real ``sovereign`` processes against each other
and against the running API, then count every write that was kept.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from pathlib import Path

import pytest

from sovereign.service.egress_settings import SiteListStore
from sovereign.service.private_words import PrivateWordsStore
from sovereign.service.settings_store import SettingsFile, SettingsKind, SettingsUnreadable

WRITERS = 10


async def _cli(data_dir: Path, *args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "sovereign.cli", *args, "--data-dir", str(data_dir),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output, _ = await process.communicate()
    return process.returncode or 0, output.decode()


async def test_ten_parallel_cli_site_blocks_keep_all_ten(tmp_path):
    sites = [f"site{number}.example" for number in range(WRITERS)]
    results = await asyncio.gather(*(_cli(tmp_path, "sites", "block", s) for s in sites))
    assert [code for code, _ in results] == [0] * WRITERS, results
    kept = {rule.text for rule in SiteListStore(tmp_path).site_list().block}
    assert kept == set(sites)


async def test_ten_parallel_cli_private_word_adds_keep_all_ten(tmp_path):
    words = [f"Neighbour Number{number}" for number in range(WRITERS)]
    results = await asyncio.gather(*(_cli(tmp_path, "private-words", "add", w) for w in words))
    assert [code for code, _ in results] == [0] * WRITERS, results
    assert set(PrivateWordsStore(tmp_path).read().words) == set(words)


async def test_cli_adds_racing_api_adds_keep_every_word(signed_in):
    harness = signed_in
    cli_words = [f"Cli Word{number}" for number in range(6)]
    api_words = [f"Api Word{number}" for number in range(12)]

    async def through_api(word: str) -> int:
        response = await harness.post("/api/v1/settings/private-words", {"add": word})
        return response.status_code

    outcomes = await asyncio.gather(
        *(_cli(harness.data_dir, "private-words", "add", w) for w in cli_words),
        *(through_api(w) for w in api_words),
    )
    assert outcomes[: len(cli_words)] == [(0, outcomes[i][1]) for i in range(len(cli_words))]
    assert outcomes[len(cli_words) :] == [200] * len(api_words)
    stored = json.loads((harness.data_dir / "private-words.json").read_text())["words"]
    assert sorted(stored) == sorted(cli_words + api_words)


def test_fifty_threads_with_their_own_stores_keep_fifty_words(tmp_path):
    barrier = threading.Barrier(50)
    failures: list[Exception] = []

    def add(number: int) -> None:
        store = PrivateWordsStore(tmp_path)  # a store per writer, as each request builds
        barrier.wait()
        try:
            store.add(f"Thread Word{number}")
        except Exception as exc:
            failures.append(exc)

    threads = [threading.Thread(target=add, args=(n,)) for n in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(PrivateWordsStore(tmp_path).read().words) == 50


COUNTER = SettingsKind(
    relative_path="counter.json",
    default=0,
    parse=lambda value: int(value["count"]),
    dump=lambda count: {"count": count},
    log_prefix="counter ignored",
)


def test_a_slow_change_holds_every_other_writer_back(tmp_path):
    """The lock spans read, change and write: a writer reading while another changes
    would count from a stale value, and increments would be lost."""
    inside = threading.Event()
    release = threading.Event()

    def slow(count: int) -> int:
        inside.set()
        release.wait(5)
        return count + 1

    first = threading.Thread(target=SettingsFile(tmp_path, COUNTER).update, args=(slow,))
    first.start()
    assert inside.wait(5)
    second = threading.Thread(
        target=SettingsFile(tmp_path, COUNTER).update, args=(lambda c: c + 1,)
    )
    second.start()
    second.join(0.3)
    assert second.is_alive(), "the second writer must wait for the first"
    release.set()
    first.join(5)
    second.join(5)
    assert SettingsFile(tmp_path, COUNTER).read().value == 2


def test_a_change_that_raises_leaves_the_file_and_frees_the_lock(tmp_path):
    store = SettingsFile(tmp_path, COUNTER)
    store.replace(7)

    def broken(count: int) -> int:
        raise ValueError("no")

    with pytest.raises(ValueError):
        store.update(broken)
    assert store.update(lambda c: c + 1) == 8


@pytest.mark.parametrize("content", [b"{", b'{"count": "x"}', b'{"count": 1, "count": 2}'])
def test_an_update_never_writes_over_a_file_it_cannot_read(tmp_path, content):
    path = tmp_path / "counter.json"
    path.write_bytes(content)
    with pytest.raises(SettingsUnreadable, match="left as it is"):
        SettingsFile(tmp_path, COUNTER).update(lambda c: c + 1)
    assert path.read_bytes() == content


def test_a_symbolic_link_is_not_followed(tmp_path):
    target = tmp_path / "elsewhere.json"
    target.write_text('{"count": 3}')
    (tmp_path / "counter.json").symlink_to(target)
    reading = SettingsFile(tmp_path, COUNTER).read()
    assert reading.value == 0 and not reading.usable
    assert "cannot be read" in (reading.problem or "")


def test_a_value_is_read_again_when_the_bytes_change_even_at_the_same_size(tmp_path):
    store = SettingsFile(tmp_path, COUNTER)
    store.replace(1)
    assert store.read().value == 1
    (tmp_path / "counter.json").write_text('{"count": 2}\n')  # same size, maybe same inode
    assert store.read().value == 2


@pytest.mark.parametrize("shape", ["directory", "fifo"])
def test_something_other_than_a_file_is_unusable_never_an_exception(tmp_path, shape):
    path = tmp_path / "counter.json"
    path.mkdir() if shape == "directory" else os.mkfifo(path)
    reading = SettingsFile(tmp_path, COUNTER).read()
    assert reading.value == 0 and not reading.usable
    assert "is not a regular file" in (reading.problem or "")
    with pytest.raises(SettingsUnreadable):
        SettingsFile(tmp_path, COUNTER).update(lambda c: c + 1)


@pytest.mark.parametrize(
    ("relative_path", "route"),
    [
        ("capabilities/policy.json", "/api/v1/conversation/policy"),
        ("capabilities/sites.json", "/api/v1/settings/sites"),
        ("capabilities/search.json", "/api/v1/settings/search"),
        ("household.json", "/api/v1/settings/household"),
    ],
)
async def test_a_directory_in_place_of_a_settings_file_reads_as_the_default(
    signed_in, relative_path, route
):
    (signed_in.data_dir / relative_path).mkdir(parents=True)
    response = await signed_in.client.get(route, headers=signed_in.headers())
    assert response.status_code == 200, response.text
