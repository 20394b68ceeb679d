"""Nothing left behind: a grader or a batch stopped by SIGTERM, SIGINT or SIGKILL mid-run.

Each test starts a real grader (`python -m grader grade ... [--batch]`) in a subprocess under
`tests/reaper.py`, a subreaper that says when no process of it is left, while another batch (the
live one) runs beside it in the same scratch folder. It signals the grader while its tests run,
then checks from outside: SIGTERM and SIGINT leave no process, scratch folder, cgroup or
semaphore even before anything else runs; after SIGKILL, the next grader that starts removes them.
The live batch keeps every process, folder, cgroup and semaphore it had throughout.
Scratch goes to a temporary TMPDIR of the test's own; cgroups and /dev/shm are shared with every
grader on the machine, so only what names a process of these graders is looked at.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from grader import owners
from grader.cli import main
from grader.exercise import project_root
from grader.run.cgroup import GROUP_PREFIX, end_group, hierarchies
from tests.toy_class import REFERENCE, RIGHT

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")]

REAPER = Path(__file__).resolve().parents[2] / "reaper.py"
WAIT_S = 120.0  # a bound on every wait, never a measure: a slow machine only waits longer
SUITE = """\
exercise: toy
title: Doubling
submit: [toy.py]
limits: {cpu_s: 2, wall_s: 900}
tests:
  - name: double
    points: 2
    call: toy.double
    cases: [[1], [2], [5]]
  - name: twice
    points: 1
    call: toy.double
    cases: [[3]]
"""
SLEEPER = "import time\ntime.sleep(600)\n" + RIGHT  # in its test until asleep, using no CPU
LIVE_STUDENTS = 60  # the live batch's sleepers, one at a time: it outlasts every case (minutes)


class Reaped:
    """A grader run under tests/reaper.py."""

    def __init__(self, arguments: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        self.reaper = subprocess.Popen(
            [sys.executable, str(REAPER), str(log), sys.executable, "-m", "grader", *arguments],
            stdout=subprocess.PIPE,
            env=env,
            cwd=project_root(),
        )
        self.buffer = b""
        self.pid: int = self._next("pid")
        self.seen: set[int] = {self.pid}  # every process of it seen so far (owners of its files)
        self.exit_code: int | None = None
        self.gone = False

    def _next(self, key: str) -> int:
        """The value of the reaper's next line, which must be `key` (bounded wait)."""
        assert self.reaper.stdout is not None
        deadline = time.monotonic() + WAIT_S
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            ready = select.select([self.reaper.stdout], [], [], max(0.0, left))[0]
            chunk = os.read(self.reaper.stdout.fileno(), 4096) if ready else b""
            if not chunk:
                pytest.fail(
                    f"no '{key}' from the reaper within {WAIT_S} s; still running: "
                    f"{self.describe()}\n{self.output()}"
                )
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        message = json.loads(line)
        assert key in message, (message, self.output())
        return int(message[key])

    def processes(self) -> list[psutil.Process]:
        """What is left of it now (the reaper's descendants), noting their pids."""
        try:
            found = psutil.Process(self.reaper.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []
        found = [p for p in found if _status(p) not in (None, psutil.STATUS_ZOMBIE)]
        self.seen.update(p.pid for p in found)
        return found

    def describe(self) -> str:
        return ", ".join(f"{p.pid} {' '.join(p.cmdline()[:4])}" for p in self.processes()) or "-"

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-2000:]

    def wait_exit(self) -> int:
        self.exit_code = self._next("exit")
        return self.exit_code

    def wait_gone(self) -> None:
        if self.exit_code is None:
            self.wait_exit()
        self._next("gone")
        self.gone = True
        self.reaper.wait()

    def running(self) -> bool:
        """Whether the grader's own process (not only what it left) is still there."""
        try:
            return self.exit_code is None and _status(psutil.Process(self.pid)) not in (
                None,
                psutil.STATUS_ZOMBIE,
            )
        except psutil.NoSuchProcess:
            return False

    def end(self) -> None:
        """Teardown: kill whatever is left of it (only its own processes), then the reaper."""
        for process in self.processes():
            with contextlib.suppress(psutil.NoSuchProcess):
                process.kill()
        self.reaper.kill()
        self.reaper.wait()


