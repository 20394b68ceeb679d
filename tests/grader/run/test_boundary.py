"""Issue 20: a test owns nothing, creates no namespace or kernel object, and the parent checks the
boundary it got from outside, refusing (JE with the reason) one weaker than the level promises.

Every probe is student code in the throw-away exercise `toy` (tests/grader/run/test_isolation.py):
it returns `2 * n` only when every attack failed, else what it managed, so AC is the safe outcome.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader.judge.calibration import resolve_limits
from grader.judge.grade import grade, select_tests
from grader.judge.testrun import Grader, prepared_submission
from grader.report.reports import results_json
from grader.run import cgroup
from grader.run.boundary import TEST_UID_BASE
from grader.run.sandbox import promise
from grader.suite.load import load_suite
from tests.grader.run.test_isolation import SANDBOXES, _answer, _toy, _verdicts

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="the uid switch and cgroups need root")

PRELUDE = """
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
def refused(result):
    return result < 0 and ctypes.get_errno() in (errno.EPERM, errno.EACCES, errno.ENOSYS)
"""


@root_only
@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_no_namespace_mount_or_key_can_be_made(project: Path, sandbox: str) -> None:
    body = """
        made = []
        for name, flag in {"user": 0x10000000, "mount": 0x20000, "cgroup": 0x02000000,
                           "pid": 0x20000000, "net": 0x40000000, "ipc": 0x08000000}.items():
            if not refused(libc.unshare(flag)):
                made.append("unshare " + name)
        os.makedirs("cg", exist_ok=True)
        if not refused(libc.mount(b"cgroup", b"cg", b"cgroup", 0, b"cpuacct")):
            made.append("mount cgroup")
        if not refused(libc.mount(b"none", b"cg", b"tmpfs", 0, None)):
            made.append("mount tmpfs")
        if not refused(libc.syscall(248, b"user", b"stash", b"42", 3, ctypes.c_int(-4))):
            made.append("add_key")
        if not refused(libc.syscall(250, 0, ctypes.c_int(-4), 0, 0, 0)):  # keyctl(GET_KEYRING_ID)
            made.append("keyctl")
        if not refused(libc.syscall(101, 16, 1, 0, 0)):  # ptrace(PTRACE_ATTACH, 1)
            made.append("ptrace")
        if not refused(libc.shmget(0x67726164, 4096, 0o1600)):  # IPC_CREAT
            made.append("System V shared memory")
        if not refused(libc.msgget(0x67726164, 0o1600)):
            made.append("System V message queue")
        import fcntl, socket
        try:
            socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            made.append("inet socket")
        except OSError:
            pass
        with open(__file__, "rb") as shared:  # every sandbox of the class reads this file
            for how, lock in (("flock", lambda: fcntl.flock(shared, fcntl.LOCK_SH | fcntl.LOCK_NB)),
                              ("lockf", lambda: fcntl.lockf(shared, fcntl.LOCK_SH | fcntl.LOCK_NB))):
                try:
                    lock()
                    made.append(how)
                except OSError:
                    pass
        return 2 * n if not made else made
    """
    assert _verdicts(project, _answer(body, PRELUDE), sandbox) == ["AC", "AC"]


@root_only
@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_the_test_runs_unprivileged_under_seccomp_and_no_new_privs(project: Path, sandbox: str) -> None:
    body = f"""
        seen = dict(uid=os.getuid(), euid=os.geteuid(), groups=os.getgroups(),
                    seccomp=libc.prctl(21, 0, 0, 0, 0), nnp=libc.prctl(39, 0, 0, 0, 0))
        ok = (seen["uid"] == seen["euid"] >= {TEST_UID_BASE} and not seen["groups"]
              and seen["seccomp"] == 2 and seen["nnp"] == 1)
        if os.path.exists("/proc/self/status"):
            status = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines())
            ok = ok and all(int(status[k], 16) == 0 for k in ("CapEff", "CapPrm", "CapBnd"))
        return 2 * n if ok else seen
    """
    assert _verdicts(project, _answer(body, PRELUDE), sandbox) == ["AC", "AC"]


@root_only
def test_cgroup_files_are_not_the_tests_to_write(project: Path) -> None:
    """The process sandbox shows /sys read-only; even a writable one belongs to root, not the test."""
    body = """
        written = []
        for top in ("/sys/fs/cgroup",):
            for folder, _, files in os.walk(top):
                for name in files:
                    if name in ("cpuacct.usage", "memory.limit_in_bytes", "pids.max",
                                "freezer.state", "cgroup.procs"):
                        try:
                            with open(os.path.join(folder, name), "w") as target:
                                target.write("0")
                            written.append(os.path.join(folder, name))
                        except OSError:
                            pass
                if len(written) > 3:
                    break
        return 2 * n if not written else written
    """
    assert _verdicts(project, _answer(body, PRELUDE), "process") == ["AC", "AC"]


@root_only
@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_test_sits_in_its_own_group_in_every_hierarchy(project: Path, sandbox: str) -> None:
    submission = _toy(project, _answer("return 2 * n"))
    loaded = load_suite("toy")
    tests = select_tests(loaded, False, None)
    with prepared_submission(loaded, submission) as (prepared, scratch):
        limits = resolve_limits(loaded, tests, sandbox)  # type: ignore[arg-type]
        with Grader(loaded, prepared, scratch, limits, sandbox) as grader:  # type: ignore[arg-type]
            judgement, _ = grader.grade_test(tests[0])
            got = grader.server.boundary
    assert judgement.verdict.value == "AC"
    assert got is not None
    assert got.cgroups == frozenset(cgroup.every_hierarchy())
    assert "freezer" in got.cgroups or "freezer" not in cgroup.every_hierarchy()


@root_only
def test_a_boundary_weaker_than_promised_runs_nothing_and_says_why(project: Path) -> None:
    """Tests of the container level have no namespaces; held to the process level's promise of
    them, every test is JE naming what is missing, and the submission's code never ran."""
    marker = project / "ran"
    submission = _toy(project, _answer(f"open({str(marker)!r}, 'w'); return 2 * n"))
    loaded = load_suite("toy")
    tests = select_tests(loaded, False, None)
    with prepared_submission(loaded, submission) as (prepared, scratch):
        limits = resolve_limits(loaded, tests, "process")
        with Grader(loaded, prepared, scratch, limits, "container") as grader:
            grader.server.promise = promise("process", grader.server.test_uid)
            judgement, _ = grader.grade_test(tests[0])
    assert judgement.verdict.value == "JE"
    assert "weaker than the sandbox promises" in judgement.message
    assert "pid, mnt" in judgement.message or "ipc, mnt, net, pid" in judgement.message
    assert not marker.exists()


