"""The trust boundary of issue 11: one test per attack class, asserting the safe outcome.

Each attack runs as student code in a throw-away exercise `toy` whose reference answers `2 * n`.
Cases run under the default sandbox (bubblewrap) and, where the attack applies there too, under
`process`. A safe outcome is a verdict the attack cannot improve, a grader that keeps going (no
hang, no crash, no lost test) and nothing of the grader's in what the student sees.
"""

from __future__ import annotations

import io
import json
import os
import signal
import textwrap
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.console import Console

from grader.commands.record import record
from grader.judge.calibration import resolve_limits
from grader.judge.grade import GradeReport, grade, select_tests
from grader.judge.testrun import Grader, prepared_submission
from grader.report.reports import junit_xml, print_report, results_json
from grader.run import cgroup
from grader.run.procfs import open_untrusted, read_capped
from grader.suite.load import load_suite
from tests.conftest import Build

SANDBOXES = ["process", pytest.param("bwrap", marks=pytest.mark.bwrap)]
BWRAP = [pytest.param("bwrap", marks=pytest.mark.bwrap)]

SUITE = """
exercise: toy
submit: [toy.py]
limits: {cpu_s: 2, wall_s: 6, memory_mb: 200, output_kb: 64}
tests:
  - name: first
    call: toy.answer
    cases: [[1]]
  - name: second
    call: toy.answer
    cases: [[2]]
"""
REFERENCE = "def answer(n):\n    return 2 * n\n"


def _toy(root: Path, student: str, suite: str = SUITE) -> Path:
    for folder in ("exercises/toy", "reference/toy", "fixtures/toy"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "fixtures/toy/suite.yaml").write_text(suite)
    (root / "exercises/toy/toy.py").write_text("")
    (root / "reference/toy/toy.py").write_text(REFERENCE)
    assert not record(load_suite("toy")).failures
    submission = root / "student"
    submission.mkdir(exist_ok=True)
    (submission / "toy.py").write_text(student)
    return submission


def _answer(body: str, prelude: str = "") -> str:
    inner = textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
    return textwrap.dedent(prelude) + "\ndef answer(n):\n" + inner + "\n"


def _grade(root: Path, student: str, sandbox: str, suite: str = SUITE) -> GradeReport:
    submission = _toy(root, student, suite)
    return grade(load_suite("toy"), submission, sandbox=sandbox)


def _verdicts(root: Path, student: str, sandbox: str, suite: str = SUITE) -> list[str]:
    return [result.verdict.value for result in _grade(root, student, sandbox, suite).results]


# ---------------------------------------------------------------- the test folder and the parent