def _status(process: psutil.Process) -> str | None:
    try:
        return str(process.status())
    except psutil.NoSuchProcess:
        return None


@dataclass
class Leftovers:
    """The scratch folders, cgroups and semaphores that name one of `pids` as their owner."""

    scratch: set[Path]
    cgroups: set[Path]
    semaphores: set[Path]

    @classmethod
    def of(cls, pids: set[int], tmpdir: Path) -> Leftovers:
        def owned(path: Path, prefix: str) -> bool:
            owner = owners.owner_in(path.name, prefix)
            return owner is not None and owner.pid in pids

        scratch = {p for p in tmpdir.iterdir() if owned(p, owners.SCRATCH_PREFIX)}
        groups = {
            group
            for base in {hierarchy.base for hierarchy in hierarchies().values()}
            for group in base.glob(f"{GROUP_PREFIX}*")
            if owned(group, GROUP_PREFIX)
        }
        semaphores = {p for p in owners.SHM.iterdir() if owned(p, f"sem.{owners.SEMAPHORE_PREFIX}")}
        return cls(scratch, groups, semaphores)

    def existing(self) -> Leftovers:
        return Leftovers(
            {p for p in self.scratch if p.exists()},
            {p for p in self.cgroups if p.exists()},
            {p for p in self.semaphores if p.exists()},
        )

    def empty(self) -> bool:
        return not (self.scratch or self.cgroups or self.semaphores)


@dataclass
class Setting:
    project: Path
    tmpdir: Path
    env: dict[str, str]
    logs: Path
    started: list[Reaped]

    def start(self, *arguments: str, name: str) -> Reaped:
        run = Reaped([*arguments, "--sandbox", "process"], self.env, self.logs / f"{name}.log")
        self.started.append(run)
        return run

    def batch(self, folder: str, name: str, jobs: int = 2) -> Reaped:
        out = self.project / f"out-{name}"
        return self.start(
            "grade",
            "toy",
            str(self.project / folder),
            "--batch",
            "-j",
            str(jobs),
            "--out",
            str(out),
            name=name,
        )

    def leftovers(self, run: Reaped) -> Leftovers:
        return Leftovers.of(run.seen, self.tmpdir)


@pytest.fixture
def setting(project: Path, tmp_path: Path) -> Iterator[Setting]:
    (project / "exercises" / "toy").mkdir()
    (project / "reference" / "toy").mkdir()
    (project / "fixtures" / "toy").mkdir()
    (project / "exercises" / "toy" / "toy.py").write_text("")
    (project / "reference" / "toy" / "toy.py").write_text(REFERENCE)
    (project / "fixtures" / "toy" / "suite.yaml").write_text(SUITE)
    assert main(["record", "toy"]) == 0
    for student, code in [("s0", RIGHT), *((f"s{n}", SLEEPER) for n in range(1, 6))]:
        (project / "victims" / student).mkdir(parents=True)
        (project / "victims" / student / "toy.py").write_text(code)
    for student in range(LIVE_STUDENTS):  # each of their tests ends as asleep after 3 s
        (project / "live" / f"l{student}").mkdir(parents=True)
        (project / "live" / f"l{student}" / "toy.py").write_text(SLEEPER)
    (project / "fast" / "f0").mkdir(parents=True)
    (project / "fast" / "f0" / "toy.py").write_text(RIGHT)
    # short: multiprocessing's socket goes in a folder of TMPDIR (an AF_UNIX path is <= 107 bytes)
    tmpdir = Path(tempfile.mkdtemp(prefix="lo-"))
    logs = tmp_path / "logs"
    logs.mkdir()
    env = {**os.environ, "GRADER_ROOT": str(project), "TMPDIR": str(tmpdir)}
    env.pop("GRADER_SCRATCH", None)
    here = Setting(project, tmpdir, env, logs, [])
    try:
        yield here
    finally:
        for run in here.started:
            run.end()
        _remove(Leftovers.of(set().union(*(run.seen for run in here.started)), tmpdir))
        shutil.rmtree(tmpdir, ignore_errors=True)


