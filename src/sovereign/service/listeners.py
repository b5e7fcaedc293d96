"""The service owns every loopback address of its port, or does not start (DESIGN §5).

Browsers resolve ``sovereign.localhost`` (and ``localhost``) themselves, to ``::1``
first and ``127.0.0.1`` second. A service listening on 127.0.0.1 alone leaves
``[::1]:<port>`` to whichever program binds it first, and that program then
receives everything the household's browser sends to the Console's address: the
setup link, the password, the cookies. So when the service serves on loopback it
binds both addresses itself (:func:`listen_addresses`, :func:`bind_listeners`), and
when another program already holds one of them it refuses to start and names that
program (:class:`AddressTaken`, found through ``/proc``: :func:`holder_of`).
``sovereign doctor`` checks a running device the same way
(:func:`check_loopback_ownership`). Decision record:
docs/decisions/cookie-is-not-a-session.md ("Who answers at the Console's name").
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import os
import pwd
import socket
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sovereign.cli_words import CliWords

IPV4_LOOPBACK = "127.0.0.1"
IPV6_LOOPBACK = "::1"
PROC_NET = Path("/proc/net")
PROC = Path("/proc")
_LISTEN = "0A"
"""``st`` of a listening socket in /proc/net/tcp (TCP_LISTEN)."""
FREE_PORT_TRIES = 20
_NO_IPV6 = frozenset({errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT, errno.EPROTONOSUPPORT})


class AddressTaken(OSError):
    """Another program listens on an address the service must own; the message names it."""


def listen_addresses(host: str, extra: Iterable[str] = ()) -> list[str]:
    """The addresses ``sovereign serve --host host`` binds.

    Args:
        host: the ``--host`` value.
        extra: further addresses the allowed names resolve to; the loopback ones
            among them are bound too when serving on loopback.

    Returns:
        For a loopback host, that address (or 127.0.0.1 for ``localhost``/``::1``),
        ``::1`` and the extra loopback addresses; for ``0.0.0.0``, it and ``::1``
        (IPv4's wildcard leaves IPv6 loopback to anyone); ``::`` alone (both
        families); any other address alone.
    """
    if host in ("", "::"):
        return ["::"]
    if host == "0.0.0.0":  # noqa: S104 - the household asked for every address
        return [host, IPV6_LOOPBACK]
    if not _is_loopback(host):
        return [host]
    first = host if host.startswith("127.") else IPV4_LOOPBACK
    wanted = [first, IPV6_LOOPBACK, *(a for a in extra if _is_loopback(a))]
    return list(dict.fromkeys(_canonical(a) for a in wanted))


def resolved_loopback(names: Iterable[str]) -> list[str]:
    """Loopback addresses the system resolver gives ``names`` (unresolvable ones skipped)."""
    found: list[str] = []
    for name in names:
        with contextlib.suppress(OSError, UnicodeError):
            for info in socket.getaddrinfo(name, None, type=socket.SOCK_STREAM):
                address = str(info[4][0]).split("%")[0]
                if _is_loopback(address):
                    found.append(_canonical(address))
    return list(dict.fromkeys(found))


def bind_listeners(
    addresses: list[str], port: int, *, backlog: int = 2048
) -> list[socket.socket]:
    """Listening sockets on every address at ``port``: all or none.

    ``port`` 0 picks a free port on the first address and uses it for the rest
    (trying another when a program holds it on a later address). ``::1`` where this
    device has no IPv6 is skipped: nobody can hold it then.

    Raises:
        AddressTaken: another program listens on one of them (named when ``/proc``
            shows it); the sockets bound so far are closed.
        OSError: any other failure to bind (permission, address not on this device).
    """
    for _ in range(FREE_PORT_TRIES if port == 0 else 1):
        try:
            return _bind_all(addresses, port, backlog)
        except AddressTaken:
            if port != 0:
                raise
    raise AddressTaken(errno.EADDRINUSE, "no port was free on every loopback address")


def _bind_all(addresses: list[str], port: int, backlog: int) -> list[socket.socket]:
    sockets: list[socket.socket] = []
    try:
        for address in addresses:
            bound = _bind(address, port)
            if bound is not None:
                sockets.append(bound)
                port = port or bound.getsockname()[1]
        for bound in sockets:
            bound.listen(backlog)
    except OSError:
        for bound in sockets:
            bound.close()
        raise
    return sockets


def _bind(address: str, port: int) -> socket.socket | None:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    try:
        sock = socket.socket(family, socket.SOCK_STREAM)
    except OSError as exc:
        if family == socket.AF_INET6 and exc.errno in _NO_IPV6:
            return _without_ipv6(address, port, exc)
        raise
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT only
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0 if address == "::" else 1)
        sock.bind((address, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            holder = holder_of(address, port)
            taken = f"{_show(address, port)} is already held by {holder}"
            raise AddressTaken(errno.EADDRINUSE, taken) from exc
        if address == IPV6_LOOPBACK and exc.errno in _NO_IPV6:
            return _without_ipv6(address, port, exc)
        raise
    sock.set_inheritable(False)
    return sock


def _without_ipv6(address: str, port: int, exc: OSError) -> None:
    """This process cannot use IPv6. Fine when the device has no IPv6 loopback (nobody
    can hold ``[::1]``); a refusal when it has one (a sandbox denying IPv6 to the
    service would leave ``[::1]`` to any other program).

    Raises:
        OSError: the device has IPv6 loopback.
    """
    if not device_has_ipv6_loopback():
        return None
    raise OSError(
        exc.errno,
        f"this service may not use IPv6, but this device has it: any other program could "
        f"take {_show(address, port)}; allow AF_INET6 to the service",
    ) from exc


def device_has_ipv6_loopback(proc_net: Path = PROC_NET) -> bool:
    """True when the kernel lists ``::1`` on an interface (``/proc/net/if_inet6``)."""
    try:
        lines = (proc_net / "if_inet6").read_text().splitlines()
    except FileNotFoundError:
        return False
    except OSError:
        return True  # cannot tell: assume the worse
    return any(line.split()[:1] == ["0" * 31 + "1"] for line in lines)


@dataclass(frozen=True)
class Listener:
    """One listening TCP socket of this device, as ``/proc/net/tcp{,6}`` shows it."""

    address: str
    port: int
    uid: int
    inode: int


def listeners(port: int, proc_net: Path = PROC_NET) -> list[Listener]:
    """Every listening socket on ``port``, IPv4 and IPv6; empty when /proc is unreadable."""
    found = []
    for name in ("tcp", "tcp6"):
        try:
            lines = (proc_net / name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            listener = parse_proc_line(line)
            if listener is not None and listener.port == port:
                found.append(listener)
    return found


def parse_proc_line(line: str) -> Listener | None:
    """A ``/proc/net/tcp{,6}`` line as a :class:`Listener`, or ``None`` when not listening."""
    fields = line.split()
    if len(fields) < 10 or fields[3] != _LISTEN:
        return None
    hex_address, _, hex_port = fields[1].partition(":")
    try:
        raw = b"".join(
            int(hex_address[i : i + 8], 16).to_bytes(4, sys.byteorder)
            for i in range(0, len(hex_address), 8)
        )
        address = str(ipaddress.ip_address(raw))
        return Listener(address, int(hex_port, 16), int(fields[7]), int(fields[9]))
    except ValueError:
        return None


def pids_of(inode: int, proc: Path = PROC) -> list[int]:
    """Processes holding socket ``inode`` (only those this user may inspect)."""
    target = f"socket:[{inode}]"
    pids = []
    for entry in proc.iterdir() if proc.is_dir() else ():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if any(os.readlink(fd) == target for fd in (entry / "fd").iterdir()):
                pids.append(int(entry.name))
    return pids


def holder_of(address: str, port: int) -> str:
    """Who listens on ``address:port``, in words: ``process 4242 (python3 squat.py)``,
    the user when the process is not visible to us, or "another program"."""
    listener = _covering(listeners(port), _canonical(address))
    return "another program" if listener is None else _describe(listener)


def _command(pid: int, proc: Path = PROC) -> str:
    try:
        raw = (proc / str(pid) / "cmdline").read_bytes()
    except OSError:
        return "?"
    words = raw.rstrip(b"\0").split(b"\0")
    text = " ".join(w.decode("utf-8", "replace") for w in words)
    return "".join(c if c.isprintable() else "?" for c in text)[:120] or "?"


def _user(uid: int) -> str:
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _canonical(address: str) -> str:
    if address == "localhost":
        return IPV4_LOOPBACK
    return str(ipaddress.ip_address(address))


def _show(address: str, port: int) -> str:
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


def ipv6_loopback_exists() -> bool:
    """True when this device can bind ``::1`` (so another program could, too)."""
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind((IPV6_LOOPBACK, 0))
    except OSError:
        return False
    return True


def check_loopback_ownership(
    port: int, words: CliWords | None = None, *, proc_net: Path = PROC_NET
) -> tuple[bool, str]:
    """For ``sovereign doctor``: ``(ok, sentence)``: does one program, the service, hold
    both ``127.0.0.1:<port>`` and ``[::1]:<port>`` on this running device? Said in
    ``words``' language (English by default)."""
    words = words or CliWords()
    found = listeners(port, proc_net)
    v4, v6 = _covering(found, IPV4_LOOPBACK), _covering(found, IPV6_LOOPBACK)
    name = f"sovereign.localhost:{port}"
    if v4 is None and v6 is None:
        return True, words.say("console_nothing_listens", port=port)
    if v6 is None:
        if not ipv6_loopback_exists():
            return True, words.say("console_no_ipv6_loopback", port=port)
        return False, words.say("console_ipv6_free", port=port, name=name)
    if v4 is None:
        return False, words.say("console_ipv4_nobody", port=port, holder=_said(v6, words))
    if not _same_owner(v4, v6):
        return False, words.say("console_other_program", port=port, holder=_said(v6, words),
                                service=_said(v4, words), name=name)  # fmt: skip
    return True, words.say("console_one_program", port=port, holder=_said(v4, words))


def _covering(found: list[Listener], address: str) -> Listener | None:
    wildcard = "::" if ":" in address else "0.0.0.0"  # noqa: S104 - a name, not a bind
    exact = [listener for listener in found if listener.address == address]
    wide = [listener for listener in found if listener.address in (wildcard, "::")]
    return (exact or wide or [None])[0]


def _same_owner(first: Listener, second: Listener) -> bool:
    if first.inode == second.inode:
        return True
    pids_first, pids_second = set(pids_of(first.inode)), set(pids_of(second.inode))
    if pids_first and pids_second:
        return bool(pids_first & pids_second)
    return first.uid == second.uid  # not visible to us: the same account at least


def _describe(listener: Listener) -> str:
    pids = pids_of(listener.inode)
    if pids:
        return ", ".join(f"process {pid} ({_command(pid)})" for pid in pids)
    return f"a program of user {_user(listener.uid)}"


def _said(listener: Listener, words: CliWords) -> str:
    """:func:`_describe` in ``words``' language: the processes, or the user's program."""
    pids = pids_of(listener.inode)
    if pids:
        processes = [words.say("console_process", pid=pid, command=_command(pid)) for pid in pids]
        return ", ".join(processes)
    return words.say("console_user_program", user=_user(listener.uid))
