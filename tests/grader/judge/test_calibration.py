"""Time limits written relative to the reference ('3x') are timed once and cached."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.report.reports import results_json
from tests.conftest import Build

SUITE = """
exercise: toy
submit: [toy.py]
limits: {cpu_s: 3x, wall_s: 20, floor_s: 0.2}
tests:
  - name: spin
    call: toy.spin
    cases: [[1]]
"""

REFERENCE = """
def spin(n):
    total = 0
    for i in range(1_500_000):
        total += i % 7
    return n
"""

SLOW = REFERENCE.replace("1_500_000", "30_000_000")


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("GRADER_CACHE", str(cache))
    return cache / "calibration.json"


def test_relative_limit_rejects_a_much_slower_solution(grade_toy: Build, private_cache: Path) -> None:
    report = grade_toy(SUITE, REFERENCE, SLOW)
    (result,) = report.results
    assert result.verdict.value == "TLE", result.message
    (entry,) = json.loads(private_cache.read_text()).values()
    assert result.limits["cpu_s"] == pytest.approx(max(0.2, 3 * entry["cpu_s"]), abs=0.002)
    note = results_json(report)["tests"][0]["extra_data"]["calibration"]
    assert note.startswith("cpu 3x of the reference's") and "(floor 0.2 s)" in note


def test_calibration_is_cached_per_machine_and_reference(grade_toy: Build, private_cache: Path) -> None:
    first = grade_toy(SUITE, REFERENCE, REFERENCE)
    assert first.results[0].verdict.value == "AC"
    cached = private_cache.read_text()
    second = grade_toy(SUITE, REFERENCE, REFERENCE)
    assert private_cache.read_text() == cached
    assert second.results[0].limits == first.results[0].limits
    grade_toy(SUITE, REFERENCE.replace("% 7", "% 11"), REFERENCE)
    assert len(json.loads(private_cache.read_text())) == 2, "a new reference is timed again"
