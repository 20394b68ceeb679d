"""A course and its service, run for real on 127.0.0.1 (`grader serve` in a process of its own,
on a free port), its tokens from `grader tokens`, and helpers to submit and wait."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests

ROOT = Path(__file__).resolve().parents[3]
REFERENCE = ROOT / "reference" / "bitgrid" / "grid.py"
STUB = ROOT / "exercises" / "bitgrid" / "grid.py"
# The reference asleep 1.5 s the first time a test process asks who won the empty grid: only the
# tests of winner and count_games do (a game's moves never reach the empty grid), so a grading
# lasts a few seconds longer, long enough to be caught in the middle.
SLOW = REFERENCE.read_text().replace("def winner(", "def winner_fast(", 1) + (
    "\n\n_slept = []\n\n\ndef winner(grid):\n    import time\n"
    "    if not _slept and grid == 0:\n        _slept.append(1)\n        time.sleep(1.5)\n"
    "    return winner_fast(grid)\n"
)
ROSTER = (
    "login,name,email\nalice,Alice,alice@example.org\nbob,Bob,bob@example.org\n"
    "carol,Carol,c@example.org\ndave,Dave,d@example.org\nerin,<b>Erin</b>,e@example.org\n"
)
COURSE = """\
title: Game-tree search, test course
roster: roster.csv
instructors: [alice]
assignments:
  - name: open
    exercise: bitgrid
    due: 2099-01-01T00:00:00Z
  - name: past
    exercise: bitgrid
    due: 2020-01-01T00:00:00Z
    late: {per_minute: 1, max: 5}
  - name: limited
    exercise: bitgrid
    due: 2099-01-01T00:00:00Z
    attempts: 2
  - name: never
    exercise: bitgrid
    due: 2020-01-01T00:00:00Z
    late: {per_minute: 1, max: 5}
    hidden: never
  - name: extended
    exercise: bitgrid
    due: 2020-01-01T00:00:00Z
    late: {per_day_percent: 10, max_days: 1}
    hidden: never
  - name: future
    exercise: bitgrid
    opens: 2098-01-01T00:00:00Z
    due: 2099-01-01T00:00:00Z
"""
WAIT_S = 240.0


def write_course(folder: Path, course: str = COURSE, roster: str = ROSTER) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "roster.csv").write_text(roster)
    path = folder / "course.yaml"
    path.write_text(textwrap.dedent(course))
    return path


def grader(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "grader", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        check=False,
    )


def tokens(course: Path, *logins: str) -> dict[str, str]:
    done = grader("tokens", str(course), *logins)
    assert done.returncode == 0, done.stderr
    return dict(line.split(",", 1) for line in done.stdout.split())


@dataclass
class Service:
    """A running `grader serve`: its process (a session of its own) and its address."""

    course: Path
    workers: int = 2
    process: subprocess.Popen[str] | None = None
    url: str = ""
    log: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    reader: threading.Thread | None = None

    def start(self) -> Service:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "grader",
                "serve",
                str(self.course),
                "--port",
                "0",
                "--workers",
                str(self.workers),
                "--sandbox",
                "process",
                *self.extra,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        assert self.process.stdout is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            self.log.append(line)
            found = re.search(r"on (http://127\.0\.0\.1:\d+/)", line)
            if found:
                self.url = found.group(1).rstrip("/")
                # The rest of its output read as it comes (a full pipe would block the service).
                self.reader = threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True)
                self.reader.start()
                return self
        self.stop()
        raise AssertionError("the service did not start: " + "".join(self.log))

    def _read(self, stream: Any) -> None:
        for line in stream:
            self.log.append(line)

    def kill(self) -> None:
        """SIGKILL the service alone (its workers see it die)."""
        assert self.process is not None
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        """SIGTERM, then whatever is left of its session (workers, fork servers) SIGKILLed."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        if self.reader is not None:
            self.reader.join(10)  # until end of file: everything it wrote is in self.log
        if self.process.stdout is not None and (self.reader is None or not self.reader.is_alive()):
            self.process.stdout.close()

    def post(
        self, assignment: str, files: list[tuple[str, bytes]], token: str | None, **extra: Any
    ) -> requests.Response:
        headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
        return requests.post(
            f"{self.url}/api/submissions",
            data={"assignment": assignment},
            files=[("files", item) for item in files],
            headers=headers,
            timeout=60,
            **extra,
        )

    def get(self, ident: str, token: str | None) -> requests.Response:
        headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
        return requests.get(f"{self.url}/api/submissions/{ident}", headers=headers, timeout=30)

    def wait(self, ident: str, token: str) -> dict[str, Any]:
        """Poll until graded (or error)."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            data: dict[str, Any] = self.get(ident, token).json()
            if data["status"] in ("graded", "error"):
                return data
            time.sleep(0.2)
        raise AssertionError(f"{ident} not graded within {WAIT_S} s")

    def graded(self, assignment: str, files: list[tuple[str, bytes]], token: str) -> dict[str, Any]:
        reply = self.post(assignment, files, token)
        assert reply.status_code == 202, reply.text
        return self.wait(reply.json()["id"], token)


def signed_in(url: str, token: str) -> requests.Session:
    """A browser-like session signed in through the sign-in form (CSRF token included)."""
    session = requests.Session()
    page = session.get(f"{url}/", timeout=30)
    reply = session.post(
        f"{url}/",
        data={"token": token, "csrfmiddlewaretoken": csrf(page.text)},
        headers={"Referer": f"{url}/"},
        timeout=30,
    )
    assert reply.status_code == 200 and "Signed in as" in reply.text, reply.text
    return session


def csrf(page: str) -> str:
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert found, page
    return found.group(1)


@pytest.fixture(scope="module")
def course_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_course(tmp_path_factory.mktemp("course"))


@pytest.fixture(scope="module")
def keys(course_file: Path) -> dict[str, str]:
    return tokens(course_file)


@contextlib.contextmanager
def running(course: Path) -> Iterator[Service]:
    """A `grader serve` of `course` for the time of the block."""
    started = Service(course).start()
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture(scope="module")
def service(course_file: Path, keys: dict[str, str]) -> Iterator[Service]:
    with running(course_file) as started:
        yield started
