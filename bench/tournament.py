"""A round robin of ultimate engines on this machine (issue 33): wall, CPU, games per minute.

    .venv/bin/python bench/tournament.py [--engines N] [-j J] [--games K] [--plain] [--sandbox S]

The class: the reference, the right solutions of fixtures/ultimate/solutions (without
plain-student unless --plain: its build_tables costs 2.3 s of CPU on every move) and the WA
mutants of fixtures/ultimate/mutants that apply, cycled under new names up to N engines. It runs
`grader tournament ultimate CLASS -j J --games K` as a child and reports its wall time, the CPU
of it and everything it waited for (the pool, the fork servers, every move's test process), the
engines' own CPU from tournament.json, games per minute, and the load before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
ULTIMATE = ROOT / "fixtures" / "ultimate"


def engines() -> list[tuple[str, Path | str]]:
    """(name, folder or mutant diff) of every known ultimate engine."""
    found: list[tuple[str, Path | str]] = [("reference", ROOT / "reference" / "ultimate")]
    for folder in sorted((ULTIMATE / "solutions").iterdir()):
        found.append((folder.name, folder))
    for diff in sorted((ULTIMATE / "mutants").glob("*/*.diff")):
        found.append((diff.stem, str(diff)))
    return found


def make_class(folder: Path, count: int, plain: bool) -> list[str]:
    """`count` engines in `folder` (those that apply, cycled); their names."""
    usable: list[tuple[str, Path]] = []
    for name, origin in engines():
        if name == "plain-student" and not plain:
            continue
        target = folder / ".pool" / name
        shutil.copytree(ROOT / "reference" / "ultimate", target)
        if isinstance(origin, str):
            applied = subprocess.run(
                [
                    "patch",
                    "--batch",
                    "--silent",
                    "--forward",
                    "--strip=1",
                    "--reject-file=-",
                    "--no-backup-if-mismatch",
                    "--directory",
                    str(target),
                    "--input",
                    origin,
                ],
                capture_output=True,
            )
            if applied.returncode != 0:
                continue
        elif origin != ROOT / "reference" / "ultimate":
            shutil.copyfile(origin / "engine.py", target / "engine.py")
        usable.append((name, target))
    names = []
    for index in range(count):
        name, source = usable[index % len(usable)]
        name = name if index < len(usable) else f"{name}-{index // len(usable)}"
        shutil.copytree(source, folder / name)
        names.append(name)
    shutil.rmtree(folder / ".pool")
    return names


def is_test(process: psutil.Process) -> bool:
    """A test process: forked by a fork server (both run worker.py); its CPU is its cgroup's."""
    try:
        parent = process.parent()
        return parent is not None and any("worker.py" in part for part in parent.cmdline())
    except psutil.Error:
        return True


def sampled_cpu(child: subprocess.Popen[str]) -> float:
    """The CPU time of `child` and its long-lived descendants (sampled every 0.2 s: the command,
    its pool, the referee, the fork servers; each move's short test process is counted by its
    cgroup instead, in tournament.json), without their reaped children."""
    seen: dict[int, float] = {}
    root = psutil.Process(child.pid)
    while child.poll() is None:
        try:
            processes = [root, *root.children(recursive=True)]
        except psutil.Error:
            break
        for process in processes:
            try:
                times = process.cpu_times()
            except psutil.Error:
                continue
            if not is_test(process):
                seen[process.pid] = max(seen.get(process.pid, 0.0), times.user + times.system)
        time.sleep(0.2)
    return sum(seen.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", type=int, default=8)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--plain", action="store_true", help="include solutions/plain-student")
    parser.add_argument("--sandbox", default="bwrap")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as scratch:
        folder = Path(scratch) / "class"
        folder.mkdir()
        names = make_class(folder, options.engines, options.plain)
        out = Path(scratch) / "out"
        load_before = os.getloadavg()
        started = time.monotonic()
        command = [
            sys.executable,
            "-m",
            "grader",
            "tournament",
            "ultimate",
            str(folder),
            "-j",
            str(options.jobs),
            "--games",
            str(options.games),
            "--out",
            str(out),
            "--sandbox",
            options.sandbox,
        ]
        with subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        ) as child:
            grader_cpu = sampled_cpu(child)
            stdout, stderr = child.communicate()
        wall = time.monotonic() - started
        load_after = os.getloadavg()
        finished = subprocess.CompletedProcess(command, child.returncode, stdout, stderr)
        if finished.returncode not in (0, 1):
            print(finished.stdout[-2000:], finished.stderr[-2000:], sep="\n")
            return 1
        data = json.loads((out / "tournament.json").read_text())
    games = data["games"]
    cpu = grader_cpu
    engine_cpu = sum(sum(game["cpu_s"]) for game in games)
    plies = sum(len(game["moves"]) for game in games)
    forfeits = sum(game["forfeit"] is not None for game in games)
    void = sum(game["void"] is not None for game in games)
    print(f"engines: {len(names)} ({', '.join(names)})")
    print(
        f"games: {len(games)} ({plies} plies; {forfeits} forfeited, {void} void), -j {options.jobs}, "
        f"sandbox {options.sandbox}"
    )
    print(f"wall: {wall:.1f} s; games per minute: {len(games) / wall * 60:.1f}")
    print(
        f"CPU: the engines' moves {engine_cpu:.1f} s ({engine_cpu / max(1, plies) * 1000:.0f} ms a ply, "
        f"by their cgroups); the grader's own processes (command, pool and referee, fork servers, "
        f"sampled) {cpu:.1f} s; together {cpu + engine_cpu:.1f} s"
    )
    print(f"load: {load_before[0]:.1f} before, {load_after[0]:.1f} after")
    print("standings: " + ", ".join(f"{row['student']} {row['points']:g}" for row in data["standings"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
