"""Time limits relative to the reference ('3x'), timed once per machine and reference version."""

from __future__ import annotations

import contextlib
import json
import os
import platform
from dataclasses import dataclass
from pathlib import Path

from grader.suite import expectations
from grader.suite.load import LoadedSuite
from grader.suite.schema import Limits, LimitSpec, TestSpec

CALIBRATION_RUNS = 2


@dataclass(frozen=True)
class Calibration:
    cpu_s: float
    wall_s: float

    def describe(self, spec: LimitSpec, limits: Limits) -> str:
        parts = []
        if isinstance(spec.cpu_s, str):
            parts.append(f"cpu {spec.cpu_s} of the reference's {self.cpu_s:.3f} s = {limits.cpu_s:g} s")
        if isinstance(spec.wall_s, str):
            parts.append(f"wall {spec.wall_s} of the reference's {self.wall_s:.3f} s = "
                         f"{limits.wall_s:g} s")
        return "; ".join(parts) + f" (floor {spec.floor_s:g} s)"


def cache_path() -> Path:
    override = os.environ.get("GRADER_CACHE")
    base = Path(override) if override else Path.home() / ".cache" / "gametree-grader"
    return base / "calibration.json"


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
    from grader.report.reports import write_atomically

    data = _load_cache()
    data[key] = {"cpu_s": calibration.cpu_s, "wall_s": calibration.wall_s}
    with contextlib.suppress(OSError):
        write_atomically(cache_path(), json.dumps(data, indent=1, sort_keys=True) + "\n")


def reference_timing(loaded: LoadedSuite, test: TestSpec) -> Calibration:
    """The reference's CPU and wall time on `test` here, from the cache or timed now."""
    key = f"{machine_id()}|{loaded.name}|{test.name}|{expectations.fingerprint(loaded, test)}"
    cached = _load_cache().get(key)
    if cached is not None:
        return Calibration(cpu_s=cached["cpu_s"], wall_s=cached["wall_s"])
    from grader.judge.grade import Grader, prepared_submission

    reference = loaded.exercise.reference
    if not reference.is_dir():
        raise FileNotFoundError(f"{loaded.path}: test '{test.name}' has a time limit relative to "
                                f"the reference, and {reference} is not here to time")
    runs = []
    with prepared_submission(loaded, reference) as (prepared, scratch), \
            Grader(loaded, prepared, scratch, record=True, sandbox="auto") as grader:
        for _ in range(CALIBRATION_RUNS):
            judgement, outcome, _ = grader.run_test(test)
            if outcome is None or outcome.result is None:
                raise RuntimeError(f"{loaded.path}: calibrating '{test.name}': the reference gets "
                                   f"{judgement.verdict.value}: {judgement.message}")
            runs.append((outcome.cpu_s, outcome.wall_s))
    calibration = Calibration(cpu_s=min(cpu for cpu, _ in runs), wall_s=min(w for _, w in runs))
    _store(key, calibration)
    return calibration


def limits_for(loaded: LoadedSuite, test: TestSpec, calibrate: bool = True) -> tuple[Limits, str]:
    """The test's limits as numbers, and a note saying how relative ones were calibrated."""
    spec = loaded.suite.limits.merged(test.limits)
    if not spec.relative or not calibrate:
        return spec.resolve(), ""
    timing = reference_timing(loaded, test)
    limits = spec.resolve(timing.cpu_s, timing.wall_s)
    return limits, timing.describe(spec, limits)
