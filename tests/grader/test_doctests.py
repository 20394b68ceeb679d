"""The `>>>` examples in the grader's own docstrings hold, every one of them run."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

import grader

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(grader.__path__, "grader.")
    if not info.name.endswith("__main__") and not info.name.startswith("grader.service.migrations")
)  # Django generates them
PROMPT = re.compile(r"^\s*>>> ", re.MULTILINE)


def _imported(name: str) -> ModuleType:
    if name.startswith("grader.run.box."):  # its modules import their siblings by bare name
        box = str(Path(grader.__file__).parent / "run" / "box")  # (grader/run/box/__init__.py):
        if box not in sys.path:  # found last, whichever test imported an entry script first
            sys.path.append(box)
    if name.startswith("grader.service."):  # Django's models need configured settings
        from grader.service.setup import configure_without_course

        configure_without_course()
    return importlib.import_module(name)


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_of_a_grader_module_hold(name: str) -> None:
    module = _imported(name)
    written = len(PROMPT.findall(inspect.getsource(module)))
    outcome = doctest.testmod(module)
    assert outcome.failed == 0
    assert outcome.attempted == written, (
        f"{name}: {written} examples written, "
        f"{outcome.attempted} run (one doctest cannot find is never checked)"
    )


def test_the_grader_has_examples_to_run() -> None:
    """A floor, so that a change that stops doctest finding any example cannot pass unseen."""
    run = sum(doctest.testmod(_imported(name)).attempted for name in MODULES)
    assert run >= len(MODULES) // 2, run
