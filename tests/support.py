"""Helpers for tests that import an exercise's modules directly (not through the grader)."""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
SUITE_NAMES = sorted(path.stem for path in (ROOT / "suites").glob("*.yaml"))


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
