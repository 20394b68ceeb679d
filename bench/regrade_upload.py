"""A student's upload during a regrade of the class (issue 30): its time to feedback against the
same upload's when nothing else is queued.

    .venv/bin/python bench/regrade_upload.py [--submissions 60] [--students 20] [--workers 2]
                                             [--sandbox LEVEL] [--uploads 3]

Starts `grader serve` on a fresh course (bitgrid), grades N submissions of the sample class's
files, then measures:
- idle: upload to feedback of one submission, nothing else queued (`--uploads` times);
- during a regrade: the instructor regrades every submission (the class page's confirmed form),
  and while the regrade jobs run, `--uploads` student uploads, one after the other, each from
  its upload to its feedback; and how long the whole regrade took.
The figure is the median upload-to-feedback during the regrade over the idle median (goal: at
most 2x: a student's upload is claimed before any queued regrade job, so it waits at most for
the jobs already running). Prints `uptime` before and after: the machine is shared.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.service_burst import FILES, start, uptime, wait_graded

ASSIGNMENT = "bitgrid-1"


def upload(url: str, token: str, source: Path) -> str:
    reply = requests.post(
        f"{url}/api/submissions",
        data={"assignment": ASSIGNMENT},
        files=[("files", ("grid.py", source.read_bytes()))],
        headers={"Authorization": f"Bearer {token}"},
        timeout=120,
    )
    reply.raise_for_status()
    ident: str = reply.json()["id"]
    return ident


def to_feedback(url: str, token: str) -> float:
    started = time.monotonic()
    wait_graded(url, upload(url, token, FILES[-1]), token)
    return time.monotonic() - started


def signed_in(url: str, token: str) -> requests.Session:
    session = requests.Session()
    page = session.get(f"{url}/", timeout=60).text
    field = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert field is not None
    session.post(f"{url}/", data={"token": token, "csrfmiddlewaretoken": field.group(1)}, timeout=60)
    return session


def regrade(url: str, token: str) -> int:
    """The instructor's regrade of every test, confirmed; how many submissions it queued."""
    session = signed_in(url, token)
    page = session.get(f"{url}/instructor/{ASSIGNMENT}/regrade", timeout=60).text
    field = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert field is not None
    reply = session.post(
        f"{url}/instructor/{ASSIGNMENT}/regrade",
        data={"confirm": "yes", "reason": "benchmark", "csrfmiddlewaretoken": field.group(1)},
        timeout=60,
        allow_redirects=False,
    )
    count = re.search(r"count=(\d+)", reply.headers.get("Location", ""))
    assert count is not None, reply.text
    return int(count.group(1))


def all_graded(url: str, token: str, idents: list[str]) -> None:
    for ident in idents:
        wait_graded(url, ident, token)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--submissions", type=int, default=60)
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sandbox")
    parser.add_argument("--uploads", type=int, default=3)
    args = parser.parse_args()
    print("before:", uptime())
    with tempfile.TemporaryDirectory(prefix="regrade-bench-") as scratch:
        folder = Path(scratch)
        logins = [f"s{index:02d}" for index in range(args.students)]
        (folder / "roster.csv").write_text(
            "login,name\nteacher,T\nlate,L\n" + "".join(f"{login},{login}\n" for login in logins)
        )
        (folder / "course.yaml").write_text(
            "title: bench\nroster: roster.csv\ninstructors: [teacher]\nassignments:\n"
            f"  - name: {ASSIGNMENT}\n    exercise: bitgrid\n    due: 2099-01-01T00:00:00Z\n"
        )
        made = subprocess.run(
            [sys.executable, "-m", "grader", "tokens", str(folder / "course.yaml")],
            capture_output=True,
            text=True,
            check=True,
        )
        tokens = dict(line.split(",", 1) for line in made.stdout.split())
        process, url = start(folder / "course.yaml", args.workers, args.sandbox)
        try:
            started = time.monotonic()
            class_ids = [
                upload(url, tokens[logins[index % len(logins)]], FILES[index % len(FILES)])
                for index in range(args.submissions)
            ]
            all_graded(url, tokens["teacher"], class_ids)
            print(f"the class: {len(class_ids)} submissions graded in {time.monotonic() - started:.1f} s")
            idle = [to_feedback(url, tokens["late"]) for _ in range(args.uploads)]
            regrade_started = time.monotonic()
            count = regrade(url, tokens["teacher"])
            time.sleep(2.0)  # the workers are on regrade jobs
            during = [to_feedback(url, tokens["late"]) for _ in range(args.uploads)]
            all_graded(url, tokens["teacher"], class_ids)
            regrade_s = time.monotonic() - regrade_started
        finally:
            process.terminate()
            process.wait(60)
    ratio = statistics.median(during) / statistics.median(idle)
    print(f"idle upload-to-feedback: {', '.join(f'{t:.2f}' for t in idle)} s")
    print(f"during the regrade of {count}: {', '.join(f'{t:.2f}' for t in during)} s")
    print(f"regrade of {count} submissions: {regrade_s:.1f} s (the uploads' gradings included)")
    print(f"median during / idle: {ratio:.2f}x (goal <= 2x)")
    print("after:", uptime())


if __name__ == "__main__":
    main()
