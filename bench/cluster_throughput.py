"""Batch throughput on a Dask LocalCluster of 2 workers against the local pool with -j 2 (issue 15).

    .venv/bin/python bench/cluster_throughput.py [--copies N] [--rounds R] [--exercise weighted]

The class: the reference N times and every WA mutant laid over the reference, graded with
`--sandbox auto` by both executors in turn (R rounds, alternating, so both see the same load).
Target: the cluster reaches at least 0.9x the local pool's throughput. The note prints the
measured cost of one submission (core-seconds: wall x 2 / submissions with -j 2) and from it an
estimate of the wall time of 2000 such submissions on 10 machines of 16 cores (160 workers).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.batch.engine import grade_batch  # noqa: E402
from grader.batch.results import collect  # noqa: E402
from grader.judge.mutants import applied, mutants_of  # noqa: E402
from grader.judge.verdicts import Verdict  # noqa: E402
from grader.suite.load import LoadedSuite, load_suite  # noqa: E402

CLUSTER_SUBMISSIONS = 2000
CLUSTER_WORKERS = 10 * 16


def make_class(loaded: LoadedSuite, folder: Path, copies: int) -> int:
    """The reference `copies` times and each WA mutant over the reference; how many in all."""
    reference = loaded.exercise.reference
    for index in range(copies):
        shutil.copytree(reference, folder / f"reference{index}")
    wrong = [m for m in mutants_of(loaded.exercise) if m.verdict is Verdict.WA]
    for mutant in wrong:
        target = folder / f"wa-{mutant.path.stem}"
        shutil.copytree(reference, target)
        with applied(mutant, reference) as patched:
            shutil.copytree(patched, target, dirs_exist_ok=True)
    return copies + len(wrong)


def timed(loaded: LoadedSuite, folder: Path, out: Path, executor: str) -> float:
    shutil.rmtree(out, ignore_errors=True)
    started = time.perf_counter()
    grade_batch(loaded, folder, out, jobs=2, resume=False, sandbox="auto", executor=executor)
    return time.perf_counter() - started


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--exercise", default="weighted")
    parser.add_argument("--copies", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=1)
    options = parser.parse_args()
    loaded = load_suite(options.exercise)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "class"
        folder.mkdir()
        count = make_class(loaded, folder, options.copies)
        print(f"{options.exercise}: {count} submissions; before: {load()}")
        seconds: dict[str, list[float]] = {"local": [], "dask": []}
        scores: dict[str, dict[str, float]] = {}
        for round_number in range(options.rounds):
            for executor in ("local", "dask"):
                out = Path(scratch) / executor
                elapsed = timed(loaded, folder, out, executor)
                seconds[executor].append(elapsed)
                scores[executor] = {s: d["score"] for s, d in collect(out).items()}
                print(
                    f"round {round_number + 1} {executor:5}: {elapsed:6.1f} s = "
                    f"{count / elapsed * 60:5.1f} submissions/minute; {load()}"
                )
        local, cluster = min(seconds["local"]), min(seconds["dask"])
        same = "same" if scores["local"] == scores["dask"] else "DIFFERENT"
        print(f"LocalCluster of 2 / -j 2 throughput: {local / cluster:.2f}x (target >= 0.9x); {same} scores")
        per_submission = local * 2 / count
        estimate = CLUSTER_SUBMISSIONS * per_submission / CLUSTER_WORKERS / min(1.0, local / cluster)
        print(
            f"one submission costs {per_submission:.1f} core-seconds here (-j 2, this load); "
            f"{CLUSTER_SUBMISSIONS} on 10 machines x 16 cores: about {estimate / 60:.1f} minutes "
            f"(no faster than the slowest single submission)"
        )


if __name__ == "__main__":
    main()