def _remove(leftovers: Leftovers) -> None:
    """Teardown after a failure: what our own (killed) graders left."""
    for path in leftovers.semaphores:
        path.unlink(missing_ok=True)
    for group in leftovers.cgroups:
        end_group(group)


def _until(condition: Callable[[], bool], what: str, run: Reaped) -> None:
    """Wait (bounded) until `condition` holds, watching `run` meanwhile."""
    deadline = time.monotonic() + WAIT_S
    while not condition():
        run.processes()
        if time.monotonic() > deadline:
            pytest.fail(f"not within {WAIT_S} s: {what}\n{run.output()}")
        if not run.running():
            pytest.fail(f"the grader ended before {what}\n{run.output()}")
        time.sleep(0.05)


def _testing(here: Setting, run: Reaped, tests: int) -> bool:
    """Whether `run` has `tests` tests running now (processes in their cgroups; without cgroups,
    scratch folders whose fork server opened a test's output)."""
    run.processes()
    found = here.leftovers(run)
    if not hierarchies():
        scratch = [p for p in found.scratch if "-mp-" not in p.name]
        return len(scratch) >= tests and all(list((p / "io").glob("*.out")) for p in scratch)
    base = next(iter(hierarchies().values())).base  # one hierarchy: a test has a group in each
    running = 0
    for group in (group for group in found.cgroups if group.parent == base):
        for test in group.glob("t[0-9]*"):
            try:
                running += bool((test / "cgroup.procs").read_text().split())
            except OSError:
                continue  # removed meanwhile
    return running >= tests


def _started_live(here: Setting) -> tuple[Reaped, Leftovers, set[int]]:
    live = here.batch("live", "live", jobs=1)
    _until(lambda: _testing(here, live, 1), "the live batch runs a test", live)
    found = here.leftovers(live)
    assert found.scratch and found.semaphores and (found.cgroups or not hierarchies())
    return live, Leftovers.of({live.pid}, here.tmpdir), _lasting(live.processes())


def _lasting(processes: list[psutil.Process]) -> set[int]:
    """The pids of a grader's processes that last the whole run: the grader and its pool
    workers, not the fork servers (one per student) and their tests, which come and go: a
    sleeping test ends as TLE 'asleep' after 3 s and the next student starts."""
    lasting = set()
    for process in processes:
        with contextlib.suppress(psutil.Error):
            if "worker.py" not in " ".join(process.cmdline()):
                lasting.add(process.pid)
    return lasting


def _still_live(here: Setting, live: Reaped, before: Leftovers, pids: set[int]) -> None:
    """The live batch runs on with all it had: its own scratch and semaphores (`before`, those
    of its main process; its students' folders and groups come and go with them), its lasting
    processes, and not one JE among the students it graded meanwhile (a test whose folder or
    group another grader removed would get one)."""
    assert live.running(), live.output()
    assert before.existing() == before, "a live grader's scratch or semaphore was removed"
    assert pids <= _lasting(live.processes()), "a live grader's process was killed"
    results = here.project / "out-live"
    _until(lambda: any(results.glob("*/results.json")), "the live batch grades a student", live)
    graded = [json.loads(path.read_text()) for path in results.glob("*/results.json")]
    verdicts = {test["extra_data"]["verdict"] for result in graded for test in result["tests"]}
    assert verdicts == {"TLE"}, verdicts


def _pidfds_work() -> bool:
    try:
        os.close(os.pidfd_open(os.getpid()))
    except (AttributeError, OSError):
        return False
    return True


def _stop(run: Reaped, sig: signal.Signals, target: str) -> None:
    if target == "group":
        os.killpg(run.pid, sig)
    else:
        os.kill(run.pid, sig)


