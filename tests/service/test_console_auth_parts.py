"""Owner account, sessions and sign-in throttling on their own."""

from __future__ import annotations

import json
import threading

import pytest

from sovereign.service.owner import OwnerAccount, PasswordRejected
from sovereign.service.sessions import MAX_TABS, SessionStore
from sovereign.service.throttle import SignInThrottle

from .conftest import CHEAP_HASHER

PASSWORD = "correct horse battery"


@pytest.fixture
def owner(tmp_path) -> OwnerAccount:
    return OwnerAccount(tmp_path, CHEAP_HASHER)


def test_setup_token_exists_only_until_a_password_is_set(owner):
    token = owner.setup_token()
    assert token and owner.setup_token() == token
    assert owner.complete_setup(token, PASSWORD) is True
    assert owner.setup_token() is None
    assert owner.verify(PASSWORD) and not owner.verify("wrong password")


def test_setup_with_a_wrong_token_sets_nothing(owner):
    owner.setup_token()
    assert owner.complete_setup("guess", PASSWORD) is False
    assert not owner.is_set_up()


def test_setup_token_is_single_use(owner):
    token = owner.setup_token()
    assert owner.complete_setup(token, PASSWORD)
    assert owner.complete_setup(token, "another password") is False
    assert owner.verify(PASSWORD)


def test_racing_setups_set_exactly_one_password(owner):
    token = owner.setup_token()
    results: list[bool] = []
    threads = [
        threading.Thread(
            target=lambda i=i: results.append(owner.complete_setup(token, f"pw-{i}-xxxxxx"))
        )
        for i in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results.count(True) == 1
    assert sum(owner.verify(f"pw-{i}-xxxxxx") for i in range(8)) == 1


@pytest.mark.parametrize("password", ["short", "        ", "x" * 1025])
def test_password_rules_are_enforced(owner, password):
    with pytest.raises(PasswordRejected):
        owner.set_password(password)
    assert not owner.is_set_up()


def test_stored_file_holds_an_argon2id_hash_never_the_password(owner):
    owner.set_password(PASSWORD)
    text = owner.path.read_text()
    assert PASSWORD not in text
    assert json.loads(text)["password_hash"].startswith("$argon2id$")
    assert oct(owner.path.stat().st_mode & 0o777) == "0o600"


def test_unreadable_password_file_lets_nobody_in_and_blocks_setup(owner):
    owner.path.write_text("{broken")
    assert owner.is_set_up()
    assert owner.setup_token() is None
    assert owner.verify("anything at all") is False


def test_weaker_stored_hash_is_upgraded_on_sign_in(tmp_path):
    from argon2 import PasswordHasher

    weak = OwnerAccount(tmp_path, PasswordHasher(time_cost=1, memory_cost=512, parallelism=1))
    weak.set_password(PASSWORD)
    stronger = OwnerAccount(tmp_path, CHEAP_HASHER)
    assert stronger.verify(PASSWORD)
    assert "m=1024" in json.loads(stronger.path.read_text())["password_hash"]


def test_session_idle_and_absolute_expiry(clock):
    sessions = SessionStore(lambda: "g1", clock=clock, idle_seconds=60, absolute_seconds=300)
    session, _tab = sessions.open()
    for _ in range(4):
        clock.advance(59)
        assert sessions.lookup(session.id) is session
    clock.advance(59)  # 295 s old, last seen 59 s ago: still alive
    assert sessions.lookup(session.id) is session
    clock.advance(6)  # 301 s old
    assert sessions.lookup(session.id) is None
    idle, _tab = sessions.open()
    clock.advance(60)
    assert sessions.lookup(idle.id) is None


def test_password_change_ends_sessions_opened_before_it(clock):
    generation = ["g1"]
    sessions = SessionStore(lambda: generation[0], clock=clock)
    before, _ = sessions.open()
    generation[0] = "g2"
    after, _ = sessions.open()
    assert sessions.lookup(before.id) is None
    assert sessions.lookup(after.id) is after


def test_session_ids_and_tab_secrets_are_distinct_and_long(clock):
    sessions = SessionStore(lambda: "g1", clock=clock)
    opened = [sessions.open() for _ in range(50)]
    values = {s.id for s, _ in opened} | {tab for _, tab in opened}
    values |= {sessions.add_tab(s) for s, _ in opened}
    assert len(values) == 150
    assert min(len(v) for v in values) >= 43  # 256 bits, url-safe base64
    assert len(sessions) == 50


def test_session_store_is_bounded_and_drops_the_oldest(clock):
    sessions = SessionStore(lambda: "g1", clock=clock, max_sessions=3)
    first, *rest = [sessions.open()[0] for _ in range(4)]
    assert sessions.lookup(first.id) is None
    assert all(sessions.lookup(s.id) is s for s in rest)


def test_a_tab_secret_must_match_exactly(clock):
    session, tab = SessionStore(lambda: "g1", clock=clock).open()
    assert session.tab_matches(tab)
    assert not session.tab_matches(None)
    assert not session.tab_matches("")
    assert not session.tab_matches(tab[:-1])
    assert not session.tab_matches(tab + "x")
    assert not session.tab_matches(session.id)  # the cookie is not a tab secret


def test_every_tab_of_a_browser_stays_signed_in_up_to_the_bound(clock):
    sessions = SessionStore(lambda: "g1", clock=clock)
    session, first = sessions.open()
    later = [sessions.add_tab(session) for _ in range(MAX_TABS)]
    assert not session.tab_matches(first)  # the oldest tab dropped out
    assert all(session.tab_matches(tab) for tab in later)


def test_renewing_ends_the_old_cookie_and_keeps_the_tabs(clock):
    sessions = SessionStore(lambda: "g1", clock=clock)
    session, tab = sessions.open()
    renewed = sessions.renew(session)
    assert sessions.lookup(session.id) is None
    assert sessions.lookup(renewed.id) is renewed and renewed.tab_matches(tab)


def test_throttle_backs_off_exponentially_after_five_failures(clock):
    throttle = SignInThrottle(clock=clock)
    delays = [throttle.failed("owner") for _ in range(9)]
    assert delays == [0, 0, 0, 0, 0, 1, 2, 4, 8]
    assert throttle.retry_after("owner") == 8
    assert throttle.retry_after("device:1") == 0
    clock.advance(8)
    assert throttle.retry_after("owner") == 0


def test_throttle_caps_the_lock_out_and_clears_on_success(clock):
    throttle = SignInThrottle(clock=clock, max_seconds=900)
    for _ in range(2000):
        throttle.failed("owner")
    assert throttle.retry_after("owner") == 900
    throttle.succeeded("owner")
    assert throttle.retry_after("owner") == 0
