"""Resolving limits before a run: relative ones ('3x') timed on the reference (CALIBRATION_RUNS
runs, the median taken, the spread kept) once per machine and reference version, and cached."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import statistics
from dataclasses import dataclass
from pathlib import Path

from grader.atomic import write_atomically
from grader.errors import UserError
from grader.exercise import cache_folder
from grader.judge.judgement import Judgement
from grader.judge.testrun import Grader, TestLimits, prepared_submission
from grader.judge.verdicts import Verdict
from grader.sandboxes import Confinement
from grader.suite import expectations
from grader.suite.limits import Limits, LimitSpec
from grader.suite.load import LoadedSuite
from grader.suite.schema import TestSpec

CALIBRATION_RUNS = 5  # the reference is timed this often; its median is the base of the limit
CACHE_VERSION = "median5"  # part of the cache key: entries of another way of timing are not used


class CalibrationError(UserError):
    """The reference could not be timed for a limit relative to it."""


@dataclass(frozen=True)
class Calibration:
    """The reference's median CPU and wall time over its timed runs, and the CPU spread."""

    cpu_s: float
    wall_s: float
    cpu_low_s: float = 0.0
    cpu_high_s: float = 0.0
    runs: int = 1

    def describe(self, spec: LimitSpec, limits: Limits) -> str:
        """How the limits were calibrated.

        >>> timing = Calibration(0.21, 0.25, 0.2, 0.26, 5)
        >>> timing.describe(LimitSpec(cpu_s="7x"), LimitSpec(cpu_s="7x").resolve(0.21, 0.25))
        "cpu 7x of the reference's 0.210 s (median of 5 runs, 0.200-0.260 s) = 1.47 s (floor 1 s)"
        """
        parts = []
        spread = (
            f" (median of {self.runs} runs, {self.cpu_low_s:.3f}-{self.cpu_high_s:.3f} s)"
            if self.runs > 1
            else ""
        )
        if isinstance(spec.cpu_s, str):
            parts.append(
                f"cpu {spec.cpu_s} of the reference's {self.cpu_s:.3f} s{spread} = {limits.cpu_s:g} s"
            )
        if isinstance(spec.wall_s, str):
            parts.append(f"wall {spec.wall_s} of the reference's {self.wall_s:.3f} s = {limits.wall_s:g} s")
        return "; ".join(parts) + f" (floor {spec.floor_s:g} s)"


def cache_path() -> Path:
    return cache_folder() / "calibration.json"


def machine_id() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{platform.node()}|{model}|{os.cpu_count()}"


def _load_cache() -> dict[str, dict[str, float]]:
    try:
        data = json.loads(cache_path().read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _store(key: str, calibration: Calibration) -> None:
    data = _load_cache()
    data[key] = {
        "cpu_s": calibration.cpu_s,
        "wall_s": calibration.wall_s,
        "cpu_low_s": calibration.cpu_low_s,
        "cpu_high_s": calibration.cpu_high_s,
        "runs": calibration.runs,
    }
    with contextlib.suppress(OSError):
        write_atomically(cache_path(), json.dumps(data, indent=1, sort_keys=True) + "\n")


def reference_timing(loaded: LoadedSuite, test: TestSpec, sandbox: Confinement) -> Calibration:
    """The reference's CPU and wall time on `test` here, from the cache or timed now."""
    key = f"{machine_id()}|{loaded.name}|{test.name}|{expectations.fingerprint(loaded, test)}|{CACHE_VERSION}"
    cached = _load_cache().get(key)
    if cached is not None:
        try:
            return Calibration(
                cpu_s=float(cached["cpu_s"]),
                wall_s=float(cached["wall_s"]),
                cpu_low_s=float(cached["cpu_low_s"]),
                cpu_high_s=float(cached["cpu_high_s"]),
                runs=int(cached["runs"]),
            )
        except (KeyError, TypeError, ValueError):
            pass  # a damaged entry: time the reference again
    reference = loaded.exercise.reference
    if not reference.is_dir():
        raise CalibrationError(
            f"{loaded.path}: test '{test.name}' has a time limit relative to "
            f"the reference, and {reference} is not here to time"
        )
    runs = []
    with (
        prepared_submission(loaded, reference) as (prepared, scratch),
        Grader(loaded, prepared, scratch, uncalibrated(loaded, [test]), sandbox) as grader,
    ):
        for _ in range(CALIBRATION_RUNS):
            run = grader.run_test(test)
            if run.outcome is None or run.stopped is not None:
                stopped = run.stopped or Judgement(Verdict.JE, "the test did not run")
                raise CalibrationError(
                    f"{loaded.path}: calibrating '{test.name}': the reference gets "
                    f"{stopped.verdict.value}: {stopped.message}"
                )
            runs.append((run.outcome.cpu_s, run.outcome.wall_s))
    cpus = [cpu for cpu, _ in runs]
    calibration = Calibration(
        cpu_s=round(statistics.median(cpus), 4),
        wall_s=round(statistics.median(w for _, w in runs), 4),
        cpu_low_s=min(cpus),
        cpu_high_s=max(cpus),
        runs=len(runs),
    )
    _store(key, calibration)
    return calibration


def uncalibrated(loaded: LoadedSuite, tests: list[TestSpec]) -> dict[str, TestLimits]:
    """The tests' limits with relative times left generous (what `grader record` runs under)."""
    return {test.name: TestLimits(loaded.suite.limits.merged(test.limits).resolve()) for test in tests}


def resolve_limits(loaded: LoadedSuite, tests: list[TestSpec], sandbox: Confinement) -> dict[str, TestLimits]:
    """The tests' limits as numbers, timing the reference first (under `sandbox`) for relative ones.

    A test whose reference cannot be timed keeps generous limits and says why (it is then JE).
    """
    resolved = uncalibrated(loaded, tests)
    for test in tests:
        spec = loaded.suite.limits.merged(test.limits)
        if not spec.relative:
            continue
        try:
            timing = reference_timing(loaded, test, sandbox)
        except (CalibrationError, OSError, ValueError, KeyError, RuntimeError) as error:
            resolved[test.name] = TestLimits(spec.resolve(), problem=f"{error}")
            continue
        limits = spec.resolve(timing.cpu_s, timing.wall_s)
        resolved[test.name] = TestLimits(limits, timing.describe(spec, limits))
    return resolved