@root_only
@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_results_json_states_the_boundary_the_tests_got(project: Path, sandbox: str) -> None:
    submission = _toy(project, _answer("return 2 * n"))
    report = grade(load_suite("toy"), submission, sandbox=sandbox)
    data = json.loads(json.dumps(results_json(report)))
    stated = data["extra_data"]["boundary"]
    assert data["extra_data"]["sandbox"] == sandbox
    assert "seccomp" in stated and "no capabilities" in stated and "namespaces: pid mnt ipc net" in stated


@root_only
@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_key_added_by_one_test_is_not_seen_by_the_next(project: Path, sandbox: str) -> None:
    body = """
        found = libc.syscall(250, 10, b"user", b"grader-stash", 0)  # keyctl(SEARCH, ...)
        if found >= 0:
            return ["found a key an earlier test left", found]
        added = libc.syscall(248, b"user", b"grader-stash", b"42", 2, ctypes.c_int(-4))
        return 2 * n if added < 0 else ["added a key", added]
    """
    assert _verdicts(project, _answer(body, PRELUDE), sandbox) == ["AC", "AC"]


FREEZER = Path("/sys/fs/cgroup/freezer")


@root_only
@pytest.mark.skipif(not (FREEZER / "cgroup.procs").exists(), reason="no cgroup v1 freezer here")
def test_a_test_cannot_freeze_a_grader_that_sits_in_a_delegated_freezer_group(project: Path) -> None:
    """The grader runs in a freezer group of its own (as in a container or a systemd service);
    the test tries the mount trick and the plain path: the grader finishes, never frozen."""
    body = """
        tried = []
        os.makedirs("fz", exist_ok=True)
        if libc.unshare(0x10000000 | 0x20000 | 0x02000000) == 0:
            tried.append("unshare")
        if libc.mount(b"cgroup", b"fz", b"cgroup", 0, b"freezer") == 0:
            tried.append("mount")
        for path in ["/sys/fs/cgroup/freezer/freezer.state"] + (["fz/freezer.state"] if tried else []):
            try:
                with open(path, "w") as state:
                    state.write("FROZEN")
                tried.append(path)
            except OSError:
                pass
        return 2 * n if not tried else tried
    """
    submission = _toy(project, _answer(body, PRELUDE))
    group = FREEZER / f"grader-test-{os.getpid()}"
    group.mkdir()
    try:
        script = (
            "import sys; from pathlib import Path; from grader.judge.grade import grade; "
            "from grader.suite.load import load_suite; "
            f"r = grade(load_suite('toy'), Path({str(submission)!r}), sandbox='process'); "
            "print(' '.join(x.verdict.value for x in r.results)); "
            "print(r.results[0].message, file=sys.stderr)"
        )
        command = ["sh", "-c", f'echo $$ > {group}/cgroup.procs && exec "$0" -c "$1"', sys.executable, script]
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "GRADER_ROOT": str(project)},
        )
        state = (group / "freezer.state").read_text().strip()
    finally:
        (group / "freezer.state").write_text("THAWED")
        group.rmdir()
    assert state == "THAWED"
    assert done.stdout.split() == ["AC", "AC"], done.stderr


def test_every_refused_call_is_written_down_with_its_reason() -> None:
    from grader.exercise import project_root
    from grader.run.policy import REFUSED, compiled

    text = (project_root() / "docs" / "isolation.md").read_text()
    missing = [call for call, why in REFUSED.items() if f"- `{call}`: {why}" not in text]
    assert not missing, f"docs/isolation.md lacks the reason of {missing}"
    assert set(compiled().refused) >= {"unshare", "setns", "mount", "keyctl", "ptrace", "bpf"}
