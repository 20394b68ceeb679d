"""Limits as suites write them: the wall-clock rule, its overrides, scratch space and environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.suite.limits import Limits, LimitSpec, default_wall_s
from grader.suite.load import load_suite, parse_suite
from grader.suite.model import SuiteError
from tests.support import SUITE_NAMES

SUITE = """\
exercise: toy
submit: [toy.py]
SUITE_KEYS
tests:
  - name: answer
    call: toy.answer
    cases: [[1]]
TEST_KEYS
"""


def write(tmp_path: Path, suite_keys: str = "", test_keys: str = "") -> Path:
    path = tmp_path / "toy.yaml"
    path.write_text(SUITE.replace("SUITE_KEYS", suite_keys).replace("TEST_KEYS", test_keys))
    return path


def limits_of(tmp_path: Path, suite_keys: str = "", test_keys: str = "") -> Limits:
    loaded = parse_suite(write(tmp_path, suite_keys, test_keys))
    (test,) = loaded.suite.tests
    return loaded.suite.limits.merged(test.limits).resolve()


def rejected(tmp_path: Path, suite_keys: str = "", test_keys: str = "") -> str:
    path = write(tmp_path, suite_keys, test_keys)
    with pytest.raises(SuiteError) as caught:
        parse_suite(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:"), message
    assert "\n" not in message
    return message


# ------------------------------------------------------------------ the wall-clock rule


@pytest.mark.parametrize(("cpu_s", "wall_s"), [(5, 35), (20, 60), (2, 32), (15, 45), (40, 120)])
def test_wall_clock_is_max_of_three_times_and_thirty_seconds_more(cpu_s: float, wall_s: float) -> None:
    assert default_wall_s(cpu_s) == wall_s
    assert LimitSpec(cpu_s=cpu_s).resolve().wall_s == wall_s


def test_wall_clock_rule_applies_per_test(tmp_path: Path) -> None:
    assert limits_of(tmp_path, "limits: {cpu_s: 5}").wall_s == 35
    assert limits_of(tmp_path, "limits: {cpu_s: 5}", "    limits: {cpu_s: 20}").wall_s == 60
    assert limits_of(tmp_path).wall_s == default_wall_s(LimitSpec().cpu_s) == Limits().wall_s


def test_wall_clock_rule_follows_a_relative_cpu_limit() -> None:
    spec = LimitSpec(cpu_s="3x", floor_s=0.2)
    limits = spec.resolve(reference_cpu_s=2.0, reference_wall_s=2.5)
    assert (limits.cpu_s, limits.wall_s) == (6.0, 36.0)
    assert spec.resolve(reference_cpu_s=20.0).wall_s == 180.0


def test_explicit_wall_clock_is_kept(tmp_path: Path) -> None:
    assert limits_of(tmp_path, "limits: {cpu_s: 5, wall_s: 12}").wall_s == 12
    assert limits_of(tmp_path, "limits: {cpu_s: 5, wall_s: 5}").wall_s == 5
    assert limits_of(tmp_path, "limits: {cpu_s: 5}", "    limits: {wall_s: 8}").wall_s == 8
    assert limits_of(tmp_path, "limits: {cpu_s: 5, wall_s: 12}", "    limits: {cpu_s: 2}").wall_s == 12
    relative = LimitSpec(cpu_s=5, wall_s="5x").resolve(reference_cpu_s=1.0, reference_wall_s=2.0)
    assert relative.wall_s == 10


def test_wall_clock_below_cpu_limit_is_rejected(tmp_path: Path) -> None:
    message = rejected(tmp_path, "limits:\n  cpu_s: 5\n  wall_s: 3")
    assert ":5: limits.wall_s: 3 s is below cpu_s 5 s" in message
    assert "max(3 x cpu_s, cpu_s + 30 s)" in message


@pytest.mark.parametrize(
    ("suite_keys", "test_keys", "expected"),
    [
        (
            "limits: {cpu_s: 5}",
            "    limits: {wall_s: 2}",
            ":8: tests.0.limits.wall_s: 2 s is below the suite's cpu_s 5 s",
        ),
        ("", "    limits: {cpu_s: 20, wall_s: 10}", ":8: tests.0.limits.wall_s: 10 s is below cpu_s 20 s"),
        (
            "limits: {cpu_s: 5, wall_s: 8}",
            "    limits: {cpu_s: 10}",
            ":8: tests.0.limits.cpu_s: 10 s is above the suite's wall_s 8 s",
        ),
    ],
)
def test_test_wall_clock_below_its_cpu_limit_is_rejected(
    tmp_path: Path, suite_keys: str, test_keys: str, expected: str
) -> None:
    assert expected in rejected(tmp_path, suite_keys, test_keys)


@pytest.mark.parametrize("exercise", SUITE_NAMES)
def test_bundled_suites_leave_the_wall_clock_to_the_rule(exercise: str) -> None:
    suite = load_suite(exercise).suite
    assert suite.limits.wall_s is None
    assert [t.name for t in suite.tests if t.limits is not None and t.limits.wall_s is not None] == []


# ------------------------------------------------------------------ scratch space and environment


def test_scratch_and_environment_defaults(tmp_path: Path) -> None:
    limits = limits_of(tmp_path)
    assert (limits.scratch_mb, limits.scratch_files) == (64, 512)
    assert (Limits().scratch_mb, Limits().scratch_files) == (64, 512)
    assert parse_suite(write(tmp_path)).suite.env == {}


def test_scratch_limits_are_set_per_suite_and_per_test(tmp_path: Path) -> None:
    limits = limits_of(
        tmp_path, "limits: {scratch_mb: 8, scratch_files: 20}", "    limits: {scratch_files: 3}"
    )
    assert (limits.scratch_mb, limits.scratch_files) == (8, 3)
    assert isinstance(limits.scratch_files, int)


def test_environment_is_read(tmp_path: Path) -> None:
    suite = parse_suite(write(tmp_path, 'env: {GAME_SEED: "42", _X1: "a b"}')).suite
    assert suite.env == {"GAME_SEED": "42", "_X1": "a b"}


@pytest.mark.parametrize(
    ("suite_keys", "test_keys", "expected"),
    [
        ("limits: {scratch_mb: 0}", "", ":3: limits.scratch_mb: Input should be greater than 0"),
        ("limits: {scratch_mb: lots}", "", ":3: limits.scratch_mb: Input should be a valid number"),
        (
            "limits: {scratch_files: 0}",
            "",
            ":3: limits.scratch_files: Input should be greater than or equal to 1",
        ),
        ("limits: {scratch_files: 2.5}", "", ":3: limits.scratch_files: Input should be a valid integer"),
        ("", "    limits: {scratch_mb: -1}", ":8: tests.0.limits.scratch_mb: Input should be greater than 0"),
        ("env: {1ST: x}", "", ":3: env.1ST: '1ST' is not an environment variable name"),
        ("env:\n  OK: x\n  BAD-NAME: y", "", ":5: env.BAD-NAME: 'BAD-NAME' is not an environment variable"),
        ("env: {SEED: 42}", "", ":3: env.SEED: Input should be a valid string"),
        ("env: [SEED]", "", ":3: env: Input should be a valid dictionary"),
    ],
)
def test_bad_scratch_or_environment_is_rejected(
    tmp_path: Path, suite_keys: str, test_keys: str, expected: str
) -> None:
    assert expected in rejected(tmp_path, suite_keys, test_keys)
