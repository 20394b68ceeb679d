"""`grader serve --executor dask --scheduler ADDRESS`: jobs graded on a Dask cluster (a
LocalCluster started here), into the same gradebook, with the same results."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.grader.service.conftest import REFERENCE, STUB, Service, grader, tokens, write_course

pytestmark = pytest.mark.slow
distributed = pytest.importorskip("distributed")


@pytest.fixture
def scheduler() -> Iterator[str]:
    with distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=logging.ERROR,
        memory_limit=0,
    ) as cluster:
        yield cluster.scheduler_address


def test_the_service_grades_on_a_dask_cluster(tmp_path: Path, scheduler: str) -> None:
    course = write_course(tmp_path / "course")
    keys = tokens(course)
    service = Service(course, workers=1, extra=["--executor", "dask", "--scheduler", scheduler]).start()
    try:
        assert "Dask scheduler at" in "".join(service.log)
        good = service.graded("past", [("grid.py", REFERENCE.read_bytes())], keys["bob"])
        stub = service.graded("past", [("grid.py", STUB.read_bytes())], keys["carol"])
        assert good["score"] == good["max_score"] == 20 and good["penalty"] == 5
        assert stub["score"] == 0
        full = service.get(good["id"], keys["alice"]).json()["results"]
        assert full["extra_data"]["executor"] == f"dask {scheduler}"
        listing = grader("gradebook", str(course.parent / "course-service" / "gradebooks" / "past"))
        assert listing.returncode == 0 and "bob" in listing.stdout and "carol" in listing.stdout
    finally:
        service.stop()


def test_dask_without_a_scheduler_is_a_usage_error(tmp_path: Path) -> None:
    course = write_course(tmp_path / "course")
    done = grader("serve", str(course), "--executor", "dask")
    assert done.returncode == 2 and "--executor dask needs --scheduler" in done.stderr