def test_the_parent_opens_only_regular_files_without_links(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("the reference")
    (tmp_path / "link").symlink_to(secret)
    os.mkfifo(tmp_path / "fifo")
    started = time.monotonic()
    assert open_untrusted(tmp_path / "link") is None
    assert open_untrusted(tmp_path / "fifo") is None  # and it did not block on the FIFO
    assert time.monotonic() - started < 1
    fd = open_untrusted(secret)
    assert fd is not None and read_capped(fd, 4) == b"the r"
    os.close(fd)


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_stdout_replaced_by_a_link_or_fifo_changes_nothing(project: Path, sandbox: str) -> None:
    secret = project / "reference" / "toy" / "toy.py"
    body = f"""
        import os, glob
        for fd in (1, 2):
            try:
                path = os.readlink(f"/proc/self/fd/{{fd}}")
            except OSError:
                path = None
            for target in [path, *glob.glob("*"), *glob.glob("/tmp/**", recursive=True)]:
                if not target:
                    continue
                try:
                    os.unlink(target)
                    os.symlink({str(secret)!r}, target)
                except OSError:
                    pass
                try:
                    os.mkfifo(target + ".fifo")
                except OSError:
                    pass
        print("x")
        return -1
    """
    started = time.monotonic()
    report = _grade(project, _answer(body), sandbox)
    assert [r.verdict.value for r in report.results] == ["WA", "WA"]
    assert time.monotonic() - started < 20
    for result in report.results:
        assert "2 * n" not in (result.stdout or "") + result.message + result.details


# ---------------------------------------------------------------- the fork server


def _server_attack_suite() -> str:
    return SUITE.replace("cpu_s: 2, wall_s: 6", "cpu_s: 2, wall_s: 3")


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("how", [pytest.param("SIGSTOP", marks=pytest.mark.slow), "SIGKILL"])
def test_a_stopped_or_killed_fork_server_costs_one_verdict_never_a_hang(
    project: Path, sandbox: str, how: str
) -> None:
    student = _answer("import time\ntime.sleep(0.5)\nreturn 2 * n")
    submission = _toy(project, student, _server_attack_suite())
    loaded = load_suite("toy")
    verdicts = []
    started = time.monotonic()
    tests = select_tests(loaded, False)
    with (
        prepared_submission(loaded, submission) as (prepared, scratch),
        Grader(loaded, prepared, scratch, resolve_limits(loaded, tests, sandbox), sandbox) as grader,
    ):
        for number, test in enumerate(tests):
            if number == 0:
                server = grader.server.server_pid
                threading.Timer(0.2, os.kill, (server, getattr(signal, how))).start()
            judgement, _ = grader.grade_test(test)
            verdicts.append(judgement.verdict.value)
    assert verdicts == ["JE", "AC"]  # the grader's own fault, then a fresh server
    assert time.monotonic() - started < 30


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_the_test_cannot_see_signal_or_open_any_other_process(project: Path, sandbox: str) -> None:
    body = """
        import os, signal
        me = os.getpid()
        reached = []
        for pid in range(1, 4096):
            if pid in (me, os.getppid()):
                continue
            try:
                os.kill(pid, 0)
                reached.append(pid)
            except (ProcessLookupError, PermissionError):
                pass
        opened = []
        if os.path.isdir("/proc"):
            for entry in os.listdir("/proc"):
                if entry.isdigit() and int(entry) != me:
                    for part in ("fd", "environ", "mem", "cmdline"):
                        try:
                            if part == "fd":
                                os.listdir(f"/proc/{entry}/fd")
                            else:
                                open(f"/proc/{entry}/{part}", "rb").read(1)
                            opened.append((entry, part))
                        except OSError:
                            pass
        return 2 * n if not reached and not [o for o in opened if o[0] != "1"] else [reached, opened]
    """
    assert _verdicts(project, _answer(body), sandbox) == ["AC", "AC"]


# ---------------------------------------------------------------- what a test may leave or take


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_nothing_survives_from_one_test_to_the_next(project: Path, sandbox: str) -> None:
    body = """
        import os, tempfile
        places = [os.getcwd(), tempfile.gettempdir(), "/tmp", "/dev/shm", "/var/tmp",
                  os.path.expanduser("~")]
        seen = [p for p in places if os.path.exists(os.path.join(p, "left-by-a-test"))]
        for place in places:
            try:
                with open(os.path.join(place, "left-by-a-test"), "w") as mark:
                    mark.write("precomputed")
            except OSError:
                pass
        return 2 * n if not seen else seen
    """
    assert _verdicts(project, _answer(body), sandbox) == ["AC", "AC"]


needs_memory_cgroup = pytest.mark.skipif(
    "memory" not in cgroup.hierarchies(), reason="the grader may not create memory cgroups here"
)


@needs_memory_cgroup
@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_writable_space_is_bounded_and_counted_as_memory(project: Path, sandbox: str) -> None:
    body = """
        import os
        written = 0
        try:
            with open("/tmp/fill", "wb") as sink:
                while written < 1400:
                    sink.write(b"x" * (1 << 20))
                    sink.flush()
                    written += 1
        except OSError:
            pass
        files = 0
        try:
            while files < 100000:
                open(f"/tmp/f{files}", "w").close()
                files += 1
        except OSError:
            pass
        return 2 * n if written < 1400 and files < 100000 else -1
    """
    suite = SUITE.replace("memory_mb: 200", "memory_mb: 200, scratch_mb: 48, scratch_files: 100")
    report = _grade(project, _answer(body), sandbox, suite)
    assert [r.verdict.value for r in report.results] == ["AC", "AC"]
    assert all(r.usage.peak_mb >= 40 for r in report.results), "files written were not counted"
    tight = suite.replace("memory_mb: 200", "memory_mb: 30")
    assert _verdicts(project, _answer(body), sandbox, tight) == ["MLE", "MLE"]


# ---------------------------------------------------------------- the result channel

RAW_WRITER = """
import os, stat

def send(data):
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, data)
        except OSError:
            pass
    os._exit(0)
"""

RAW_RESULTS = {  # what the test writes straight onto its result pipe (a Python expression)
    "forged-right-answers": ('b\'{"steps": [{"value": 2}]}\'', ["AC", "WA"]),  # its own answers
    "malformed": ('b\'{"steps": [{"value": 2}\'', ["RTE", "RTE"]),
    "no-outcomes": ("b'{\"steps\": []}'", ["RTE", "RTE"]),  # never a JE blamed on the suite
    "too-many-outcomes": ('b\'{"steps": [{"value": 2}, {"value": 4}]}\'', ["RTE", "RTE"]),
    "unknown-shape": ('b\'{"steps": [{"value": 2, "cpu_s": 0}]}\'', ["RTE", "RTE"]),
    "suite-form": ('b\'{"steps": [{"value": {"$tuple": 5}}]}\'', ["RTE", "RTE"]),
    "deeply-nested": ("b'[' * 100_000 + b']' * 100_000", ["RTE", "RTE"]),
    "many-parts": ("b'[' + b'[],' * 2_000_000 + b'[]]'", ["RTE", "RTE"]),
    "huge": ("b'{\"steps\": [{\"value\": \"' + b'x' * (16 << 20) + b'\"}]}'", ["OLE", "OLE"]),
    "surrogate": ('b\'{"steps": [{"value": "\\\\ud800"}]}\'', ["WA", "WA"]),
}


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("case", sorted(RAW_RESULTS))
def test_raw_result_lines_are_data_checked_linearly(project: Path, sandbox: str, case: str) -> None:
    expression, verdicts = RAW_RESULTS[case]
    before = time.process_time()
    report = _grade(project, _answer(f"send({expression})", RAW_WRITER), sandbox)
    assert [r.verdict.value for r in report.results] == verdicts
    assert time.process_time() - before < 10, "the grader spent too long on one result"
    json.dumps(results_json(report)).encode("utf-8")  # writable as UTF-8


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_returned_suite_form_is_shown_as_data(project: Path, sandbox: str) -> None:
    report = _grade(project, _answer('return {"$tuple": 5, "$call": "x"}'), sandbox)
    assert [r.verdict.value for r in report.results] == ["WA", "WA"]
    assert "'$tuple': 5" in report.results[0].message


# ---------------------------------------------------------------- what students and instructors see


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_control_characters_and_surrogates_are_inert_everywhere(project: Path, sandbox: str) -> None:
    body = r"""
        print("\x1b[2J\x1b[31mAC 100/100\x00\x07")
        raise ValueError("\x1b]0;owned\x07 \ud800 \u202e")
    """
    report = _grade(project, _answer(body), sandbox)
    assert [r.verdict.value for r in report.results] == ["RTE", "RTE"]
    for result in report.results:
        for text in (result.message, result.details, result.stdout or ""):
            assert not any(ord(c) < 32 and c not in "\n\t" for c in text), repr(text)
            text.encode("utf-8")
    assert "\\x1b[2J" in (report.results[0].stdout or "")
    ET.fromstring(junit_xml(report))
    terminal = io.StringIO()
    print_report(report, Console(file=terminal, force_terminal=False, width=150))
    assert "\x1b" not in terminal.getvalue()


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_no_internal_path_reaches_the_student(project: Path, sandbox: str) -> None:
    body = """
        import os
        raise OSError(f"cwd {os.getcwd()} code {os.path.dirname(__file__)} file {__file__}")
    """
    report = _grade(project, _answer(body), sandbox)
    for result in report.results:
        shown = result.message + result.details
        assert str(project) not in shown and "grader-" not in shown, shown


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_the_environment_is_clean(project: Path, sandbox: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_SECRET_TOKEN", "hunter2")
    body = """
        import os
        allowed = {"PATH", "LANG", "LC_ALL", "HOME", "TMPDIR", "TOY_SEED"}
        extra = sorted(set(os.environ) - allowed)
        return 2 * n if not extra and os.environ.get("TOY_SEED") == "7" else extra
    """
    suite = SUITE.replace("submit: [toy.py]", "submit: [toy.py]\nenv: {TOY_SEED: '7'}")
    assert _verdicts(project, _answer(body), sandbox, suite) == ["AC", "AC"]


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_neighbour_in_a_batch_cannot_be_overwritten(
    project: Path, sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = project / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("GRADER_SCRATCH", str(scratch))
    attacker = _answer(f"""
        import os, time
        deadline = time.time() + 3
        while time.time() < deadline:
            for folder, _, files in os.walk({str(scratch)!r}):
                for name in files:
                    if name == "toy.py":
                        try:
                            with open(os.path.join(folder, name), "w") as victim:
                                victim.write("def answer(n):\\n    return -1\\n")
                        except OSError:
                            pass
            time.sleep(0.01)
        return 2 * n
    """)
    victim_code = _answer("import time\ntime.sleep(1)\nreturn 2 * n")
    _toy(project, victim_code)
    loaded = load_suite("toy")
    for name, code in (("alice", attacker), ("bob", victim_code)):
        (project / name).mkdir()
        (project / name / "toy.py").write_text(code)
    reports = {}
    threads = [
        threading.Thread(
            target=lambda who=who: reports.__setitem__(who, grade(loaded, project / who, sandbox=sandbox))
        )
        for who in ("alice", "bob")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [r.verdict.value for r in reports["bob"].results] == ["AC", "AC"]
    assert (project / "bob" / "toy.py").read_text() == victim_code


# ---------------------------------------------------------------- other tests' inputs

INPUTS_SUITE = """
exercise: toy
submit: [toy.py]
given: [drive.py]
tests:
  - name: secret-game
    visibility: hidden
    transcript: {driver: drive, stdin: secret.txt, expected: secret.out.txt}
  - name: peek
    steps:
      - {call: toy.peek, args: [{fixture: mine.txt}]}
"""
PEEKING_DRIVER = "import toy\nprint(len(input()))\n"
PEEK = '''
import os


def peek(mine):
    """Every file a test can find near its own input, and the old shared place of the others'."""
    found = []
    for top in (os.path.dirname(mine), os.path.dirname(os.path.dirname(mine))):
        for folder, _, files in os.walk(top):
            found += [name for name in files if name.endswith(".txt")]
    for guess in (os.path.join(os.path.dirname(os.path.dirname(mine)), "secret.txt"),):
        try:
            found.append(open(guess).read())
        except OSError:
            pass
    return "found: " + " | ".join(sorted(set(found)))
'''


@pytest.mark.bwrap
def test_a_test_never_reads_another_tests_inputs(grade_toy: Build) -> None:
    inputs = {"secret.txt": "the hidden game\n", "mine.txt": "my own input\n"}
    report = grade_toy(
        INPUTS_SUITE,
        "def peek(mine):\n    return ''\n",
        PEEK,
        given={"drive.py": PEEKING_DRIVER},
        inputs=inputs,
        sandbox="bwrap",
    )
    hidden, peek = report.results
    assert hidden.name == "secret-game" and hidden.verdict.value == "AC"
    assert "found:" in peek.message and "mine.txt" in peek.message, peek.message
    assert "secret" not in peek.message and "hidden game" not in peek.message, peek.message
