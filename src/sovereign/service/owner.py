"""The household owner's account: one password, hashed with argon2 (console-auth).

The hash lives in ``<data>/console-auth.json`` (mode 0600), read fresh on each
check so that ``sovereign passwd`` takes effect in a running service. Until a
password exists the service holds a one-time setup token; whoever presents it
first sets the password (``POST /api/v1/auth/setup``).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
import time
from pathlib import Path

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from sovereign.strict_json import loads_strict

from .atomic import write_json_atomic

logger = logging.getLogger(__name__)

OWNER_FILENAME = "console-auth.json"
MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 1024


class PasswordRejected(ValueError):
    """The proposed password does not meet the rules; the message says which, in English.

    ``key`` (the ``console`` catalog's context), ``english`` (with ``{count}``) and
    ``count`` let the service say the same rule in the reader's language.
    """

    def __init__(self, key: str, english: str, count: int) -> None:
        self.key, self.english, self.count = key, english, count
        super().__init__(english.format(count=count))


TOO_SHORT = ("password_too_short", "The password needs at least {count} characters.")
TOO_LONG = ("password_too_long", "The password may have at most {count} characters.")
"""The password rules' sentences, as (catalog key, English); the first is also the
Console's own check before it sends (``console/console-words.js``)."""


def check_password_rules(password: str) -> None:
    """Raise :class:`PasswordRejected` unless 8 to 1024 characters, not all whitespace."""
    if len(password) < MIN_PASSWORD_LENGTH or not password.strip():
        raise PasswordRejected(*TOO_SHORT, MIN_PASSWORD_LENGTH)
    if len(password) > MAX_PASSWORD_LENGTH:
        raise PasswordRejected(*TOO_LONG, MAX_PASSWORD_LENGTH)


class OwnerAccount:
    """Reads, sets and verifies the owner's password.

    Args:
        data_dir: the service's data directory.
        hasher: an argon2 ``PasswordHasher`` (default parameters of argon2-cffi:
            argon2id, 64 MiB, 3 passes); tests pass a cheaper one.
    """

    def __init__(self, data_dir: Path, hasher: PasswordHasher | None = None) -> None:
        self.path = Path(data_dir) / OWNER_FILENAME
        self.hasher = hasher or PasswordHasher()
        self._lock = threading.Lock()
        self._setup_token: str | None = None

    def _stored_hash(self) -> str | None:
        try:
            record = loads_strict(self.path.read_bytes())  # two hashes: which one? neither
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return ""  # present but unusable: nobody can sign in, nobody can re-run setup
        value = record.get("password_hash") if isinstance(record, dict) else None
        return value if isinstance(value, str) else ""

    def is_set_up(self) -> bool:
        """True once a password file exists (even an unreadable one: setup never overwrites)."""
        return self._stored_hash() is not None

    def setup_token(self) -> str | None:
        """The one-time setup token while no password exists, else ``None``."""
        with self._lock:
            if self.is_set_up():
                self._setup_token = None
            elif self._setup_token is None:
                self._setup_token = secrets.token_urlsafe(24)
            return self._setup_token

    def complete_setup(self, token: str, password: str) -> bool:
        """Set the first password if ``token`` is the current setup token.

        Returns:
            True when the password was set; False for a wrong token, or when a
            password already exists (exactly one of two racing setups wins).

        Raises:
            PasswordRejected: the password breaks :func:`check_password_rules`.
            OSError: the file cannot be written; the setup token stays valid.
        """
        check_password_rules(password)
        expected = self.setup_token()
        if expected is None or not hmac.compare_digest(token.encode(), expected.encode()):
            return False
        record = self._record(password)
        with self._lock:
            if self._setup_token != expected:
                return False
            try:
                write_json_atomic(self.path, record, exclusive=True)
            except FileExistsError:
                return False
            self._setup_token = None
        return True

    def set_password(self, password: str) -> None:
        """Replace (or create) the password, as ``sovereign passwd`` does.

        Raises:
            PasswordRejected: the password breaks the rules.
            OSError: the file cannot be written (the old one is untouched).
        """
        check_password_rules(password)
        write_json_atomic(self.path, self._record(password))

    def verify(self, password: str) -> bool:
        """True when ``password`` matches the stored hash; False otherwise or when none is set.

        CPU-bound (tens of milliseconds): call it from a worker thread.
        """
        stored = self._stored_hash()
        if not stored:
            return False
        try:
            self.hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False
        if self.hasher.check_needs_rehash(stored):
            try:
                self.set_password(password)
            except OSError as exc:  # bookkeeping only: sign-in still succeeds
                logger.warning("password hash not upgraded in %s: %s", self.path, exc)
        return True

    def generation(self) -> str:
        """A digest of the password file, which changes with every password set.

        Every hash has a fresh salt, so the digest differs after each change.
        Sessions remember the generation they were opened under, so changing the
        password (here or with ``sovereign passwd``) signs every session out.
        ``""`` when there is no readable file.
        """
        try:
            return hashlib.sha256(self.path.read_bytes()).hexdigest()
        except OSError:
            return ""

    def _record(self, password: str) -> dict[str, str]:
        return {
            "password_hash": self.hasher.hash(password),
            "set_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
