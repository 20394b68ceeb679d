"""A long grading keeps its cgroups while other graders start (issue 20: the JE under load).

Until the groups named their grader (pid, start time), a grader that started removed every empty
group of a parent group untouched for STALE_AFTER_S (600 s). A cgroup folder's mtime is its
creation time (making sub-groups does not move it), so any grading that ran longer than ten
minutes, as `grader verify` does on a busy machine, looked dead to the next grader that started:
it lost the groups made ahead for its next tests, and that test was JE ("could not move the test
into its cgroup"), or the grader stopped. Here another grader's sweep runs during every test, as
if the grading had lasted for hours: nothing of a live grader's goes, and no test is JE.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import pytest

from grader.run import cgroup, watchdog
from tests.conftest import Build

pytestmark = pytest.mark.skipif(not cgroup.hierarchies(), reason="no cgroup of ours to make here (not root?)")

SUITE = """
exercise: toy
submit: [toy.py]
limits: {cpu_s: 2}
tests:
  - {name: first, call: toy.answer, cases: [[1]]}
  - {name: second, call: toy.answer, cases: [[2]]}
  - {name: third, call: toy.answer, cases: [[3]]}
"""
REFERENCE = "def answer(n):\n    return 2 * n\n"


def _sweep_everywhere() -> None:
    """What another grader does as it starts: sweep every hierarchy's stale groups."""
    for hierarchy in cgroup.every_hierarchy().values():
        cgroup._sweep_stale(hierarchy.base, hierarchy.version == 2)


def _age_our_groups() -> None:
    """Our parent groups' mtime an hour back (their mtime never moves by itself)."""
    old = time.time() - 3600
    for parent in cgroup._groups.parents.values():
        os.utime(parent, (old, old))


def test_a_grader_running_for_hours_keeps_its_groups_when_others_start(
    grade_toy: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cgroup, "STALE_AFTER_S", 0)  # any age is stale to the sweep
    watch: Callable[..., Any] = watchdog.Test._watch
    kept: list[bool] = []  # after each sweep: whether the group made ahead for the next test is there

    def watched_while_others_start(self: watchdog.Test, started: float) -> Any:
        done = watch(self, started)  # the groups for the next test are made by now
        _age_our_groups()
        _sweep_everywhere()
        spare = self.server.spare_cgroup
        kept.append(spare is not None and all(folder.is_dir() for folder in spare.own))
        return done

    monkeypatch.setattr(watchdog.Test, "_watch", watched_while_others_start)
    report = grade_toy(SUITE, REFERENCE, REFERENCE)
    assert [(r.name, r.verdict.value, r.message) for r in report.results] == [
        ("first", "AC", ""),
        ("second", "AC", ""),
        ("third", "AC", ""),
    ]
    assert len(kept) >= 3 and all(kept), f"a group made ahead went: {kept}"
