"""What the per-test boundary of issue 20 costs: the test's uid switch and seccomp filter, the
parent's check of what the test got, and moving the test into a group in every cgroup hierarchy.

Run as root: .venv/bin/python bench/boundary_cost.py [ROUNDS]
Each figure is a median (and p90) over ROUNDS forked children measured in one run; compare them
with `grader_overhead.py`'s whole isolated call test (target: at most 5 ms median).
"""

from __future__ import annotations

import itertools
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "grader" / "run" / "box"))

import confine  # noqa: E402  (the fork server's own copy, as tests use it)

from grader.run import boundary, cgroup, policy  # noqa: E402


def _child_times(program: bytes, uid: int, rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"uid switch": [], "drop capabilities": [], "seccomp filter": []}
    for _ in range(rounds):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            confine.drop_bounding_set()
            marks = [time.perf_counter()]
            confine.become(uid)
            marks.append(time.perf_counter())
            confine.drop_capabilities()
            marks.append(time.perf_counter())
            confine.install_seccomp()
            marks.append(time.perf_counter())
            os.write(write_end, " ".join(f"{b - a}" for a, b in itertools.pairwise(marks)).encode())
            os._exit(0)
        os.close(write_end)
        fields = [float(x) for x in os.read(read_end, 256).split()]
        os.close(read_end)
        os.waitpid(pid, 0)
        for key, value in zip(times, fields, strict=True):
            times[key].append(value)
    return times


def _parent_times(rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {
        "check from /proc": [],
        "move into 3 hierarchies": [],
        f"move into all {len(cgroup.every_hierarchy())}": [],
    }
    outside = boundary.namespaces_of(os.getpid())
    for _ in range(rounds):
        pid = os.fork()
        if pid == 0:
            time.sleep(5)
            os._exit(0)
        group = cgroup.TestCgroup.create()
        assert group is not None
        start = time.perf_counter()
        for folder in {folder for folder, _ in group.folders.values()}:
            (folder / "cgroup.procs").write_text(str(pid))
        measured = time.perf_counter()
        group.add(pid)
        moved = time.perf_counter()
        boundary.read(pid, outside, group.contained)
        checked = time.perf_counter()
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        group.remove()
        keys = list(times)
        times[keys[1]].append(measured - start)
        times[keys[2]].append(moved - measured)
        times[keys[0]].append(checked - moved)
    return times


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    if os.geteuid() != 0:
        sys.exit("boundary_cost.py: run as root (the uid switch and cgroups need it)")
    start = time.perf_counter()
    program = policy.compiled().program
    print(
        f"filter built once per grader: {1000 * (time.perf_counter() - start):.2f} ms, "
        f"{len(program) // 8} BPF instructions"
    )
    load = os.getloadavg()[0]
    confine.prepare_seccomp(program)  # as the fork server does, once
    figures = {**_child_times(program, boundary.test_uid(0), rounds), **_parent_times(rounds // 4)}
    for key, values in figures.items():
        values.sort()
        print(
            f"{key}: median {1e3 * statistics.median(values):.3f} ms, "
            f"p90 {1e3 * values[int(0.9 * (len(values) - 1))]:.3f} ms over {len(values)}"
        )
    print(f"load average at the start: {load:.2f}")


if __name__ == "__main__":
    main()
