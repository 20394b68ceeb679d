"""The examples in the gametree stubs' docstrings hold for the reference solution."""

from __future__ import annotations

import pytest

from tests.exercises.alphabeta.test_docs import run_examples


@pytest.mark.parametrize("module_name", ["gametree", "tictactoe", "prelude", "lazytree"])
def test_stub_examples_hold_for_the_reference(module_name: str) -> None:
    failed, attempted = run_examples("gametree", module_name)
    assert failed == 0
    assert attempted >= 1
    if module_name == "gametree":
        assert attempted >= 20
