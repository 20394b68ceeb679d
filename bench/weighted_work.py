"""Benchmark: the positions alpha-beta searches on task 4's efficiency positions, and their CPU.

Runs `probe.searches` (the given probe of the weighted exercise: table lookups at depth >= 1 of
unfinished positions) on every search of `WORK_POSITIONS` (fixtures/weighted/cases.py), in a
child process per submission: the reference, and each mutant or folder named. Prints each
search's count, its ratio to the reference's and the CPU it took.

    .venv/bin/python bench/weighted_work.py [--mutant fixtures/weighted/mutants/WA/late-cut.diff]
        [--over DIR]   # files that replace the reference's, e.g. a student's folder

The tests' own reference counts are recorded expectations (`grader record weighted`), held
against a submission's by the grader (`compare: at_most`).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "weighted"
sys.path[:0] = [str(ROOT), str(FIXTURES)]

import cases  # noqa: E402  (fixtures/weighted/cases.py)

from grader.judge.compare import allowance  # noqa: E402

Search = tuple[int, list[tuple[int, int]], int]

CHILD = """
import json, sys, time
import constants, probe
results = []
for size, moves, depth in json.loads(sys.argv[1]):
    constants.configure(size)
    import board, boardtree
    position = board.Board(constants.SCORE_PRESET)
    for row, col in moves:
        position.play(board.BoardCoordinate(row, col))
    tree = boardtree.BoardTree(position)
    start = time.process_time()
    count = probe.searches(tree, depth)
    results.append([count, time.process_time() - start])
print(json.dumps(results))
"""


def work_searches() -> list[Search]:
    """Every (size, moves, depth) the efficiency tests search."""
    return [
        (size, moves, depth)
        for size, positions in cases.WORK_POSITIONS.items()
        for moves, depths in positions
        for depth in depths
    ]


def submission(folder: Path, mutant: Path | None, over: Path | None) -> None:
    """Given files, then the reference, then a mutant's patch or the override folder's files."""
    for source in (ROOT / "exercises" / "weighted", ROOT / "reference" / "weighted", over):
        if source is not None:
            for path in source.glob("*.py"):
                shutil.copy(path, folder / path.name)
    if mutant is not None:
        subprocess.run(
            [
                "patch",
                "--batch",
                "--silent",
                "--strip=1",
                "--directory",
                str(folder),
                "--input",
                str(mutant.resolve()),
            ],
            check=True,
        )


def measure(mutant: Path | None = None, over: Path | None = None) -> list[tuple[int, float]]:
    """(positions searched, CPU seconds) of every work search, in a child process."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        submission(folder, mutant, over)
        run = subprocess.run(
            [sys.executable, "-c", CHILD, json.dumps(work_searches())],
            cwd=folder,
            capture_output=True,
            text=True,
            check=True,
        )
    return [(int(count), float(cpu)) for count, cpu in json.loads(run.stdout)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutant", type=Path, action="append", default=[])
    parser.add_argument("--over", type=Path, action="append", default=[])
    args = parser.parse_args()
    searches = work_searches()
    reference = measure()
    columns = [("reference", reference)]
    columns += [(path.stem, measure(mutant=path)) for path in args.mutant]
    columns += [(path.name, measure(over=path)) for path in args.over]
    for index, search in enumerate(searches):
        base = reference[index][0]
        cells = [
            f"{name} {found[index][0]} ({found[index][0] / base:.2f}x, {found[index][1]:.3f} s)"
            for name, found in columns
        ]
        size, moves, depth = search
        print(
            f"{size}x{size} {moves} depth {depth} (at most {allowance(base, cases.WORK_MARGIN)}): "
            + "; ".join(cells)
        )
    for name, found in columns:
        print(
            f"{name}: {sum(count for count, _ in found)} positions, "
            f"{sum(cpu for _, cpu in found):.2f} s CPU in all"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
