"""Faults: the service SIGKILLed during a burst of submissions and started again, a worker
SIGKILLed or frozen in the middle of a job, a student flooding the queue: every accepted
submission ends graded, exactly once, and students take turns."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import psutil
import pytest
import requests

from tests.grader.service.conftest import (
    REFERENCE,
    SLOW,
    STUB,
    WAIT_S,
    Service,
    tokens,
    write_course,
)

pytestmark = pytest.mark.slow


def rows(course: Path) -> dict[str, tuple[str, int, str]]:
    """Every submission row: id -> (status, tries, worker)."""
    with sqlite3.connect(course.parent / "course.sqlite", timeout=30) as db:
        return {
            ident: (status, tries, worker)
            for ident, status, tries, worker in db.execute(
                "SELECT id, status, tries, worker FROM service_submission"
            )
        }


def progress(course: Path, ident: str) -> int:
    """k of the job's "test k of n" (0 before its first test)."""
    with sqlite3.connect(course.parent / "course.sqlite", timeout=30) as db:
        text = db.execute("SELECT progress FROM service_submission WHERE id = ?", (ident,)).fetchone()[0]
    return int(text.split()[1]) if text.startswith("test ") else 0


def gradebook(course: Path, assignment: str) -> list[tuple[str, int]]:
    path = course.parent / "course-service" / "gradebooks" / assignment / "gradebook.sqlite"
    with sqlite3.connect(path, timeout=30) as db:
        keys = list(db.execute("SELECT key, attempt FROM keys"))
        attempts = db.execute("SELECT COUNT(*) FROM attempts").fetchone()[0]
    assert attempts == len(keys), "an attempt stored without its submission's key"
    return keys


def wait_all_graded(course: Path) -> dict[str, tuple[str, int, str]]:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        found = rows(course)
        if all(status in ("graded", "error") for status, _, _ in found.values()):
            return found
        time.sleep(0.3)
    raise AssertionError(f"not all graded: {rows(course)}")


def gone(processes: list[psutil.Process]) -> list[psutil.Process]:
    """Those of `processes` still alive after at most 60 s."""
    _, alive = psutil.wait_procs(processes, timeout=60)
    return alive


@pytest.fixture
def course(tmp_path: Path) -> Path:
    return write_course(tmp_path / "course")


def test_service_killed_during_a_burst_grades_every_submission_once(course: Path) -> None:
    keys = tokens(course)
    students = ["bob", "carol", "dave", "erin"]
    service = Service(course).start()
    accepted: list[str] = []
    lock = threading.Lock()

    def client(login: str) -> None:
        for index in range(6):
            source = REFERENCE if index % 2 == 0 else STUB
            try:
                reply = service.post("open", [("grid.py", source.read_bytes())], keys[login])
            except requests.RequestException:
                return  # the service is gone
            if reply.status_code == 202:
                with lock:
                    accepted.append(reply.json()["id"])

    try:
        workers = psutil.Process(service.process.pid).children()  # type: ignore[union-attr]
        clients = [threading.Thread(target=client, args=(login,)) for login in students]
        for thread in clients:
            thread.start()
        while len(accepted) < 8:
            time.sleep(0.01)
        service.kill()
        for thread in clients:
            thread.join()
        assert not gone(workers), "the workers outlived the killed service"
        before = rows(course)
        assert set(accepted) <= set(before)  # a 202 means the row was committed
        assert any(status != "graded" for status, _, _ in before.values()), (
            "the burst was over before the kill"
        )
    finally:
        service.stop()
    again = Service(course).start()
    try:
        after = wait_all_graded(course)
        assert {status for status, _, _ in after.values()} == {"graded"}
        stored = gradebook(course, "open")
        assert sorted(key.split("#")[0] for key, _ in stored) == sorted(after)
        for ident in accepted:
            data = again.get(ident, keys["alice"]).json()
            assert data["status"] == "graded" and data["results"]["tests"]
    finally:
        again.stop()


# Every test that calls winner() waits 1.5 s at its first call (each test is a process of its
# own): a grading of many seconds, with the same verdicts as the reference's.
# A right grid.py whose winner naps once in each test that asks it about the empty grid: the
# tests of winner, is_full and count_games, not the moves of a game played by calls (each move a
# test of its own, on a grid never empty), which would make every grading minutes long.


def test_a_frozen_worker_is_replaced_and_its_job_graded_again(
    course: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys = tokens(course)
    monkeypatch.setenv("GRADER_SERVICE_STALE_S", "4")
    service = Service(course, workers=1).start()
    try:
        reply = service.post("past", [("grid.py", SLOW.encode())], keys["bob"])
        assert reply.status_code == 202
        ident = reply.json()["id"]
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            status, _, worker = rows(course)[ident]
            if status == "running" and progress(course, ident) >= 2:
                break
            time.sleep(0.05)
        frozen = psutil.Process(int(worker.rsplit("-", 1)[1]))
        frozen.suspend()  # SIGSTOP: alive, holding its job, doing nothing
        data = service.wait(ident, keys["alice"])
        status, tries, second = rows(course)[ident]
        assert status == "graded" and tries == 2 and second != worker
        assert data["score"] == data["max_score"] > 0
        assert not frozen.is_running() or frozen.status() == psutil.STATUS_ZOMBIE
    finally:
        service.stop()


def test_students_take_turns_in_the_queue(course: Path) -> None:
    keys = tokens(course)
    service = Service(course, workers=1).start()
    try:
        flood = [
            service.post("past", [("grid.py", (SLOW + f"# {n}\n").encode())], keys["bob"]) for n in range(3)
        ]
        assert [reply.status_code for reply in flood] == [202] * 3
        carol = service.post("past", [("grid.py", REFERENCE.read_bytes())], keys["carol"])
        assert carol.status_code == 202
        service.wait(flood[-1].json()["id"], keys["alice"])
        with sqlite3.connect(course.parent / "course.sqlite", timeout=30) as db:
            graded = dict(db.execute("SELECT id, graded_at FROM service_submission"))
        ids = [reply.json()["id"] for reply in (*flood, carol)]
        order = sorted(ids, key=lambda ident: graded[ident] or "~")
        assert [order.index(i) for i in ids] == [0, 2, 3, 1], (graded, ids)
    finally:
        service.stop()


def test_a_worker_killed_mid_job_is_graded_again(course: Path) -> None:
    keys = tokens(course)
    slow = SLOW
    service = Service(course, workers=1).start()
    try:
        reply = service.post("past", [("grid.py", slow.encode())], keys["bob"])
        assert reply.status_code == 202
        ident = reply.json()["id"]
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:  # until it is in the middle of its tests
            status, _, worker = rows(course)[ident]
            if status == "running" and progress(course, ident) >= 3:
                break
            time.sleep(0.05)
        victim = psutil.Process(int(worker.rsplit("-", 1)[1]))
        victim.kill()
        data = service.wait(ident, keys["alice"])
        status, tries, second = rows(course)[ident]
        assert status == "graded" and tries == 2 and second != worker
        assert data["score"] == data["max_score"] > 0
        assert [key for key, _ in gradebook(course, "past")] == [f"{ident}#1"]
    finally:
        service.stop()
