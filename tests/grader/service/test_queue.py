"""The queue's order: a student's upload is graded before any queued regrade job (an
instructor's regrade of 65 submissions once made two students wait 142 s instead of 4 s).

Django is configured once per process: the scenario runs in a process of its own, against the
real database and `jobs` functions (accept, regrade, claim), and prints what it claimed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.grader.service.conftest import REFERENCE, ROOT, write_course

REGRADED_STUDENTS = 13
SUBMISSIONS_EACH = 5  # 65 submissions regraded, as in the course that went live


def roster() -> str:
    students = "".join(f"s{index},S{index},s{index}@example.org\n" for index in range(REGRADED_STUDENTS))
    return (
        f"login,name,email\nalice,Alice,a@example.org\n{students}late1,L,l@example.org\n"
        f"late2,M,m@example.org\n"
    )


def queue_scenario(course_path: str) -> None:
    """Run in its own process: 65 graded submissions regraded, then two students upload; print
    the logins of the jobs claimed, in order, and how many regrades were queued."""
    from pathlib import Path

    from grader.service.course import load_course
    from grader.service.setup import configure, migrate

    course = load_course(Path(course_path), check_suites=False)
    configure(course)
    migrate()
    from django.contrib.auth.models import User

    from grader.service import jobs
    from grader.service.models import GRADED, Submission
    from grader.service.people import sync_roster

    sync_roster(course)
    assignment = course.assignment("open")
    assert assignment is not None
    files = [("grid.py", REFERENCE.read_bytes())]
    for index in range(REGRADED_STUDENTS):
        for _ in range(SUBMISSIONS_EACH):
            jobs.accept(course, User.objects.get(username=f"s{index}"), assignment, files)
    Submission.objects.update(status=GRADED, graded_at=jobs.now(), score=1.0)
    regraded = jobs.regrade("open")
    for login in ("late1", "late2"):
        jobs.accept(course, User.objects.get(username=login), assignment, files)
    claimed = []
    for number in range(4):
        job = jobs.claim(f"worker-{number}")
        assert job is not None
        claimed.append([job.user.username, job.generation])
    print(json.dumps({"regraded": regraded, "claimed": claimed}))


def test_a_student_s_upload_is_claimed_before_every_queued_regrade(tmp_path: Path) -> None:
    course = write_course(
        tmp_path,
        """\
        title: queue
        roster: roster.csv
        instructors: [alice]
        assignments:
          - name: open
            exercise: bitgrid
            due: 2099-01-01T00:00:00Z
        """,
        roster(),
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from tests.grader.service.test_queue import "
            "queue_scenario; queue_scenario(sys.argv[1])",
            str(course),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["regraded"] == REGRADED_STUDENTS * SUBMISSIONS_EACH
    # The two students' uploads first (generation 1), then the regrades (generation 2), whose
    # students take turns.
    assert outcome["claimed"] == [["late1", 1], ["late2", 1], ["s0", 2], ["s1", 2]]
