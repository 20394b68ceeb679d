"""Hostile and broken submissions, for call and transcript tests: the exact verdict, nothing left behind.

Every case runs under the bubblewrap sandbox (the default) as a call test and as a transcript test
(a given driver that prints `answer(n)` for each input line), and then again to check that the
verdict is the same, that no process of the test survives and that no temporary file is left.
"""

from __future__ import annotations

import os
import socket
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from grader.commands.record import record
from grader.exercise import project_root
from grader.judge.grade import grade
from grader.suite.load import load_suite
from tests.support import TOY_DRIVER, TOY_REFERENCE, toy_suite

pytestmark = pytest.mark.bwrap

SUITE = toy_suite("{cpu_s: 1, wall_s: 3, memory_mb: 100, output_kb: 16, processes: PROCESSES}")
DRIVER, REFERENCE = TOY_DRIVER, TOY_REFERENCE

HOSTILE: dict[str, tuple[str, str]] = {
    # name: (verdict, body of answer(n))
    "grandchild-outlives": (
        "RTE",
        """
        import os, time
        if os.fork() == 0:
            if os.fork() == 0:
                time.sleep(600)
            os._exit(0)
        time.sleep(0.5)
        return 2 * n
    """,
    ),
    "fork-bomb": (
        "RTE",
        """
        import os
        while True:
            try:
                os.fork()
            except OSError:
                pass
    """,
    ),
    "memory-in-a-child": (
        "MLE",
        """
        import os, time
        if os.fork() == 0:
            block = b"x" * (300 * 1024 * 1024)
            time.sleep(5)
            os._exit(0)
        os.wait()
        return 2 * n
    """,
    ),
    "slow-leak": (
        "MLE",
        """
        import time
        hoard = []
        while True:
            hoard.append(bytearray(2 * 1024 * 1024))
            time.sleep(0.002)
    """,
    ),
    "deep-recursion": (
        "RTE",
        """
        def down(k):
            return down(k + 1) + 1
        return down(0)
    """,
    ),
    "segfault": (
        "RTE",
        """
        import ctypes
        ctypes.string_at(0)
    """,
    ),
    "busy-threads": (
        "TLE",
        """
        import threading
        def spin():
            while True:
                pass
        for _ in range(3):
            threading.Thread(target=spin, daemon=True).start()
        spin()
    """,
    ),
    "ignores-sigterm": (
        "TLE",
        """
        import signal
        for sig in (signal.SIGTERM, signal.SIGXCPU, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)
        while True:
            pass
    """,
    ),
    "long-sleep": (
        "TLE",
        """
        import time
        time.sleep(600)
    """,
    ),
    "output-flood": (
        "OLE",
        """
        import sys
        while True:
            sys.stdout.write("flood" * 1000)
    """,
    ),
    "stderr-flood-only": (
        "OLE",
        """
        import sys
        while True:
            sys.stderr.write("noise" * 1000)
    """,
    ),
    "non-utf8-output": (
        "WA",
        """
        import sys
        sys.stdout.flush()
        sys.stdout.buffer.write(b"\\xff\\xfe\\n")
        sys.stdout.buffer.flush()
        return 2 * n + 1
    """,
    ),
    "writes-to-the-terminal": (
        "WA",
        """
        try:
            with open("/dev/tty", "w") as tty:
                tty.write("AC 100/100\\n")
        except OSError:
            pass
        return 0
    """,
    ),
    "closes-stdout": (
        "RTE",
        """
        import os, sys
        os.close(1)
        sys.stdout = open(os.devnull, "w")
        raise RuntimeError("closed")
    """,
    ),
    "exit-during-test": (
        "RTE",
        """
        import os
        os._exit(0)
    """,
    ),
    "reads-stdin-past-the-input": (
        "WA",
        """
        import sys
        rest = sys.stdin.read()
        return len(rest) - 10**6
    """,
    ),
    "uncatchable-base-exception": (
        "RTE",
        """
        class Escape(BaseException):
            pass
        raise Escape("no one catches me")
    """,
    ),
    "patches-builtins-and-json": (
        "WA",
        """
        import builtins, json
        json.dumps = lambda *a, **k: '{"steps": [{"value": 2}, {"value": 4}], "exit": 0}'
        builtins.print = lambda *a, **k: None
        return -n
    """,
    ),
    "patches-the-grader": (
        "WA",
        """
        import __main__, sys
        for grader in (__main__, sys.modules.get("testprocess"), sys.modules.get("plain")):
            grader.to_plain = lambda value, depth=0: 2
            grader.run_driver = lambda *a, **k: {"exit": 0, "error": None}
        return 2
    """,
    ),
    # its parent is now its namespace's init (pid 1), which ignores it: the attempt changes nothing
    "kills-the-fork-server": (
        "AC",
        """
        import os, signal
        os.kill(os.getppid(), signal.SIGKILL)
        return 2 * n
    """,
    ),
    # printed, a rigged object shows the right number: that output is right (AC in a transcript)
    "rigged-eq-hash-repr-len": (
        "WA AC",
        """
        class Liar(list):
            def __eq__(self, other):
                return True
            def __hash__(self):
                return 0
            def __repr__(self):
                return str(2 * n)
            def __str__(self):
                return str(2 * n)
            def __len__(self):
                return 1
            def __iter__(self):
                return iter([2 * n])
        return Liar()
    """,
    ),
    "rigged-int-subclass": (
        "WA AC",
        """
        class Two(int):
            def __eq__(self, other):
                return True
            def __index__(self):
                return 2 * n
            def __repr__(self):
                return str(2 * n)
            def __str__(self):
                return str(2 * n)
        return Two(0)
    """,
    ),
    "prints-fake-results": (
        "WA",
        """
        print('{"event": "done", "exit_code": 0, "result": "{\\\\"steps\\\\": []}"}')
        print("Score: 100 / 100")
        return 0
    """,
    ),
}

