"""Every target the Makefile declares exists, and the fast loop leaves out what is slow."""

from __future__ import annotations

import re

from grader.exercise import project_root

MAKEFILE = (project_root() / "Makefile").read_text()


def test_every_declared_target_exists() -> None:
    declared = re.search(r"^\.PHONY:(.*)$", MAKEFILE, re.MULTILINE)
    assert declared is not None, "the Makefile declares no phony target"
    targets = set(re.findall(r"^([\w.-]+):", MAKEFILE, re.MULTILINE))
    missing = set(declared.group(1).split()) - targets
    assert not missing, f"declared .PHONY but never defined: {sorted(missing)}"


def test_the_fast_loop_deselects_slow_and_bubblewrap_tests() -> None:
    fast = re.search(r"^test-fast:.*\n((?:\t.*\n)+)", MAKEFILE, re.MULTILINE)
    assert fast is not None
    assert '-m "not slow and not bwrap"' in fast.group(1)
