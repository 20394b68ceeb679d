"""Every `>>>` example in a stub of exercises/ holds for the reference solution.

The examples run with the stub module's imports and the reference's definitions (see
tests/exercises/alphabeta/test_docs.py), so a student who answers right sees what they show.
"""

from __future__ import annotations

import pytest

from tests.exercises.alphabeta.test_docs import docstring_examples, run_examples
from tests.support import ROOT

WITH_EXAMPLES = sorted(
    (path.parent.name, path.stem)
    for path in ROOT.glob("exercises/*/*.py")
    if docstring_examples(path.parent.name, path.stem)
)


def test_some_stubs_have_examples() -> None:
    assert len(WITH_EXAMPLES) >= 5, WITH_EXAMPLES


@pytest.mark.parametrize(("exercise", "module_name"), WITH_EXAMPLES)
def test_stub_examples_hold_for_the_reference(exercise: str, module_name: str) -> None:
    failed, attempted = run_examples(exercise, module_name)
    assert attempted >= 1
    assert failed == 0
