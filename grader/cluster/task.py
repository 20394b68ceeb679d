"""One submission graded where a task lands: the exercise bundle unpacked (once per machine), the
submission laid out in a scratch folder, and the local batch's own `grade_one` run in a child
process with the bundle as its project root; what it produced for the student travels back.

The child keeps grading one submission per process, as a local batch's pool does: the project
root travels in its request, and the grading runs in a process of its own, which a worker running
tasks in threads could not give it.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader import owners
from grader.cluster import bundle as bundles
from grader.cluster import parcel as parcels

PR_SET_PDEATHSIG = 1


class GradingFailed(RuntimeError):
    """The grading process itself failed (not the submission: that is a verdict)."""


@dataclass(frozen=True)
class GradingTask:
    """Everything a worker needs to grade one submission, and nothing of the client's disks."""

    student: str
    parcel: parcels.SubmissionParcel
    bundle: bundles.ExerciseBundle
    public_only: bool
    sandbox: str | None


@dataclass(frozen=True)
class Graded:
    """What grading one student produced (results.json data, JUnit XML, status), and where."""

    student: str
    payload: dict[str, Any]
    host: str


def _check_student(student: str) -> None:
    if not student or student in {".", ".."} or "/" in student or "\0" in student:
        raise ValueError(f"'{student}' cannot name a student's results folder")


def run_task(task: GradingTask) -> Graded:
    """Grade one submission here and return what grading produced."""
    _check_student(task.student)
    root = bundles.unpack(task.bundle)
    with tempfile.TemporaryDirectory(prefix=owners.scratch_prefix("task-")) as scratch:
        work = Path(scratch)
        (work / "in").mkdir()
        source = parcels.unpack(task.parcel, work / "in")
        request = {
            "root": str(root),
            "suite": str(root / task.bundle.suite),
            "source": str(source),
            "public_only": task.public_only,
            "sandbox": task.sandbox,
        }
        payload = child_result("grader.cluster.task", request, f"grading {task.student}")
    return Graded(student=task.student, payload=payload, host=socket.gethostname())


def child_result(module: str, request: dict[str, Any], what: str) -> Any:
    """Run `python -m module` here, `request` (and this process's pid) in JSON on its stdin;
    what it wrote on stdout, read as JSON. GradingFailed says `what` failed, and where."""
    done = subprocess.run(
        [sys.executable, "-m", module],
        input=json.dumps({**request, "parent": os.getpid()}),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        tail = " | ".join(done.stderr.strip().splitlines()[-3:])
        raise GradingFailed(f"{what} on {socket.gethostname()} exited with code {done.returncode}: {tail}")
    try:
        return json.loads(done.stdout)
    except ValueError as error:
        raise GradingFailed(f"{what} on {socket.gethostname()} sent back no readable result") from error


def child_request() -> dict[str, Any]:
    """In the child of `child_result`: its request, once this process dies with the worker."""
    request: dict[str, Any] = json.load(sys.stdin)
    _die_with_parent(int(request["parent"]))
    return request


def _die_with_parent(parent: int) -> None:
    """Ask the kernel to kill this process when the worker that started it dies."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os._exit(1)


def main() -> int:
    """`python -m grader.cluster.task`: the child that grades, request in JSON on stdin, what
    grading produced in JSON on stdout."""
    request = child_request()
    from grader.cluster.grading import grade_one

    payload = grade_one(
        request["root"],
        request["suite"],
        Path(request["source"]),
        bool(request["public_only"]),
        request["sandbox"],
    )
    sys.stdout.write(json.dumps(payload))
    return 0


if __name__ == "__main__":
    sys.exit(main())
