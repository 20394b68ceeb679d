"""`grader run` inside a handout runs the student's working copy; handouts ship no traceback."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.exercise import project_root
from grader.suite.load import load_suite


def test_run_in_a_handout_uses_the_working_copy(tmp_path: Path) -> None:
    from grader.commands.handout import make_handout

    handout = tmp_path / "handout"
    make_handout(load_suite("bitgrid"), handout)
    env = {key: value for key, value in os.environ.items() if key != "GRADER_ROOT"}
    command = [sys.executable, "-m", "grader", "run", "bitgrid", "play"]
    stub = subprocess.run(
        command, cwd=handout, env=env, input="1 1\n", capture_output=True, text=True, timeout=120
    )
    assert "NotImplementedError" in stub.stderr and "reference" not in stub.stdout + stub.stderr
    shutil.copyfile(
        project_root() / "reference" / "bitgrid" / "grid.py", handout / "exercises" / "bitgrid" / "grid.py"
    )
    solved = subprocess.run(
        command, cwd=handout, env=env, input="1 1\n", capture_output=True, text=True, timeout=120
    )
    assert solved.returncode == 0 and "grid = 256" in solved.stdout, solved.stderr
    shipped = list((handout / "fixtures" / "bitgrid" / "expected").glob("*.json"))
    assert shipped and not any("traceback" in path.read_text() for path in shipped)
    assert any('"raises"' in path.read_text() for path in shipped)


def test_recorded_exceptions_hold_class_and_message_only() -> None:
    recorded = list((project_root() / "fixtures").glob("*/expected/*.json"))
    assert recorded and not [p for p in recorded if '"traceback"' in p.read_text()]


# ---------------------------------------------------------------- `--submission`: confined
# (issue 20, finding 8). The submission's grid.py does its harm at import, then is the reference.

REFERENCE_GRID = (
    (project_root() / "reference" / "bitgrid" / "grid.py")
    .read_text()
    .replace("from __future__ import annotations\n", "")
)

PRYING = """\
import os, socket
secret = os.environ.get("GRADER_RUN_SECRET", "absent")
try:
    with open(__SUITE__) as suite:
        seen = "read the suite"
except OSError as error:
    seen = f"no suite ({type(error).__name__})"
try:
    socket.create_connection(("1.1.1.1", 53), timeout=2)
    net = "network"
except OSError:
    net = "no network"
try:
    with open(__FILE__ + ".planted", "w"):
        wrote = "wrote next to its code"
except OSError:
    wrote = "code read-only"
import ctypes
uid = "test" if os.getuid() >= 0x40000000 else os.getuid()
seccomp = ctypes.CDLL(None).prctl(21, 0, 0, 0, 0)
print(f"PRY secret={secret} uid={uid} seccomp={seccomp} {seen}; {net}; {wrote}; cwd={os.getcwd()}",
      flush=True)
"""


def _grader_run(
    submission: Path, *flags: str, stdin: str = "1 1\n", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        "-m",
        "grader",
        "run",
        "bitgrid",
        "play",
        "--submission",
        str(submission),
        *flags,
    ]
    return subprocess.run(
        command,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=project_root(),
        env={**os.environ, **(env or {})},
    )


def _submission(folder: Path, prelude: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "grid.py").write_text(prelude + "\n" + REFERENCE_GRID)
    return folder


@pytest.mark.bwrap
def test_a_submission_runs_confined_and_still_interactive(tmp_path: Path) -> None:
    suite = project_root() / "fixtures" / "bitgrid" / "suite.yaml"
    prying = PRYING.replace("__SUITE__", repr(str(suite))).replace("__FILE__", "__file__")
    ran = _grader_run(_submission(tmp_path / "sub", prying), env={"GRADER_RUN_SECRET": "s3cret"})
    assert ran.returncode == 0, ran.stderr
    pry = next(line for line in ran.stdout.splitlines() if line.startswith("PRY"))
    uid = "test" if os.geteuid() == 0 else "65534"  # as root, an unprivileged uid as a test's
    assert pry == (
        f"PRY secret=absent uid={uid} seccomp=2 no suite (FileNotFoundError); "
        "no network; code read-only; cwd=/tmp"
    )
    assert "grid = 256" in ran.stdout, "the driver read the move from stdin and answered"
    assert "confined:" in ran.stderr and "Traceback" not in ran.stderr


@pytest.mark.bwrap
def test_a_memory_hog_is_stopped_at_the_suites_limit(tmp_path: Path) -> None:
    hog = _submission(
        tmp_path / "hog", "hoard = bytearray(400 * 1024 * 1024)\nhoard[::4096] = b'x' * len(hoard[::4096])\n"
    )
    ran = _grader_run(hog)
    assert ran.returncode != 0 and "grid = " not in ran.stdout
    assert "used more than 64 MB of memory" in ran.stderr, ran.stderr


@pytest.mark.bwrap
def test_a_fork_bomb_is_bounded_and_leaves_nothing(tmp_path: Path) -> None:
    marker = f"bomb{os.getpid()}"[:15]  # a process name (comm), which pgrep matches
    bomb = _submission(
        tmp_path / "bomb",
        f"""\
