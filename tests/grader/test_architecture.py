"""The grader's shape: stages import downward only, no import cycle, no module over 400 lines.

The import contracts live in pyproject.toml ([tool.importlinter]); docs/architecture.md says why.
"""

from __future__ import annotations

import pytest
from importlinter.cli import lint_imports

from grader.exercise import project_root

MAX_MODULE_LINES = 400


def test_the_import_contracts_hold(capsys: pytest.CaptureFixture[str]) -> None:
    status = lint_imports(config_filename=str(project_root() / "pyproject.toml"), no_cache=True, no_logo=True)
    assert status == 0, capsys.readouterr().out


def test_no_module_of_the_grader_is_over_400_lines() -> None:
    grader = project_root() / "grader"
    lengths = {
        path.relative_to(grader).as_posix(): len(path.read_text().splitlines())
        for path in sorted(grader.rglob("*.py"))
    }
    assert lengths, f"no module found under {grader}"
    too_long = {name: count for name, count in lengths.items() if count > MAX_MODULE_LINES}
    assert not too_long, f"modules over {MAX_MODULE_LINES} lines (split them): {too_long}"
