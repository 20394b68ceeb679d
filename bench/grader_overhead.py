"""Benchmarks of the grader itself (issue 2): per-test overhead, transcript overhead, memory accuracy.

Run: .venv/bin/python bench/grader_overhead.py
Targets: median isolated call test <= 5 ms; a ~1 s transcript graded in <= 1.10x its bare run;
a submission holding 200 MB reported within 5 %; a 50 ms spike to 2x the limit gets MLE.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SUITE = """
exercise: toy
submit: [toy.py]
given: [drive.py]
limits: {cpu_s: 20, wall_s: 40, memory_mb: 300, output_kb: 4096}
tests:
  - name: trivial
    call: toy.double
    cases: [[21]]
  - name: hold-200
    call: toy.hold
    cases: [[200]]
  - name: spike
    limits: {memory_mb: 100}
    call: toy.spike
    cases: [[200]]
  - name: second-long
    transcript: {driver: drive, stdin: in.txt, expected: out.txt}
"""

TOY = """
import time


def double(n):
    return 2 * n


def hold(megabytes):
    block = bytearray(megabytes * 1024 * 1024)
    for i in range(0, len(block), 4096):
        block[i] = 1
    time.sleep(0.3)
    return len(block) // (1024 * 1024)


def spike(megabytes):
    block = bytearray(megabytes * 1024 * 1024)
    for i in range(0, len(block), 4096):
        block[i] = 1
    time.sleep(0.05)
    del block
    return megabytes


def work(rounds):
    total = 0
    for i in range(rounds):
        total = (total * 31 + i) % 1000003
        if i % 20000 == 0:
            print(total)
    return total
"""

DRIVER = """
import sys
from toy import work
print(work(int(sys.stdin.readline())))
"""


def setup(root: Path, rounds: int) -> None:
    for folder in ("exercises/toy", "reference/toy", "fixtures/toy"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "fixtures/toy/suite.yaml").write_text(SUITE)
    (root / "reference/toy/toy.py").write_text(textwrap.dedent(TOY))
    (root / "exercises/toy/toy.py").write_text("")
    (root / "exercises/toy/drive.py").write_text(textwrap.dedent(DRIVER))
    (root / "fixtures/toy/in.txt").write_text(f"{rounds}\n")


def bare_run_seconds(root: Path) -> float:
    code = root / "bare"
    code.mkdir(exist_ok=True)
    for name, folder in (("toy.py", "reference/toy"), ("drive.py", "exercises/toy")):
        (code / name).write_bytes((root / folder / name).read_bytes())
    started = time.perf_counter()
    with open(root / "fixtures/toy/in.txt") as stdin:
        subprocess.run(
            [sys.executable, str(code / "drive.py")], stdin=stdin, stdout=subprocess.DEVNULL, check=True
        )
    return time.perf_counter() - started


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="bench-grader-"))
    os.environ["GRADER_ROOT"] = str(root)
    from grader.commands.record import record
    from grader.judge.calibration import uncalibrated
    from grader.judge.testrun import Grader, prepared_submission
    from grader.run.sandbox import choose
    from grader.suite.load import load_suite

    rounds = 12_000_000
    setup(root, rounds)
    loaded = load_suite("toy")
    assert not record(loaded, names=["trivial", "hold-200", "second-long"]).failures
    tests = {test.name: test for test in loaded.suite.tests}
    with (
        prepared_submission(loaded, root / "reference/toy") as (prepared, scratch),
        Grader(
            loaded,
            prepared,
            scratch,
            uncalibrated(loaded, list(tests.values())),
            choose(None, loaded.suite.sandbox, "bwrap"),
        ) as grader,
    ):
        for _ in range(20):
            grader.grade_test(tests["trivial"])
        times = []
        for _ in range(200):
            started = time.perf_counter()
            judgement, _ = grader.grade_test(tests["trivial"])
            times.append(time.perf_counter() - started)
            assert judgement.verdict.value == "AC"
        print(
            f"isolated call test: median {statistics.median(times) * 1000:.2f} ms, "
            f"p90 {sorted(times)[179] * 1000:.2f} ms over 200 runs (target <= 5 ms)"
        )

        judgement, run = grader.grade_test(tests["hold-200"])
        outcome = run.outcome
        assert outcome is not None
        error = abs(outcome.peak_mb - 200) / 200
        print(
            f"holding 200 MB: reported {outcome.peak_mb:.1f} MB ({error:.1%} off, target <= 5%), "
            f"verdict {judgement.verdict.value}"
        )
        judgement, run = grader.grade_test(tests["spike"])
        outcome = run.outcome
        assert outcome is not None
        print(
            f"50 ms spike to 200 MB under a 100 MB limit: verdict {judgement.verdict.value}, "
            f"peak {outcome.peak_mb:.1f} MB (target MLE)"
        )

        graded, bare = [], []
        for _ in range(3):
            started = time.perf_counter()
            judgement, _ = grader.grade_test(tests["second-long"])
            graded.append(time.perf_counter() - started)
            assert judgement.verdict.value == "AC", judgement.message
            bare.append(bare_run_seconds(root))
        ratio = statistics.median(graded) / statistics.median(bare)
        print(
            f"transcript test: graded {statistics.median(graded):.3f} s, bare run "
            f"{statistics.median(bare):.3f} s, ratio {ratio:.3f} (target <= 1.10)"
        )


if __name__ == "__main__":
    main()
