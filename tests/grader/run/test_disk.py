"""Issue 29: disk a test writes is counted and capped at every level.

`fallocate` (and glibc's `posix_fallocate`, which calls it) reserves blocks without writing a
page, and O_DIRECT writes bypass the page cache: neither is charged to the test's memory cgroup,
so one test could fill the file system its neighbours write their output to. Both are refused by
the seccomp filter; `posix_fallocate` then falls back to writing, which is counted and capped.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.judge.calibration import resolve_limits
from grader.judge.grade import select_tests
from grader.judge.testrun import Grader, prepared_submission
from grader.sandboxes import Confinement
from grader.suite.load import load_suite
from tests.grader.run.test_isolation import _answer, _toy
from tests.grader.run.test_private_scratch import scratch_root  # noqa: F401 (a fixture)

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="the tests' own uid needs root")
LEVELS = ["container", pytest.param("bwrap", marks=pytest.mark.bwrap)]

SUITE = """
exercise: toy
submit: [toy.py]
limits: {cpu_s: 2, wall_s: 6, memory_mb: 100, output_kb: 64, scratch_mb: 8}
tests:
  - name: first
    call: toy.answer
    cases: [[1]]
"""
FILE = 4 * 1024 * 1024  # each file below the 8 MB any one file may hold (RLIMIT_FSIZE)
FILES = 64  # together far above scratch_mb and the memory limit

DIRECT_PRELUDE = f"""
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.aligned_alloc.restype = ctypes.c_void_p
        block = libc.aligned_alloc(4096, {FILE})  # O_DIRECT needs aligned buffers
        def write_all(fd):
            if libc.write(fd, ctypes.c_void_p(block), ctypes.c_size_t({FILE})) != {FILE}:
                raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
            os.close(fd)
"""
WRITERS = {
    "posix_fallocate": f"""
        for i in range({FILES}):
            fd = os.open(f"reserved{{i}}", os.O_WRONLY | os.O_CREAT, 0o600)
            os.posix_fallocate(fd, 0, {FILE})
            os.close(fd)
        return 2 * n
    """,
    "fallocate": f"""
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        for i in range({FILES}):
            fd = os.open(f"reserved{{i}}", os.O_WRONLY | os.O_CREAT, 0o600)
            if libc.fallocate(fd, 0, ctypes.c_long(0), ctypes.c_long({FILE})) != 0:
                raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
            os.close(fd)
        return 2 * n
    """,
    "O_DIRECT": DIRECT_PRELUDE
    + f"""
        for i in range({FILES}):
            write_all(os.open(f"direct{{i}}", os.O_WRONLY | os.O_CREAT | os.O_DIRECT, 0o600))
        return 2 * n
    """,
    "O_DIRECT set later": DIRECT_PRELUDE
    + f"""
        for i in range({FILES}):
            fd = os.open(f"direct{{i}}", os.O_WRONLY | os.O_CREAT, 0o600)
            if libc.fcntl(fd, 4, libc.fcntl(fd, 3) | os.O_DIRECT) != 0:  # F_SETFL, F_GETFL
                raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
            write_all(fd)
        return 2 * n
    """,
    "sparse": f"""
        fd = os.open("sparse", os.O_WRONLY | os.O_CREAT, 0o600)
        os.lseek(fd, {FILES * FILE}, os.SEEK_SET)
        os.write(fd, b"x")
        return 2 * n
    """,
}
HONEST = {
    "writes its scratch": """
        with open("scratch", "wb") as out:
            out.write(b"x" * (1 << 20))
        return 2 * n
    """,
    "posix_fallocate within its scratch": """
        fd = os.open("reserved", os.O_WRONLY | os.O_CREAT, 0o600)
        os.posix_fallocate(fd, 0, 1 << 20)
        assert os.fstat(fd).st_size == 1 << 20
        return 2 * n
    """,
}


def _grade(project: Path, body: str, level: Confinement) -> tuple[str, str]:
    submission = _toy(project, _answer(body, "import os\n"), SUITE)
    loaded = load_suite("toy")
    tests = select_tests(loaded, False, None)
    with prepared_submission(loaded, submission) as (prepared, scratch):
        limits = resolve_limits(loaded, tests, level)
        with Grader(loaded, prepared, scratch, limits, level) as grader:
            judgement = grader.grade_test(tests[0])[0]
    (project / "student" / "toy.py").unlink()
    return judgement.verdict.value, judgement.message


@root_only
@pytest.mark.parametrize("level", LEVELS)
def test_a_writer_beyond_its_scratch_loses_its_test_and_the_honest_keep_theirs(
    project: Path,
    scratch_root: Path,  # noqa: F811 (the fixture imported above)
    level: Confinement,
) -> None:
    got = {name: _grade(project, body, level) for name, body in {**WRITERS, **HONEST}.items()}
    for name in WRITERS:
        verdict, message = got[name]
        assert verdict in ("RTE", "OLE", "MLE"), (name, got[name])
        assert any(
            reason in message
            for reason in (  # refused, or counted and capped
                "Operation not supported",
                "Invalid argument",
                "No space left on device",
                "File too large",
                "a file",
                "of memory",
            )
        ), (name, message)
    for name in HONEST:
        assert got[name] == ("AC", ""), (name, got[name])


def test_the_refusals_of_uncounted_disk_are_written_down() -> None:
    from grader.exercise import project_root
    from grader.run.policy import (
        REFUSED_DIRECT,
        REFUSED_FALLOCATE,
        REFUSED_OPENAT2,
        compiled,
    )

    text = (project_root() / "docs" / "isolation.md").read_text()
    assert f"- `fallocate` (EOPNOTSUPP): {REFUSED_FALLOCATE}" in text
    assert f"adding O_DIRECT: {REFUSED_DIRECT}" in text
    assert f"- `openat2` (ENOSYS): {REFUSED_OPENAT2}" in text
    assert {"fallocate", "O_DIRECT (open, openat, fcntl)"} <= set(compiled().refused)