import os, time
children = 0
for _ in range(500):
    try:
        if os.fork() == 0:
            with open("/proc/self/comm", "w") as comm:
                comm.write({marker!r})
            time.sleep(600)
            os._exit(0)
        children += 1
    except OSError:
        break
print(f"FORKED {{children}}", flush=True)
""",
    )
    try:
        ran = _grader_run(bomb)
        forked = [int(line[7:]) for line in ran.stdout.splitlines() if line.startswith("FORKED")]
        # the cgroup's backstops end it: its tasks (processes + 64 threads) or its memory (64 MB)
        assert (forked and forked[0] < 100) or "stopped: it used more than 64 MB" in ran.stderr, (
            ran.stdout[-500:],
            ran.stderr,
        )
    finally:
        left = subprocess.run(["pgrep", "-x", marker], capture_output=True, text=True).stdout
        for pid in left.split():  # only what this test started (its marker), by pid
            os.kill(int(pid), signal.SIGKILL)
    assert not left.strip(), "every process of the run ended with it"


def test_without_bubblewrap_a_submission_runs_only_when_told_to(tmp_path: Path) -> None:
    no_bwrap = {"PATH": str(tmp_path)}  # bwrap cannot be found; the interpreter is absolute
    sub = _submission(tmp_path / "sub", "")
    refused = _grader_run(sub, env=no_bwrap)
    assert refused.returncode == 3 and refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and "--unconfined" in refused.stderr, refused.stderr
    assert "bubblewrap (bwrap) is not installed" in refused.stderr
    trusted = _grader_run(sub, "--unconfined", env=no_bwrap)
    assert trusted.returncode == 0 and "grid = 256" in trusted.stdout, trusted.stderr
    assert "unconfined" in trusted.stderr


def _read_until(fd: int, wanted: str, seconds: float = 60) -> str:
    seen = b""
    deadline = time.monotonic() + seconds
    while wanted.encode() not in seen:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, f"no {wanted!r} in time; got {seen.decode(errors='replace')!r}"
        try:
            seen += os.read(fd, 4096)
        except OSError:  # the other side closed
            break
    return seen.decode(errors="replace")


@pytest.mark.bwrap
def test_a_confined_submission_plays_on_a_terminal(tmp_path: Path) -> None:
    """On a real terminal (a pty): the prompt comes before the move is typed, the answer after."""
    main_fd, terminal = os.openpty()
    command = [
        sys.executable,
        "-m",
        "grader",
        "run",
        "bitgrid",
        "play",
        "--submission",
        str(_submission(tmp_path / "sub", "")),
    ]
    child = subprocess.Popen(
        command, stdin=terminal, stdout=terminal, stderr=terminal, cwd=project_root(), start_new_session=True
    )
    os.close(terminal)
    try:
        assert "X to move" in _read_until(main_fd, "X to move")
        os.write(main_fd, b"1 1\n")
        assert "grid = 256" in _read_until(main_fd, "O to move")
        os.write(main_fd, b"\x04")  # end of input: the driver abandons the game
        _read_until(main_fd, "abandoned")
        assert child.wait(timeout=60) == 0
    finally:
        child.kill()
        os.close(main_fd)


class _RefusingCgroup:
    measures = frozenset({"memory", "cpu", "pids"})

    @classmethod
    def create(cls) -> _RefusingCgroup:
        return cls()

    def set_limits(self, memory_bytes: int, tasks: int) -> None:
        pass

    def add(self, pid: int) -> bool:
        return False

    def remove(self) -> None:
        pass


@pytest.mark.bwrap
def test_a_run_that_cannot_enter_its_cgroup_does_not_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    from grader.cli import main
    from grader.run import interactive

    monkeypatch.setattr(interactive, "TestCgroup", _RefusingCgroup)
    sub = _submission(tmp_path / "sub", "print('STARTED', flush=True)\n")
    assert main(["run", "bitgrid", "play", "--submission", str(sub)]) == 3
    out, err = capfd.readouterr()
    assert "could not be put under its limits" in err and "Traceback" not in err, err
    assert "STARTED" not in out
