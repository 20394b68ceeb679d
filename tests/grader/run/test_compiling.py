"""The parent never compiles a submission itself: a compile bomb costs a limited child, and the
student a CE, never the grader's memory (issue 20, finding 7)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from grader.exercise import Exercise, project_root
from grader.judge.grade import grade
from grader.run import compiling, submission
from grader.run.compiling import CompileLimits, compile_files
from grader.run.submission import MAX_FILE_BYTES, prepare
from grader.suite.load import load_suite

# What runs the grader in a child and waits, once it is done, until the test has read its peak
# resident memory from outside (/proc/PID/status VmHWM: this process alone, not its children).
GRADER_THEN_WAIT = (
    "import sys\nfrom grader.cli import main\ncode = main(sys.argv[1:])\n"
    "print(code, flush=True)\nsys.stdin.read()\n"
)


def compile_bomb(folder: Path, name: str = "grid.py") -> Path:
    """One line of a million calls, just under the submission size cap: ~700 MB to compile."""
    folder.mkdir(parents=True, exist_ok=True)
    calls = (MAX_FILE_BYTES - 16) // 2
    (folder / name).write_text("x = f" + "()" * calls + "\n")
    return folder


def parent_peak_mb(submission: Path) -> tuple[float, str]:
    """The grader process's own peak resident memory while grading `submission`, and its output."""
    command = [
        sys.executable,
        "-c",
        GRADER_THEN_WAIT,
        "grade",
        "bitgrid",
        str(submission),
        "--sandbox",
        "process",
        "--test",
        "position",
    ]
    child = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=project_root(),
    )
    assert child.stdout is not None and child.stdin is not None
    lines = []
    while True:
        line = child.stdout.readline()
        assert line, f"the grader ended before reporting: {''.join(lines)}"
        lines.append(line)
        if line.strip().isdigit():
            break
    status = Path(f"/proc/{child.pid}/status").read_text()
    child.stdin.close()
    child.wait(timeout=60)
    peak_kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:"))
    return peak_kb / 1024, "".join(lines)


def test_a_compile_bomb_is_a_ce_and_costs_the_parent_nothing(tmp_path: Path) -> None:
    bomb_mb, report = parent_peak_mb(compile_bomb(tmp_path / "bomb"))
    assert "CE" in report and "grid.py does not compile" in report, report
    assert "needs more than 128 MB of memory" in report, report
    stub_mb, _ = parent_peak_mb(project_root() / "exercises" / "bitgrid")
    # compiled in the parent, the bomb took it to ~740 MB (the stub: ~43 MB)
    assert bomb_mb < stub_mb + 32, (bomb_mb, stub_mb)


def test_the_compiler_child_is_limited(tmp_path: Path) -> None:
    compile_bomb(tmp_path)
    compiled = compile_files({"grid.py": tmp_path / "grid.py"}, CompileLimits(memory_mb=100))
    assert compiled.problem is None
    assert compiled.errors["grid.py"].startswith("compiling it needs more than 100 MB of memory")


def test_syntax_errors_read_as_before_and_later_files_still_compile(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def f(:\n    pass\n")
    (tmp_path / "fine.py").write_text("def g():\n    return 1\n")
    compiled = compile_files({"broken.py": tmp_path / "broken.py", "fine.py": tmp_path / "fine.py"})
    assert list(compiled.errors) == ["broken.py"] and compiled.problem is None
    assert "SyntaxError" in compiled.errors["broken.py"] and "line 1" in compiled.errors["broken.py"]
    assert list((tmp_path / "__pycache__").glob("fine.*.pyc")), "the test processes load the .pyc"


def test_a_child_that_dies_on_a_file_blames_that_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 2\n")
    killer = compiling.CHILD.replace(
        "py_compile.compile(path, doraise=True)",
        "py_compile.compile(path, doraise=True)\n        if path.endswith('b.py'): os.kill(os.getpid(), 9)",
    )
    monkeypatch.setattr(compiling, "CHILD", "import os\n" + killer)
    compiled = compile_files({"a.py": tmp_path / "a.py", "b.py": tmp_path / "b.py"})
    assert list(compiled.errors) == ["b.py"] and compiled.problem is None
    assert compiled.errors["b.py"].startswith("the compiler stopped on this file (signal SIGKILL)")


def test_a_compiler_that_cannot_start_is_the_graders_fault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "sub"
    source.mkdir()
    (source / "grid.py").write_text("x = 1\n")
    monkeypatch.setattr(compiling.sys, "executable", str(tmp_path / "no-python"))
    prepared = prepare(source, Exercise.named("bitgrid"), ["grid.py"], ["play.py"], tmp_path / "code")
    assert prepared.compile_problem is not None and not prepared.syntax_errors
    assert "could not start a compiler process" in prepared.compile_problem
    monkeypatch.undo()
    monkeypatch.setattr(
        submission, "compile_files", lambda *_: compiling.Compiled(problem="the compiler process ended")
    )
    report = grade(load_suite("bitgrid"), source, names=["position"], sandbox="process")
    assert [r.verdict.value for r in report.results] == ["JE"]
    assert "compiler" in report.results[0].message
