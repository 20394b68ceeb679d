"""Helpers for tests that import an exercise's modules directly (not through the grader)."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
SUITE_NAMES = sorted(path.parent.name for path in (ROOT / "fixtures").glob("*/suite.yaml"))

# A toy exercise for the boundary's tests: `answer(n)` called, and a driver reading numbers.
TOY_SUITE = """
exercise: toy
submit: [toy.py]
given: [drive.py]
limits: LIMITS
tests:
  - name: call
    call: toy.answer
    cases: [[1], [2]]
  - name: transcript
    transcript: {driver: drive, stdin: numbers.txt, expected: numbers.out.txt}
"""
TOY_DRIVER = """
import sys
from toy import answer
for line in sys.stdin:
    print(answer(int(line)))
"""
TOY_REFERENCE = "def answer(n):\n    return 2 * n\n"


def toy_suite(limits: str) -> str:
    """The toy suite under `limits` (a YAML flow mapping)."""
    return TOY_SUITE.replace("LIMITS", limits)


def cases_module(exercise: str) -> ModuleType:
    """fixtures/EXERCISE/cases.py, the suite's case generators, as a module (`EXERCISE_cases`)."""
    name = f"{exercise}_cases"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "fixtures" / exercise / "cases.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@contextlib.contextmanager
def exercise_modules(exercise: str, source: str = "reference") -> Iterator[dict[str, ModuleType]]:
    """Import every module of `source/exercise` (given files from exercises/) under their flat names.

    Exercises share module names (two have a `board.py`), so the modules are removed from
    `sys.modules` again on exit; hold on to the yielded modules, not to `import board`.
    """
    folders = [ROOT / source / exercise, ROOT / "exercises" / exercise]
    names = sorted({p.stem for folder in folders for p in folder.glob("*.py")})
    saved_path = list(sys.path)
    clashing = {name: sys.modules.pop(name) for name in names if name in sys.modules}
    sys.path[:0] = [str(folder) for folder in folders]
    try:
        yield {name: importlib.import_module(name) for name in names}
    finally:
        sys.path[:] = saved_path
        for name in names:
            sys.modules.pop(name, None)
        sys.modules.update(clashing)
