"""Every exercise's suite verifies: reference full marks, stubs NI, mutants their verdicts."""

from __future__ import annotations

import pytest

from grader.commands.verify import verify
from grader.suite.load import load_suite
from tests.support import SUITE_NAMES


@pytest.mark.slow
@pytest.mark.bwrap
@pytest.mark.timeout(900)
@pytest.mark.parametrize("exercise", SUITE_NAMES)
def test_suite_verifies(exercise: str) -> None:
    outcome = verify(load_suite(exercise))
    assert outcome.ok, "\n".join(outcome.problems)
