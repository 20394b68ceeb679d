"""Benchmark: one interactive ultimate game at depth 5 against the same game replayed from its
transcript.

    .venv/bin/python bench/interactive_game.py [--depth 5] [--runs 3] [--sandbox bwrap]

Grades the reference's console playing X live against the referee (fixtures/ultimate/referees.py:
the reference engine as the opponent, every console move checked), then runs the console on
the moves the referee typed as a plain stdin file (a transcript test's run: no referee). For each
it prints the test's CPU (its cgroup: what the student is charged) and wall time, and the
parent's own CPU (the referee's turns and checks, the watchdog), with the load average before
and after. The figures go in bench/README.md.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from pathlib import Path

from grader.judge.calibration import uncalibrated
from grader.judge.testrun import Grader, TestLimits, prepared_submission
from grader.sandboxes import Confinement
from grader.suite.interactive import Interactive
from grader.suite.load import load_suite
from grader.suite.schema import TestSpec


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def parent_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sandbox", default="bwrap")
    options = parser.parse_args()
    sandbox: Confinement = options.sandbox
    loaded = load_suite("ultimate")
    game = {"depth": options.depth, "console": "X"}
    live = TestSpec(
        name="bench-live",
        interactive=Interactive(driver="console", referee="referees:console_game", game=game),
        limits={"cpu_s": 120},  # type: ignore[arg-type]
    )
    limits: dict[str, TestLimits] = uncalibrated(loaded, [live])
    print(f"load before: {load()}")
    figures: dict[str, list[tuple[float, float, float, float]]] = {"live": [], "replayed": []}
    with (
        prepared_submission(loaded, loaded.exercise.reference) as (prepared, scratch),
        Grader(loaded, prepared, scratch, limits, sandbox) as grader,
    ):
        for _ in range(options.runs):
            before, started = parent_cpu(), time.monotonic()
            run = grader.run_test(live)
            spent, elapsed = parent_cpu() - before, time.monotonic() - started
            assert run.outcome is not None and run.played is not None, run.stopped
            observed = run.observed
            assert isinstance(observed, dict) and "game" in observed
            figures["live"].append((run.outcome.cpu_s, run.outcome.wall_s, elapsed, spent))
            typed = "".join(text for side, text in observed["game"] if side == ">")
            stdin = grader.inputs / "replay.txt"
            stdin.write_text(typed)
            grader.server.share_inputs(stdin)
            before, started = parent_cpu(), time.monotonic()
            replay = grader.server.run_driver("console", [], stdin, limits[live.name].limits)
            spent, elapsed = parent_cpu() - before, time.monotonic() - started
            assert replay.killed_for is None and replay.worker_failure is None
            figures["replayed"].append((replay.cpu_s, replay.wall_s, elapsed, spent))
    print(f"load after: {load()}")
    print(
        f"one ultimate game at depth {options.depth}, console X vs the reference, "
        f"{options.runs} runs, {sandbox}"
    )
    for kind, rows in figures.items():
        cpu, wall, elapsed, parent = (statistics.median(column) for column in zip(*rows, strict=True))
        print(
            f"{kind:9} test CPU {cpu:.3f} s, test wall {wall:.3f} s (the referee's turns left out), "
            f"elapsed {elapsed:.3f} s, parent CPU {parent:.3f} s (medians)"
        )


if __name__ == "__main__":
    main()
