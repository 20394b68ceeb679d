"""Benchmark: how close the parent's deadlines on the fork server come to firing under load (issue 20).

Every wait of the trusted parent on its fork server has a wall-clock deadline, and a deadline that
fires is a JE: the fork server's start (`runner.START_TIMEOUT_S`), its `started` answer and the
writes of a request (`watchdog.ANSWER_TIMEOUT_S`), the result's payload (the same), and `done`
after the parent killed a test (`watchdog.AFTER_KILL_TIMEOUT_S`). This grades the references of
`--exercises` and their TLE mutants (which exercise the kill path) and prints, for each
deadline, the longest wait seen against the deadline, idle and then with two busy loops per core
(each in a session of its own, as independent jobs are). Prints figures and the load; asserts
nothing.

    .venv/bin/python bench/load_deadlines.py [--exercises gametree ultimate] [--no-idle] [--verify]

With `--verify` it runs `grader verify` of each exercise instead (both references, the stubs and
every mutant) and prints whether it verified, how long it took and its problems.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.watchdog_share import busy_loops  # noqa: E402
from grader.commands.verify import verify  # noqa: E402
from grader.judge.grade import grade  # noqa: E402
from grader.judge.mutants import applied, mutants_of  # noqa: E402
from grader.judge.verdicts import Verdict  # noqa: E402
from grader.run import channel, runner, watchdog  # noqa: E402
from grader.suite.load import load_suite  # noqa: E402

DEADLINES = {
    "fork server start (ready)": runner.START_TIMEOUT_S,
    "request written": watchdog.ANSWER_TIMEOUT_S,
    "started": watchdog.ANSWER_TIMEOUT_S,
    "done after a kill": watchdog.AFTER_KILL_TIMEOUT_S,
    "result payload": watchdog.ANSWER_TIMEOUT_S,
}


def _timed(owner: Any, name: str, key: str, worst: dict[str, float]) -> Callable[[], None]:
    """Wrap owner.name so that each call's duration feeds worst[key]; returns the undo."""
    original = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.monotonic()
        try:
            return original(*args, **kwargs)
        finally:
            worst[key] = max(worst.get(key, 0.0), time.monotonic() - start)

    setattr(owner, name, wrapper)
    return lambda: setattr(owner, name, original)


@contextmanager
def measured() -> Iterator[dict[str, float]]:
    worst: dict[str, float] = {}
    kills: dict[int, float] = {}
    original_kill, original_collect = watchdog.Test._kill, watchdog.Test._collect

    def kill(self: watchdog.Test) -> None:
        kills[id(self)] = time.monotonic()
        original_kill(self)

    def collect(self: watchdog.Test, done: Any) -> None:
        if id(self) in kills:
            waited = time.monotonic() - kills.pop(id(self))
            worst["done after a kill"] = max(worst.get("done after a kill", 0.0), waited)
        original_collect(self, done)

    undo = [
        _timed(runner.ForkServer, "start", "fork server start (ready)", worst),
        _timed(runner.ForkServer, "send", "request written", worst),
        _timed(channel.Channel, "started", "started", worst),
        _timed(channel.Channel, "payload", "result payload", worst),
    ]
    watchdog.Test._kill = kill  # type: ignore[method-assign]
    watchdog.Test._collect = collect  # type: ignore[method-assign]
    try:
        yield worst
    finally:
        watchdog.Test._kill = original_kill  # type: ignore[method-assign]
        watchdog.Test._collect = original_collect  # type: ignore[method-assign]
        for step in undo:
            step()


def run(exercises: list[str], label: str, verifying: bool) -> None:
    with measured() as worst:
        je: list[str] = []
        for name in exercises:
            loaded = load_suite(name)
            if verifying:
                start = time.monotonic()
                outcome = verify(loaded, sandbox="bwrap")
                print(
                    f"  grader verify {name}: {'verified' if outcome.ok else 'FAILED'} in "
                    f"{time.monotonic() - start:.0f} s"
                    + "".join(f"\n    {problem}" for problem in outcome.problems.messages()),
                    flush=True,
                )
                je += [problem for problem in outcome.problems.messages() if "JE" in problem]
                continue
            reports = [("reference", grade(loaded, loaded.exercise.reference, sandbox="bwrap"))]
            for mutant in mutants_of(loaded.exercise):
                if mutant.verdict is Verdict.TLE:
                    with applied(mutant, loaded.exercise.reference) as patched:
                        reports.append(
                            (
                                mutant.name,
                                grade(loaded, patched, sandbox="bwrap", overlay=loaded.exercise.reference),
                            )
                        )
            je += [
                f"{name} {who} {r.name}: {r.message}"
                for who, report in reports
                for r in report.results
                if r.verdict is Verdict.JE
            ]
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    what = "grader verify" if verifying else "references and TLE mutants"
    print(f"{label} (load {load}), {', '.join(exercises)}: {what}")
    for key, deadline in DEADLINES.items():
        print(f"  {key}: longest {worst.get(key, 0.0):.3f} s of its {deadline:g} s")
    print(f"  JE: {len(je)}" + "".join(f"\n    {line}" for line in je))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercises", nargs="*", default=["gametree", "ultimate"])
    parser.add_argument("--no-idle", action="store_true", help="only under load")
    parser.add_argument(
        "--verify", action="store_true", help="run `grader verify` of each exercise (every mutant) instead"
    )
    args = parser.parse_args()
    if not args.no_idle:
        run(args.exercises, "idle", args.verify)
    with busy_loops() as loops:
        run(args.exercises, f"{loops} busy loops", args.verify)


if __name__ == "__main__":
    main()
