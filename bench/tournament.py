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
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
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
        finished = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        load_after = os.getloadavg()
        if finished.returncode not in (0, 1):
            print(finished.stdout[-2000:], finished.stderr[-2000:], sep="\n")
            return 1
        data = json.loads((out / "tournament.json").read_text())
    games = data["games"]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
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
        f"CPU: {cpu:.1f} s in all (the command, its pool, fork servers, every move's process); "
        f"the engines' own moves: {engine_cpu:.1f} s ({engine_cpu / max(1, plies) * 1000:.0f} ms a ply)"
    )
    print(f"load: {load_before[0]:.1f} before, {load_after[0]:.1f} after")
    print("standings: " + ", ".join(f"{row['student']} {row['points']:g}" for row in data["standings"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
