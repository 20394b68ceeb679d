"""What boundary a test actually got, read by the parent from outside, and what each level promises.

The test confines itself (`box/confine.py`; `box/testprocess.confine_ahead`, then
`apply_request`) and then waits; before it may run anything of its request, the parent reads its
kernel state from /proc (not from anything the test says): its user ids as the kernel knows them,
its capability sets, no_new_privs, seccomp, its namespaces against the fork server's and the
grader's, and (after the move) its cgroups. `shortfalls` compares that with the level's `Promise`;
any shortfall is the test's JE with the reason, and nothing of the request runs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

NAMESPACES = ("pid", "mnt", "ipc", "net")
TEST_UID_BASE = 0x40000000  # test uids: far above any account's and subordinate id range


class BoundaryUnreadable(OSError):
    """The test's /proc entry could not be read (it ended before it could be checked)."""


@dataclass(frozen=True)
class Boundary:
    """A test's kernel state just before it runs anything of its request."""

    uids: tuple[int, ...]  # real, effective, saved, file system; as the kernel (not the test) sees
    capabilities: int  # effective | permitted | inheritable | ambient
    bounding: int
    no_new_privs: bool
    seccomp: bool
    namespaces: frozenset[str]  # of NAMESPACES, those the test does not share with the grader
    cgroups: frozenset[str]  # hierarchies in which it sits in its own group

    def describe(self) -> str:
        uid = self.uids[0] if len(set(self.uids)) == 1 else "/".join(map(str, self.uids))
        return (
            f"uid {uid}, {'seccomp' if self.seccomp else 'no seccomp'}, "
            f"{'no_new_privs' if self.no_new_privs else 'privileges can be gained'}, "
            f"{'no capabilities' if not self.capabilities else 'capabilities'}, "
            f"namespaces: {' '.join(n for n in NAMESPACES if n in self.namespaces) or 'none'}, "
            f"own cgroup in {len(self.cgroups)} hierarchies"
        )


@dataclass(frozen=True)
class Promise:
    """What a sandbox level guarantees on this host (`grader.run.sandbox.promise`)."""

    uid: int | None  # the kernel uid the test must have; None: the grader's own (not root)
    namespaces: frozenset[str]
    cgroups: frozenset[str]  # every hierarchy the grader can make groups in
    empty_bounding: bool


def test_uid(slot: int) -> int:
    """The unprivileged uid of one fork server's tests: unique among live graders (by pid)."""
    return TEST_UID_BASE + ((os.getpid() << 5) | (slot & 31))


def _status(pid: int) -> dict[str, str]:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError as error:
        raise BoundaryUnreadable(error.errno, f"the test's status is gone ({error.strerror})") from error
    fields = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


def _namespace(pid: int | str, name: str) -> str:
    try:
        return os.readlink(f"/proc/{pid}/ns/{name}")
    except OSError:
        return ""


def _cgroups(pid: int) -> dict[str, str]:
    try:
        text = Path(f"/proc/{pid}/cgroup").read_text()
    except OSError:
        return {}
    return {
        controllers: path
        for _, controllers, path in (line.split(":", 2) for line in text.splitlines() if line.count(":") >= 2)
    }


def namespaces_of(server: int) -> dict[str, str]:
    """The namespaces a test must not share: the fork server's (pid, mnt, ipc) and the
    grader's network (bubblewrap's network is the server's): read once per fork server."""
    return {name: _namespace("self" if name == "net" else server, name) for name in NAMESPACES}


def read(test: int, outside: dict[str, str], groups: dict[str, Path]) -> Boundary:
    """The test's boundary as the kernel shows it; `outside`: `namespaces_of` its fork server;
    `groups`: the folders it was moved into."""
    status = _status(test)
    try:
        uids = tuple(int(value) for value in status["Uid"].split())
        capabilities = 0
        for key in ("CapEff", "CapPrm", "CapInh", "CapAmb"):
            capabilities |= int(status.get(key, "0"), 16)
        bounding = int(status["CapBnd"], 16)
    except (KeyError, ValueError) as error:
        raise BoundaryUnreadable(0, f"the test's status is malformed ({error})") from error
    own = set()
    for name in NAMESPACES:
        mine = _namespace(test, name)
        if mine and outside.get(name) and mine != outside[name]:
            own.add(name)
    placed = _cgroups(test)
    cgroups = frozenset(
        key
        for key, folder in groups.items()
        if key in placed
        and str(folder).endswith(placed[key].rstrip("/"))
        and placed[key].rstrip("/").endswith("/" + folder.name)
    )
    return Boundary(
        uids=uids,
        capabilities=capabilities,
        bounding=bounding,
        no_new_privs=status.get("NoNewPrivs") == "1",
        seccomp=status.get("Seccomp") == "2",
        namespaces=frozenset(own),
        cgroups=cgroups,
    )


def shortfalls(got: Boundary, promise: Promise) -> list[str]:
    """How `got` falls short of `promise` (empty: it keeps it)."""
    problems = []
    expected_uid = promise.uid if promise.uid is not None else os.geteuid()
    if set(got.uids) != {expected_uid} or 0 in got.uids:
        problems.append(f"runs as uid {'/'.join(map(str, got.uids))}, not {expected_uid}")
    if got.capabilities:
        problems.append(f"holds capabilities ({got.capabilities:#x})")
    if promise.empty_bounding and got.bounding:
        problems.append(f"could regain capabilities (bounding set {got.bounding:#x})")
    if not got.no_new_privs:
        problems.append("could gain privileges (no_new_privs is off)")
    if not got.seccomp:
        problems.append("has no seccomp filter")
    if missing := sorted(promise.namespaces - got.namespaces):
        problems.append(f"shares the {', '.join(missing)} namespace(s) with the grader")
    if missing := sorted(promise.cgroups - got.cgroups):
        problems.append(f"shares the grader's cgroup in {', '.join(m or 'unified' for m in missing)}")
    return problems
