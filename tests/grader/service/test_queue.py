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


def served_scenario(course_path: str) -> None:
    """Run in its own process: regrades queued, then uploads; print the order `served_order`
    predicts, the queue page's rows (position, submission id, kind) and the order workers
    really claim the jobs in; and what a student gets on the queue page."""
    import re
    from pathlib import Path

    from grader.service.course import load_course
    from grader.service.setup import configure, migrate

    course = load_course(Path(course_path), check_suites=False)
    configure(course)
    migrate()
    from django.contrib.auth.models import User
    from django.test import Client

    from grader.service import jobs
    from grader.service.models import GRADED, Submission
    from grader.service.people import sync_roster

    sync_roster(course)
    assignment = course.assignment("open")
    assert assignment is not None
    files = [("grid.py", REFERENCE.read_bytes())]

    def upload(login: str) -> None:
        jobs.accept(course, User.objects.get(username=login), assignment, files)

    for login in ("s0", "s0", "s1", "s2", "s2", "s2"):
        upload(login)
    Submission.objects.update(status=GRADED, graded_at=jobs.now(), score=1.0)
    jobs.regrade("open")
    for login in ("s3", "s3", "s1", "s3", "s0"):
        upload(login)
    predicted = jobs.served_order()
    instructor = Client()
    instructor.force_login(User.objects.get(username="alice"))
    page = instructor.get("/instructor/").content.decode()
    rows = re.findall(
        r'<tr><td class="num">(\d+|running)</td><td><a href="/submissions/(\w+)">.*?</td>'
        r"<td>\w+</td><td>\w+</td><td>(\w+)</td>",
        page,
    )
    student = Client()
    student.force_login(User.objects.get(username="s0"))
    from grader.service.queue_place import place_of

    places = {}
    for sub in Submission.objects.filter(id__in=predicted):
        place = place_of(sub, jobs.now())
        places[sub.id] = None if place is None else place["position"]
    mine = Submission.objects.filter(user__username="s0").order_by("-number").first()
    assert mine is not None
    shown = student.get(f"/submissions/{mine.id}").content.decode()
    said = re.search(r'<span id="queue-place">\((.*?)\)</span>', shown)
    home = re.findall(r'<span class="queue-place">\((.*?)\)</span>', student.get("/").content.decode())
    claimed = []
    while (job := jobs.claim("worker")) is not None:
        claimed.append(job.id)
    print(
        json.dumps(
            {
                "predicted": predicted,
                "page": rows,
                "claimed": claimed,
                "student": student.get("/instructor/").status_code,
                "places": places,
                "said": said.group(1) if said else None,
                "home": home,
                "mine": mine.id,
                "logins": {sub.id: sub.user.username for sub in Submission.objects.select_related("user")},
            }
        )
    )


def test_the_queue_page_lists_jobs_in_the_order_workers_claim_them(tmp_path: Path) -> None:
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
            "served_scenario; served_scenario(sys.argv[1])",
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
    assert outcome["predicted"] == outcome["claimed"] and len(outcome["claimed"]) == 11
    assert [(position, ident) for position, ident, _ in outcome["page"]] == [
        (str(index + 1), ident) for index, ident in enumerate(outcome["claimed"])
    ]
    assert [kind for _, _, kind in outcome["page"]] == ["upload"] * 5 + ["regrade"] * 6
    logins = [outcome["logins"][ident] for ident in outcome["claimed"]]
    # Uploads: s3's second and third wait behind s1's and s0's (students take turns); then the
    # regrades, s2's first (s0, s1 and s3 were just served an upload).
    assert logins == ["s3", "s1", "s0", "s3", "s3", "s2", "s0", "s1", "s2", "s0", "s2"], logins
    assert outcome["student"] == 403
    # each waiting submission knows its place: where the workers then really took it
    assert outcome["places"] == {ident: index + 1 for index, ident in enumerate(outcome["claimed"])}
    position = outcome["claimed"].index(outcome["mine"]) + 1
    assert outcome["said"] is not None and outcome["said"].startswith(f"number {position} in the queue")
    assert outcome["said"] in outcome["home"]  # the student's home page says it too, beside each queued one
