"""Whose is a scratch folder, cgroup or semaphore: a later run removes only a dead owner's.

The owners here are real processes: `sleep` started by the test, alive or killed and reaped.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader import owners
from grader.run import cgroup

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _sleeper() -> subprocess.Popen[bytes]:
    return subprocess.Popen(["sleep", "600"])


@contextlib.contextmanager
def _processes() -> Iterator[tuple[owners.Owner, owners.Owner]]:
    """(a running process, one that ran and is gone), as owners."""
    alive, dead = _sleeper(), _sleeper()
    try:
        namespace = owners.me().namespace
        live_owner = owners.Owner(alive.pid, owners._stat(alive.pid)[1], namespace)  # type: ignore[index]
        dead_owner = owners.Owner(dead.pid, owners._stat(dead.pid)[1], namespace)  # type: ignore[index]
        dead.kill()
        dead.wait()
        yield live_owner, dead_owner
    finally:
        alive.kill()
        alive.wait()


def test_an_owner_is_its_pid_and_start_time() -> None:
    mine = owners.me()
    assert mine.alive() and mine.pid == os.getpid() and mine.start > 0
    assert not owners.Owner(mine.pid, mine.start + 1, mine.namespace).alive()  # a reused pid
    with _processes() as (alive, dead):
        assert alive.alive() and not dead.alive()
        zombie = _sleeper()
        try:
            start = owners._stat(zombie.pid)[1]  # type: ignore[index]
            os.kill(zombie.pid, signal.SIGKILL)
            os.waitid(os.P_PID, zombie.pid, os.WEXITED | os.WNOWAIT)  # ended, not reaped
            assert not owners.Owner(zombie.pid, start, mine.namespace).alive()
        finally:
            zombie.wait()


def test_only_a_dead_owners_scratch_is_swept(tmp_path: Path) -> None:
    with _processes() as (alive, dead):
        elsewhere = owners.Owner(dead.pid, dead.start, dead.namespace + 1)
        names = {
            "live": f"grader-{alive.tag}-abc",
            "dead": f"grader-{dead.tag}-abc",
            "dead-task": f"grader-{dead.tag}-task-abc",
            "older": "grader-1x2y3z4w",
            "other-namespace": f"grader-{elsewhere.tag}-abc",
            "not-ours": f"pymp-{dead.tag}-",
        }
        for name in names.values():
            (tmp_path / name / "code").mkdir(parents=True)
        (tmp_path / f"grader-{dead.tag}-file").write_text("a file, not a folder: kept")
        removed = owners.sweep_scratch(tmp_path)
    assert sorted(path.name for path in removed) == sorted([names["dead"], names["dead-task"]])
    assert {path.name for path in tmp_path.iterdir()} == (
        set(names.values()) - {names["dead"], names["dead-task"]} | {f"grader-{dead.tag}-file"}
    )


def test_only_a_dead_owners_semaphores_are_swept(tmp_path: Path) -> None:
    with _processes() as (alive, dead):
        live_name = f"sem.{owners.SEMAPHORE_PREFIX}{alive.tag}-k3j4h5g6"
        dead_name = f"sem.{owners.SEMAPHORE_PREFIX}{dead.tag}-k3j4h5g6"
        for name in (live_name, dead_name, "sem.mp-k3j4h5g6"):
            (tmp_path / name).write_bytes(b"\0" * 32)
        owners.sweep_semaphores(tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted([live_name, "sem.mp-k3j4h5g6"])


def test_multiprocessing_names_its_semaphores_after_the_batch() -> None:
    """What `before_pool` sets up: a lock's semaphore in /dev/shm names this process."""
    import multiprocessing

    config = multiprocessing.current_process()._config  # type: ignore[attr-defined]
    before = config.get("semprefix")
    config["semprefix"] = owners.semaphore_prefix()
    try:
        lock = multiprocessing.get_context("forkserver").Lock()
        name = lock._semlock.name  # type: ignore[attr-defined]
        assert (
            owners.owner_in(Path(f"/dev/shm/sem.{name[1:]}").name, f"sem.{owners.SEMAPHORE_PREFIX}")
            == owners.me()
        )
        del lock
    finally:
        config["semprefix"] = before


@pytest.mark.skipif(not cgroup.hierarchies(), reason="no cgroup of ours to make here (not root?)")
def test_only_a_dead_owners_cgroups_go_with_the_tests_still_in_them() -> None:
    hierarchy = cgroup.hierarchies().get("pids") or next(iter(cgroup.hierarchies().values()))
    base, v2 = hierarchy.base, hierarchy.version == 2
    tests: dict[str, subprocess.Popen[bytes]] = {}
    with _processes() as (alive, dead):
        groups = {
            "live": base / f"{cgroup.GROUP_PREFIX}{alive.tag}-0a1b2c3d",
            "dead": base / f"{cgroup.GROUP_PREFIX}{dead.tag}-0a1b2c3d",
            "older": base / f"{cgroup.GROUP_PREFIX}{dead.pid}-0a1b2c3d",
        }
        try:
            for name, group in groups.items():
                (group / "t1").mkdir(parents=True)
                tests[name] = _sleeper()
                (group / "t1" / "cgroup.procs").write_text(str(tests[name].pid))
            cgroup._sweep_stale(base, v2)
            assert not groups["dead"].exists()
            assert tests["dead"].wait(timeout=60) == -signal.SIGKILL  # a bound, not a measure
            assert groups["live"].is_dir() and tests["live"].poll() is None
            assert groups["older"].is_dir() and tests["older"].poll() is None  # young, busy
        finally:
            for test in tests.values():
                test.kill()
                test.wait()
            for group in groups.values():
                for folder in (group / "t1", group):
                    with contextlib.suppress(OSError):
                        folder.rmdir()
