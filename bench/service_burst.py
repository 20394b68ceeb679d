"""The submission service under a deadline burst, and idle (issue 22).

    .venv/bin/python bench/service_burst.py [--submissions 200] [--clients 20] [--spread 60]
                                            [--workers 2] [--sandbox LEVEL] [--no-batch]
                                            [--idle-only]

Starts `grader serve` on a fresh course (bitgrid), then:
- idle: upload-to-feedback time of one submission, 5 times (goal: under 2 s);
- burst: N submissions (the sample class's files in turn) from C concurrent clients spread over
  S seconds; errors (goal 0), time until all are graded, and the p95 latency of the submission
  page and the API while the workers grade (goal: under 300 ms);
- the same N submissions graded as a batch (`grader grade --batch -j WORKERS`) for the rate.
Prints `uptime` before and after: the machine is shared.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples" / "bitgrid"
FILES = [
    SAMPLES / "alice" / "grid.py",
    SAMPLES / "bob" / "grid.py",
    SAMPLES / "dave" / "grid.py",
    SAMPLES / "frank" / "grid.py",
    ROOT / "reference" / "bitgrid" / "grid.py",
]


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else float("nan")


def start(course: Path, workers: int, sandbox: str | None) -> tuple[subprocess.Popen[str], str]:
    command = [
        sys.executable,
        "-m",
        "grader",
        "serve",
        str(course),
        "--port",
        "0",
        "--workers",
        str(workers),
        *(["--sandbox", sandbox] if sandbox else []),
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    assert process.stdout is not None
    for line in process.stdout:
        found = re.search(r"on (http://127\.0\.0\.1:\d+)/", line)
        if found:
            threading.Thread(
                target=lambda: [None for _ in process.stdout],  # type: ignore[union-attr]
                daemon=True,
            ).start()
            return process, found.group(1)
    raise SystemExit("the service did not start")


def wait_graded(url: str, ident: str, token: str) -> None:
    while True:
        reply = requests.get(
            f"{url}/api/submissions/{ident}", headers={"Authorization": f"Bearer {token}"}, timeout=60
        )
        if reply.json()["status"] in ("graded", "error"):
            return
        time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--submissions", type=int, default=200)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--spread", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sandbox")
    parser.add_argument("--no-batch", action="store_true")
    parser.add_argument("--idle-only", action="store_true", help="only the idle figure")
    args = parser.parse_args()
    print("before:", uptime())
    with tempfile.TemporaryDirectory(prefix="service-bench-") as scratch:
        folder = Path(scratch)
        logins = [f"s{index:02d}" for index in range(args.clients)]
        (folder / "roster.csv").write_text(
            "login,name\nteacher,T\n" + "".join(f"{login},{login}\n" for login in logins)
        )
        (folder / "course.yaml").write_text(
            "title: bench\nroster: roster.csv\ninstructors: [teacher]\nassignments:\n"
            "  - name: bitgrid-1\n    exercise: bitgrid\n    due: 2099-01-01T00:00:00Z\n"
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
            idle(url, tokens[logins[0]])
            if not args.idle_only:
                burst(url, tokens, logins, args)
        finally:
            process.terminate()
            process.wait(60)
        if not args.no_batch and not args.idle_only:
            batch(folder, args)
    print("after:", uptime())


def idle(url: str, token: str) -> None:
    times = []
    for _ in range(5):
        started = time.monotonic()
        reply = requests.post(
            f"{url}/api/submissions",
            data={"assignment": "bitgrid-1"},
            files=[("files", ("grid.py", FILES[-1].read_bytes()))],
            headers={"Authorization": f"Bearer {token}"},
            timeout=60,
        )
        wait_graded(url, reply.json()["id"], token)
        times.append(time.monotonic() - started)
    print(
        f"idle upload-to-feedback: median {statistics.median(times):.2f} s, "
        f"max {max(times):.2f} s over 5 (goal < 2 s)"
    )


def burst(url: str, tokens: dict[str, str], logins: list[str], args: argparse.Namespace) -> None:
    each = args.submissions // len(logins)
    accepted: list[tuple[str, str]] = []
    errors: list[str] = []
    lock = threading.Lock()
    api_latency: list[float] = []
    page_latency: list[float] = []
    stop = threading.Event()

    def client(index: int, login: str) -> None:
        pause = args.spread / each
        time.sleep(index * pause / len(logins))
        for number in range(each):
            source = FILES[(index + number) % len(FILES)]
            try:
                reply = requests.post(
                    f"{url}/api/submissions",
                    data={"assignment": "bitgrid-1"},
                    files=[("files", ("grid.py", source.read_bytes()))],
                    headers={"Authorization": f"Bearer {tokens[login]}"},
                    timeout=120,
                )
                with lock:
                    if reply.status_code == 202:
                        accepted.append((reply.json()["id"], login))
                    else:
                        errors.append(f"{reply.status_code} {reply.text[:100]}")
            except requests.RequestException as error:
                with lock:
                    errors.append(repr(error))
            time.sleep(pause)

    def sampler() -> None:
        session = requests.Session()
        session.get(f"{url}/", timeout=60)
        page = session.get(f"{url}/", timeout=60).text
        token_field = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token_field is not None
        session.post(
            f"{url}/",
            data={"token": tokens[logins[0]], "csrfmiddlewaretoken": token_field.group(1)},
            timeout=60,
        )
        while not stop.is_set():
            with lock:
                mine = [ident for ident, login in accepted if login == logins[0]]
            if mine:
                started = time.monotonic()
                requests.get(
                    f"{url}/api/submissions/{mine[-1]}",
                    headers={"Authorization": f"Bearer {tokens[logins[0]]}"},
                    timeout=60,
                )
                api_latency.append(time.monotonic() - started)
                started = time.monotonic()
                session.get(f"{url}/submissions/{mine[-1]}", timeout=60)
                page_latency.append(time.monotonic() - started)
            time.sleep(0.25)

    watcher = threading.Thread(target=sampler, daemon=True)
    watcher.start()
    started = time.monotonic()
    clients = [threading.Thread(target=client, args=(index, login)) for index, login in enumerate(logins)]
    for thread in clients:
        thread.start()
    for thread in clients:
        thread.join()
    sent = time.monotonic() - started
    for ident, login in accepted:
        wait_graded(url, ident, tokens[login])
    done = time.monotonic() - started
    stop.set()
    watcher.join()
    print(
        f"burst: {len(accepted)} accepted, {len(errors)} errors {errors[:3]}; all sent in "
        f"{sent:.1f} s, all graded {done:.1f} s after the first "
        f"({60 * len(accepted) / done:.0f}/min)"
    )
    print(
        f"while grading: API p95 {1000 * p95(api_latency):.0f} ms (median "
        f"{1000 * statistics.median(api_latency):.0f}, {len(api_latency)} samples), submission "
        f"page p95 {1000 * p95(page_latency):.0f} ms (median "
        f"{1000 * statistics.median(page_latency):.0f}) (goal < 300 ms)"
    )


def batch(folder: Path, args: argparse.Namespace) -> None:
    klass = folder / "class"
    for index in range(args.submissions):
        target = klass / f"student{index:03d}"
        target.mkdir(parents=True)
        shutil.copyfile(FILES[index % len(FILES)], target / "grid.py")
    started = time.monotonic()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "grade",
            "bitgrid",
            str(klass),
            "--batch",
            "-j",
            str(args.workers),
            "--out",
            str(folder / "out"),
            *(["--sandbox", args.sandbox] if args.sandbox else []),
        ],
        capture_output=True,
        check=False,
    )
    took = time.monotonic() - started
    print(
        f"the same {args.submissions} as a batch, -j {args.workers}: {took:.1f} s "
        f"({60 * args.submissions / took:.0f}/min)"
    )


if __name__ == "__main__":
    main()
