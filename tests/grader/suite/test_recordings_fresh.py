"""Every exercise's recorded expectations match its reference, given files, tests and inputs.

`grader verify` checks this too, in a slow test; this one is fast, so a changed given file or
generator that needs `grader record NAME` is caught by any run of the quick tests.
"""

from __future__ import annotations

import pytest

from grader.suite import expectations
from grader.suite.load import load_suite
from tests.support import SUITE_NAMES


@pytest.mark.parametrize("exercise", SUITE_NAMES)
def test_recordings_are_fresh(exercise: str) -> None:
    loaded = load_suite(exercise)
    stale = [
        test.name
        for test in loaded.suite.tests
        if expectations.recorded_fingerprint(loaded, test) != expectations.fingerprint(loaded, test)
    ]
    assert not stale, f"run `grader record {exercise}`: {', '.join(stale)}"
