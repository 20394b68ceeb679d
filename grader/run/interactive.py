"""A driver run interactively on someone else's submission (`grader run --submission`), confined.

Graded tests go through the fork server, whose tests read a file and write files; a person playing
a driver needs the terminal itself. So this runs the driver directly inside bubblewrap, with the
fork server's view of the machine (`sandbox.bwrap_prefix`): only the submission's code, read-only;
a private /tmp capped at the suite's scratch size; no network; its own pid and IPC namespaces;
as root, its own unprivileged uid (as a test), no capabilities, no_new_privs and the tests' seccomp
filter (`box/launch.py`); the suite's minimal environment. stdin, stdout and stderr
are the caller's, so it stays interactive. The kernel bounds it as it bounds a test: a cgroup of
its own (as root) with the suite's largest memory limit and its process limit; `RLIMIT_AS` where
no cgroup measures memory; `RLIMIT_CPU` and `RLIMIT_FSIZE` always.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.errors import UserError
from grader.run import policy, private
from grader.run.boundary import test_uid
from grader.run.box.protocol import MINIMAL_ENV
from grader.run.cgroup import TestCgroup
from grader.run.sandbox import bwrap_prefix, bwrap_works, copy_box, interpreter

RUN_CPU_S = 600  # a whole interactive session's CPU time, not a test's
THREADS = 64  # tasks above the process limit (as for a test: `pids.max`)
BWRAP_PROCESSES = 2  # bubblewrap's own monitor and its pid namespace's init
ADDRESS_SPACE_SLACK_MB = 64  # the interpreter's own mappings, where RLIMIT_AS stands in for a cgroup
BOOTSTRAP = (
    "import runpy, sys; sys.path.insert(0, sys.argv[1]); "
    "sys.argv = sys.argv[2:]; runpy.run_path(sys.argv[0], run_name='__main__')"
)


class CannotConfine(UserError):
    """`grader run --submission` was asked to confine a submission and cannot here."""


@dataclass(frozen=True)
class RunLimits:
    memory_mb: float
    processes: int
    scratch_mb: float
    cpu_s: int = RUN_CPU_S


@dataclass
class Ended:
    """How a confined run ended, and which limit stopped it (None: none did)."""

    exit_code: int
    stopped_by: str | None = None


def driver_command(code_dir: Path, driver: str, args: list[str], python: list[str]) -> list[str]:
    """`python` running `driver` from `code_dir` as `__main__`, its folder on sys.path."""
    return [*python, "-c", BOOTSTRAP, str(code_dir), str(code_dir / f"{driver}.py"), *args]


def confined_command(
    code_dir: Path, driver: str, args: list[str], env: dict[str, str], limits: RunLimits, launcher: Path
) -> list[str]:
    """The bubblewrap command line running the driver: the fork server's prefix, /tmp capped,
    and inside it `launch.py` (in `launcher`, a copy of the box), which confines the run as a test
    is confined (its own unprivileged uid as root, no capability, the seccomp filter)."""
    prefix = bwrap_prefix([code_dir, launcher], [], {**MINIMAL_ENV, **env})
    for index in range(len(prefix) - 1):
        if prefix[index : index + 2] == ["--tmpfs", "/tmp"]:
            sized = [*prefix[:index], "--size", str(int(limits.scratch_mb * 1024 * 1024)), *prefix[index:]]
            break
    else:
        raise CannotConfine("the sandbox's command line has no /tmp to cap; not running the submission")
    if sized[-2:] == ["--chdir", "/"]:
        sized = sized[:-2]  # its working folder is its /tmp, where it may write
    try:
        program = policy.compiled().program.hex()
    except policy.PolicyUnavailable as error:
        raise CannotConfine(f"{error}; not running the submission") from error
    uid = str(test_uid(0)) if os.geteuid() == 0 else "-"
    reach = [str(Path(sys.base_prefix).resolve()), str(code_dir)]
    python = [interpreter(), "-I"]
    launch = [interpreter(), "-I", "-S", str(launcher / "launch.py"), uid, program, *reach, "--"]
    return [*sized, "--chdir", "/tmp", *launch, *driver_command(code_dir, driver, args, python)]


def launcher_files(folder: Path) -> Path:
    """Copy the box (the launcher and the boundary's code) into `folder` (read-only inside the
    sandbox)."""
    folder.mkdir(mode=0o755, exist_ok=True)
    return copy_box(folder, 0o644)


def require_bubblewrap() -> None:
    """Refuse (one line saying why and what to do) where bubblewrap cannot confine a run."""
    problem = bwrap_works()
    if problem is not None:
        raise CannotConfine(
            f"grader run --submission runs the submission inside bubblewrap, which cannot run "
            f"here ({problem}); install it (apt-get install bubblewrap), or add --unconfined to "
            f"run it with your own privileges, files and environment (only code you trust)"
        )


def run_confined(
    code_dir: Path, driver: str, args: list[str], env: dict[str, str], limits: RunLimits
) -> Ended:
    """Run the driver inside bubblewrap on the caller's terminal; refuse if it cannot be confined."""
    require_bubblewrap()
    private.share_tree(code_dir, test_uid(0) if os.geteuid() == 0 else None)  # the run's uid only
    launcher = launcher_files(code_dir.parent / "launcher")
    command = confined_command(code_dir, driver, args, env, limits, launcher)
    cgroup = TestCgroup.create()
    measured = cgroup.measures if cgroup is not None else set()
    if cgroup is not None:
        cgroup.set_limits(int(limits.memory_mb * 1024 * 1024), limits.processes + THREADS + BWRAP_PROCESSES)

    def enter_limits() -> None:  # in the child, before bubblewrap starts: all it runs inherits
        if cgroup is not None and not cgroup.add(os.getpid()):
            raise OSError("the run's cgroup refused it")
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
        scratch = int(limits.scratch_mb * 1024 * 1024)
        resource.setrlimit(resource.RLIMIT_FSIZE, (scratch, scratch))
        if "memory" not in measured:
            address_space = int((limits.memory_mb + ADDRESS_SPACE_SLACK_MB) * 1024 * 1024)
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    try:
        try:
            child = subprocess.Popen(command, preexec_fn=enter_limits)
        except subprocess.SubprocessError as error:  # enter_limits failed: nothing ran
            raise CannotConfine(
                f"the run could not be put under its limits ({error}); not running the submission"
            ) from error
        with child:
            try:
                code = child.wait()
            except BaseException:
                child.kill()
                raise
        return Ended(code, _stopped_by(code, cgroup, limits))
    finally:
        if cgroup is not None:
            cgroup.remove()


def _stopped_by(code: int, cgroup: TestCgroup | None, limits: RunLimits) -> str | None:
    if cgroup is not None and cgroup.oom_kills() > 0:
        return f"it used more than {limits.memory_mb:g} MB of memory"
    if cgroup is not None and cgroup.refused_forks() > 0:
        return f"it tried to start more than {limits.processes} process(es)"
    if code in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
        return f"it used more than {limits.cpu_s} s of CPU time"
    return None