ZERO_EXIT_AT_IMPORT = "import os\nos._exit(0)\ndef answer(n):\n    return 2 * n\n"


def _write_toy(root: Path, student: str, processes: int = 1) -> Path:
    for folder in ("exercises/toy", "reference/toy", "fixtures/toy"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "fixtures/toy/suite.yaml").write_text(SUITE.replace("PROCESSES", str(processes)))
    (root / "exercises/toy/toy.py").write_text("")
    (root / "exercises/toy/drive.py").write_text(textwrap.dedent(DRIVER))
    (root / "fixtures/toy/numbers.txt").write_text("1\n2\n")
    (root / "reference/toy/toy.py").write_text(REFERENCE)
    submission = root / "student"
    submission.mkdir(exist_ok=True)
    (submission / "toy.py").write_text(student)
    return submission


def _hostile_module(body: str) -> str:
    return "def answer(n):\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n"


def _our_processes() -> set[int]:
    me = psutil.Process()
    return {p.pid for p in me.children(recursive=True)}


def _scratch_entries() -> set[str]:
    return set(os.listdir(os.environ["GRADER_SCRATCH"]))


@pytest.fixture
def toy_root(project: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    scratch = project / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("GRADER_SCRATCH", str(scratch))
    _write_toy(project, REFERENCE)
    assert not record(load_suite("toy")).failures
    yield project


def grade_twice(root: Path, student: str, processes: int = 1) -> list[list[str]]:
    submission = _write_toy(root, student, processes)
    verdicts = []
    for _ in range(2):
        before_processes, before_files = _our_processes(), _scratch_entries()
        report = grade(load_suite("toy"), submission)
        verdicts.append([r.verdict.value for r in report.results])
        assert _our_processes() <= before_processes, "a process of the test survived"
        assert _scratch_entries() <= before_files == set(), "a temporary folder was left behind"
    return verdicts


# Each of these waits out a limit (twice): over 5 s, so outside `make test-fast`.
WAITS_OUT_A_LIMIT = {"busy-threads", "ignores-sigterm", "long-sleep"}


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(case, marks=pytest.mark.slow) if case in WAITS_OUT_A_LIMIT else case
        for case in sorted(HOSTILE)
    ],
)
def test_hostile_submission(toy_root: Path, case: str) -> None:
    verdicts, body = HOSTILE[case]
    processes = 2 if case == "memory-in-a-child" else 1
    first, second = grade_twice(toy_root, _hostile_module(body), processes)
    call, transcript = (verdicts.split() * 2)[:2]
    assert first == [call, transcript], case
    assert second == first, "the verdicts changed on a second run"


@pytest.mark.parametrize(
    ("exit_call", "verdicts"),
    [
        ("os._exit(0)", ["RTE", "RTE"]),
        # a program that stops at once, even with status 0, prints nothing: a wrong transcript
        ("sys.exit(0)", ["RTE", "WA"]),
        ("raise SystemExit(3)", ["RTE", "WA"]),
    ],
)
def test_exit_at_import(toy_root: Path, exit_call: str, verdicts: list[str]) -> None:
    module = f"import os, sys\n{exit_call}\n" + ZERO_EXIT_AT_IMPORT.split("\n", 2)[2]
    first, second = grade_twice(toy_root, module)
    assert first == second == verdicts


def test_cannot_read_answers_or_the_reference(toy_root: Path) -> None:
    root = toy_root
    secrets = [
        root / "fixtures/toy/expected/call.json",
        root / "fixtures/toy/numbers.out.txt",
        root / "reference/toy/toy.py",
        root / "fixtures/toy/suite.yaml",
        project_root() / "grader" / "cli.py",
    ]
    body = f"""
        import os
        secrets = {[str(path) for path in secrets]!r}
        names = {{os.path.basename(path) for path in secrets}} - {{"toy.py"}}
        found = [path for path in secrets if os.path.exists(path)]
        skip = {{"/proc", "/usr", "/sys", "/root/.pyenv"}}
        for top in ({str(root)!r}, "/"):
            for folder, subfolders, files in os.walk(top):
                subfolders[:] = [d for d in subfolders if os.path.join(folder, d) not in skip]
                found += [os.path.join(folder, f) for f in files if f in names]
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    found += [s for s in secrets if s in open(f"/proc/{{pid}}/cmdline").read()]
                except OSError:
                    pass
        return 2 * n if found else -1
    """
    first, _ = grade_twice(root, _hostile_module(body))
    assert first == ["WA", "WA"]


def test_cannot_write_fixtures_or_other_results(toy_root: Path) -> None:
    expected = toy_root / "fixtures/toy/expected/call.json"
    original = expected.read_text()
    body = f"""
        try:
            open({str(expected)!r}, "w").write('{{"steps": [{{"value": 0}}, {{"value": 0}}]}}')
        except OSError:
            pass
        return 0
    """
    first, _ = grade_twice(toy_root, _hostile_module(body))
    assert first == ["WA", "WA"]
    assert expected.read_text() == original


def test_no_network(toy_root: Path) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    accepted: list[bool] = []

    def serve() -> None:
        server.settimeout(10)
        try:
            connection, _ = server.accept()
            accepted.append(True)
            connection.close()
        except OSError:
            pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    body = f"""
        import socket
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=1).close()
            return 2 * n
        except OSError:
            return -1
    """
    first, _ = grade_twice(toy_root, _hostile_module(body))
    server.close()
    assert first == ["WA", "WA"]
    assert not accepted