CASES = [
    ("batch", signal.SIGTERM, "pid"),
    ("batch", signal.SIGTERM, "group"),
    ("batch", signal.SIGINT, "group"),
    ("batch", signal.SIGKILL, "group"),
    ("batch", signal.SIGKILL, "pid"),
    ("single", signal.SIGTERM, "pid"),
    ("single", signal.SIGINT, "group"),
    ("single", signal.SIGKILL, "group"),
]


@pytest.mark.parametrize(
    ("kind", "sig", "target"), CASES, ids=[f"{kind}-{sig.name}-{target}" for kind, sig, target in CASES]
)
def test_a_stopped_grader_leaves_nothing_a_later_run_does_not_sweep(
    setting: Setting, kind: str, sig: signal.Signals, target: str
) -> None:
    here = setting
    if sig == signal.SIGKILL and not hierarchies():
        pytest.skip("a killed grader's tests are found through its cgroups, and there are none here")
    if (kind, sig, target) == ("batch", signal.SIGKILL, "pid") and not _pidfds_work():
        pytest.skip("pool processes watch the main process through a pidfd (Linux 5.3)")
    live, live_had, live_pids = _started_live(here)
    if kind == "batch":
        victim = here.batch("victims", "victim")
        _until(
            lambda: (
                bool(list((here.project / "out-victim").glob("s0/results.json")))
                and _testing(here, victim, 2)
            ),
            "the batch graded s0 and runs two tests",
            victim,
        )
    else:
        victim = here.start("grade", "toy", str(here.project / "victims" / "s1"), name="victim")
        _until(lambda: _testing(here, victim, 1), "the grader runs a test", victim)
    had = here.leftovers(victim)
    assert had.scratch and (had.cgroups or not hierarchies())
    assert had.semaphores or kind == "single"

    _stop(victim, sig, target)
    code = victim.wait_exit()
    if sig == signal.SIGKILL:
        assert code == -signal.SIGKILL, victim.output()
        later = here.start("grade", "toy", str(here.project / "fast" / "f0"), name="later")
        assert later.wait_exit() == 0, later.output()
        later.wait_gone()
    else:
        assert code == {signal.SIGTERM: 143, signal.SIGINT: 130}[sig], victim.output()
        assert "Traceback" not in victim.output()
    victim.wait_gone()  # no process of it is left (an orphan would be the reaper's child)

    left = here.leftovers(victim)
    assert left.empty(), f"left behind: {left}"
    live.processes()  # notes the live batch's processes, owners of its newer scratch folders
    assert not [p for p in here.tmpdir.iterdir() if p not in here.leftovers(live).scratch], sorted(
        os.listdir(here.tmpdir)
    )
    _still_live(here, live, live_had, live_pids)

    _stop(live, signal.SIGTERM, "pid")  # the live batch, stopped in turn, cleans up after itself
    assert live.wait_exit() == 143, live.output()
    live.wait_gone()
    assert here.leftovers(live).empty()
    assert not list(here.tmpdir.iterdir())


def test_a_batch_that_ends_leaves_nothing(setting: Setting) -> None:
    """Pool processes end with os._exit, which skips atexit: their cgroups used to stay 600 s.

    The batch sweeps what dead graders left when it starts, so anything naming a dead owner after
    it ended is its own (its pool processes are gone before anyone could note their pids)."""
    here = setting
    (here.project / "fast" / "f1").mkdir()
    (here.project / "fast" / "f1" / "toy.py").write_text(RIGHT)
    run = here.batch("fast", "fast")
    assert run.wait_exit() == 0, run.output()
    run.wait_gone()
    bases = {hierarchy.base for hierarchy in hierarchies().values()}
    dead = [
        group
        for base in bases
        for group in base.glob(f"{GROUP_PREFIX}*")
        if owners.left_by_the_dead(group.name, GROUP_PREFIX)
    ]
    dead += [
        path
        for path in owners.SHM.iterdir()
        if owners.left_by_the_dead(path.name, f"sem.{owners.SEMAPHORE_PREFIX}")
    ]
    assert not dead, dead
    assert not list(here.tmpdir.iterdir())
