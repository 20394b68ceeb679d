"""Benchmark: what a hostile submission costs the trusted parent itself (issue 20, finding 7).

1. Transcript diffs. For each of ultimate's transcript tests, a near miss at the suite's output
   cap (every line of the expectation comes back every 100 lines: just under difflib's autojunk
   threshold, so a whole-transcript diff goes quadratic) and a plain wrong output (one line of
   the expectation changed). Prints the parent's CPU (`time.process_time()`, this process only)
   to judge all of them: `before` is the former whole-transcript `difflib.unified_diff`, `after`
   is `judge_transcript` as it is now (a linear scan, difflib on a bounded window).
2. Compile bombs. The peak resident memory (VmHWM, read from /proc from outside, of that process
   alone) of a process that compiles a 2 MB line `x = f()()()...` itself (`before`: the grader
   did that in `prepare`), and of a `grader grade` process grading that submission now (`after`:
   the compiling child is limited, and it is not the grader), each next to the stub's.

    .venv/bin/python bench/parent_bounded.py [--runs N]

Prints figures; asserts no times.
"""

from __future__ import annotations

import argparse
import difflib
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.judge.judgement import judge_transcript  # noqa: E402
from grader.run.submission import MAX_FILE_BYTES  # noqa: E402
from grader.suite import expectations  # noqa: E402
from grader.suite.load import load_suite  # noqa: E402
from grader.suite.normalize import normalized_lines  # noqa: E402
from grader.suite.schema import Normalize  # noqa: E402

# The grader in a child that, once done, waits on stdin while its VmHWM is read from outside.
THEN_WAIT = "print('done', flush=True)\nsys.stdin.read()\n"
GRADER = "import sys\nfrom grader.cli import main\nmain(sys.argv[1:])\n" + THEN_WAIT
COMPILER = "import py_compile, sys\npy_compile.compile(sys.argv[1], doraise=False)\n" + THEN_WAIT


def near_miss(expected: list[str], cap_bytes: int) -> str:
    common = [line for line, _ in Counter(expected).most_common(100)]
    cycle = common + [f"filler {k}" for k in range(101 - len(common))]
    lines: list[str] = []
    size = 0
    while size < cap_bytes - 100:
        lines.append(cycle[len(lines) % len(cycle)])
        size += len(lines[-1]) + 1
    return "\n".join(lines)


def one_line_off(expected: list[str]) -> str:
    lines = list(expected)
    lines[len(lines) // 2] = "a wrong line"
    return "\n".join(lines)


def former_judge(got: str, expected: str, rules: Normalize) -> None:
    """What the parent did before: normalize both, then difflib over both whole transcripts."""
    got_lines, expected_lines = normalized_lines(got, rules), normalized_lines(expected, rules)
    if got_lines != expected_lines:
        list(difflib.unified_diff(expected_lines, got_lines, "expected", "your output", n=3, lineterm=""))


def reading_only(got: str, expected: str, rules: Normalize) -> None:
    """The least any judging does: normalize both transcripts and compare them."""
    _ = normalized_lines(got, rules) == normalized_lines(expected, rules)


def current_judge(got: str, expected: str, rules: Normalize) -> None:
    judge_transcript(got, 0, expected, 0, rules)


def diff_cpu(
    make: Callable[[list[str], int], str], judge: Callable[[str, str, Normalize], None], runs: int
) -> tuple[float, int]:
    """The least CPU over `runs` to judge every transcript test of ultimate; how many tests."""
    loaded = load_suite("ultimate")
    cap = int(loaded.suite.limits.output_kb * 1024)
    cases = []
    for test in loaded.suite.tests:
        if test.transcript is None:
            continue
        expected, _ = expectations.load_transcript(loaded, test)
        rules = test.normalize or loaded.suite.normalize
        cases.append((make(normalized_lines(expected, rules), cap), expected, rules))
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        for got, expected, rules in cases:
            judge(got, expected, rules)
        best = min(best, time.process_time() - start)
    return best, len(cases)


def peak_mb(command: list[str]) -> float:
    """VmHWM of the child running `command` once it says it is done, read from outside."""
    child = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT
    )
    assert child.stdout is not None and child.stdin is not None
    while (line := child.stdout.readline()) and line.strip() != "done":
        pass
    status = Path(f"/proc/{child.pid}/status").read_text()
    child.stdin.close()
    child.wait()
    return next(int(row.split()[1]) for row in status.splitlines() if row.startswith("VmHWM:")) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.2f}")
    for label, make in (
        ("near miss at the output cap", near_miss),
        ("one line wrong", lambda lines, _cap: one_line_off(lines)),
    ):
        before, count = diff_cpu(make, former_judge, args.runs)
        after, _ = diff_cpu(make, current_judge, args.runs)
        reading, _ = diff_cpu(make, reading_only, args.runs)
        print(
            f"transcripts, {label}: parent CPU for ultimate's {count} transcript tests "
            f"(least of {args.runs}): before {before:.3f} s, after {after:.3f} s (normalizing "
            f"and comparing alone: {reading:.3f} s)"
        )
    with tempfile.TemporaryDirectory(prefix="parent-bounded-") as scratch:
        bomb = Path(scratch) / "bomb"
        bomb.mkdir()
        (bomb / "grid.py").write_text("x = f" + "()" * ((MAX_FILE_BYTES - 16) // 2) + "\n")
        stub = ROOT / "exercises" / "bitgrid"
        for label, folder in (("stub", stub), ("compile bomb", bomb)):
            before = peak_mb([sys.executable, "-c", COMPILER, str(folder / "grid.py")])
            after = peak_mb(
                [
                    sys.executable,
                    "-c",
                    GRADER,
                    "grade",
                    "bitgrid",
                    str(folder),
                    "--sandbox",
                    "process",
                    "--test",
                    "position",
                ]
            )
            print(
                f"compiling, {label}: peak resident memory of a bare interpreter compiling it "
                f"{before:.0f} MB (before, the grader's own process did this on top of its "
                f"own ~40 MB); of the grader grading it now {after:.0f} MB"
            )


if __name__ == "__main__":
    main()
