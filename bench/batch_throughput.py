"""Batch grading benchmarks (issues 7 and 8).

    .venv/bin/python bench/batch_throughput.py throughput [N]   # N honest submissions, -j 1 and -j 2
    .venv/bin/python bench/batch_throughput.py hostile [N]      # N submissions, one in five hostile, -j 2

Throughput target: -j 2 at least 1.8x faster than -j 1. Hostile target: every submission gets a
row, honest ones score as when graded alone, no process is left over.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.batch.engine import grade_batch  # noqa: E402
from grader.batch.results import collect, write_class_reports  # noqa: E402
from grader.judge.grade import grade  # noqa: E402
from grader.report.gradebook import Gradebook  # noqa: E402
from grader.suite.load import load_suite  # noqa: E402

SAMPLES = ROOT / "samples" / "bitgrid"
HONEST = ["alice", "bob", "carol.zip", "frank", "erin"]
HOSTILE = {
    "fork_bomb": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
    "memory_spike": "block = b'x' * (400 * 1024 * 1024)\n",
    "kills_server": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n",
    "output_flood": "import sys\nwhile True:\n    sys.stdout.write('spam' * 1000)\n",
    "exit_at_import": "import os\nos._exit(0)\n",
    "sleeper": "import time\ntime.sleep(600)\n",
}


def make_class(folder: Path, count: int, hostile_every: int | None) -> dict[str, str]:
    """`count` submissions; every `hostile_every`-th is hostile. Returns student -> origin."""
    origins = {}
    hostile_names = sorted(HOSTILE)
    for index in range(count):
        student = f"s{index:03d}"
        if hostile_every and index % hostile_every == hostile_every - 1:
            kind = hostile_names[(index // hostile_every) % len(hostile_names)]
            (folder / student).mkdir()
            prefix = HOSTILE[kind]
            body = (SAMPLES / "alice" / "grid.py").read_text()
            (folder / student / "grid.py").write_text(prefix + body)
            origins[student] = f"hostile:{kind}"
            continue
        origin = HONEST[index % len(HONEST)]
        source = SAMPLES / origin
        if source.suffix == ".zip":
            shutil.copyfile(source, folder / f"{student}.zip")
        else:
            shutil.copytree(source, folder / student)
        origins[student] = origin
    return origins


def run(folder: Path, out: Path, jobs: int) -> float:
    loaded = load_suite("bitgrid")
    started = time.perf_counter()
    grade_batch(loaded, folder, out, jobs=jobs, resume=False, sandbox="auto")
    with Gradebook.of(out) as book:
        write_class_reports(loaded, out, book, [p.name.removesuffix(".zip") for p in folder.iterdir()])
    return time.perf_counter() - started


def throughput(count: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "class"
        folder.mkdir()
        make_class(folder, count, hostile_every=None)
        timings = {}
        for jobs in (1, 2):
            seconds = run(folder, Path(scratch) / f"out{jobs}", jobs)
            timings[jobs] = seconds
            print(
                f"-j {jobs}: {count} submissions in {seconds:.1f} s = "
                f"{count / seconds * 60:.1f} submissions/minute"
            )
        print(f"speed-up of -j 2 over -j 1: {timings[1] / timings[2]:.2f}x (target >= 1.8x)")


def hostile(count: int) -> None:
    loaded = load_suite("bitgrid")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "class"
        folder.mkdir()
        origins = make_class(folder, count, hostile_every=5)
        alone = {
            origin: grade(loaded, SAMPLES / origin, sandbox="auto").score
            for origin in set(origins.values())
            if not origin.startswith("hostile")
        }
        before = len(psutil.pids())
        seconds = run(folder, Path(scratch) / "out", 2)
        time.sleep(1)
        after = len(psutil.pids())
        results = collect(Path(scratch) / "out")
        rows = (Path(scratch) / "out" / "grades.csv").read_text().splitlines()[1:]
        wrong = [
            s
            for s, origin in origins.items()
            if not origin.startswith("hostile") and results[s]["score"] != alone[origin]
        ]
        print(
            f"{count} submissions ({count // 5} hostile), -j 2: {seconds:.1f} s; "
            f"{len(rows)} result rows; honest scores different from alone: {len(wrong)}; "
            f"processes before {before}, after {after}"
        )


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "throughput"
    size = int(sys.argv[2]) if len(sys.argv) > 2 else (100 if mode == "throughput" else 200)
    {"throughput": throughput, "hostile": hostile}[mode](size)
