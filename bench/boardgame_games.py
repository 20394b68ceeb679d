"""Benchmark: CPU time and peak memory of every boardgame game, for the reference and every
known submission of fixtures/boardgame/mutants/ (right ones under AC/, known-wrong ones).

    .venv/bin/python bench/boardgame_games.py [--cap SECONDS] [--only VARIANT ...]

Each game runs `play.py BOARD [--first computer]` in a fresh folder laid out as the grader lays
out a submission (submitted files, then the given files over them), with the scripted moves on
stdin. Prints, per game and variant, the child's CPU seconds (user + system), its peak resident
memory and whether its output equals the reference's. Runs longer than --cap seconds are
stopped and shown as ">cap". The time limits of fixtures/boardgame/suite.yaml come from these figures.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.exercise import Exercise  # noqa: E402 - needs the root on sys.path first
from grader.judge.mutants import Mutant, applied, mutants_of  # noqa: E402

BOARDGAME = Exercise.named("boardgame", ROOT)
EXERCISE = BOARDGAME.stubs
REFERENCE = BOARDGAME.reference
FIXTURES = BOARDGAME.fixtures
GIVEN = ("symbols.py", "errors.py", "computer.py", "play.py", "probe.py")

# (board file, first player, moves file): the games of the suite's transcript tests
GAMES = [
    ("board_3x3_centre.txt", "human", "moves_3x3_centre_a.txt"),
    ("board_3x3_centre.txt", "computer", "moves_3x3_centre_b.txt"),
    ("board_3x3_centre.txt", "human", "moves_3x3_centre_c.txt"),
    ("board_3x3_centre.txt", "human", "moves_3x3_mistakes.txt"),
    ("board_4x5_k3.txt", "human", "moves_4x5_k3_a.txt"),
    ("board_4x5_k3.txt", "computer", "moves_4x5_k3_b.txt"),
    ("board_3x4_deep.txt", "computer", "moves_3x4_deep.txt"),
    ("board_3x4_deep.txt", "computer", "moves_3x4_deep_b.txt"),
    ("board_4x4_k4_deep.txt", "human", "moves_4x4_k4_deep.txt"),
    ("board_4x4_corners.txt", "computer", "moves_4x4_corners.txt"),
    ("board_5x5_blocked.txt", "human", "moves_5x5_blocked.txt"),
    ("board_2x3_k2.txt", "human", "moves_2x3_k2.txt"),
]


def variants() -> dict[str, Mutant | None]:
    """The reference (None) and every mutant, by VERDICT/NAME."""
    found: dict[str, Mutant | None] = {"reference": None}
    for mutant in mutants_of(BOARDGAME):
        found[mutant.name] = mutant
    return found


def lay_out(target: Path, mutant: Mutant | None) -> None:
    """Reference files, the mutant's patched files over them, then the given files over everything."""
    for source in REFERENCE.glob("*.py"):
        shutil.copy(source, target)
    if mutant is not None:
        with applied(mutant, REFERENCE) as patched:
            for source in patched.glob("*.py"):
                shutil.copy(source, target)
    for name in GIVEN:
        shutil.copy(EXERCISE / name, target)


def run_game(code: Path, board: str, first: str, moves: str, cap: float) -> tuple[float, int, str]:
    """CPU seconds, peak RSS (KiB) and stdout of one game (CPU is inf when over the cap)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(FIXTURES / moves, "rb") as stdin:
        try:
            done = subprocess.run(
                [sys.executable, str(code / "play.py"), str(FIXTURES / board), "--first", first],
                stdin=stdin,
                capture_output=True,
                timeout=cap,
                cwd=code,
                check=False,
            )
            output = done.stdout.decode()
        except subprocess.TimeoutExpired:
            return float("inf"), 0, ""
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, after.ru_maxrss, output


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=float, default=30.0, help="seconds before a run is stopped")
    parser.add_argument("--only", nargs="*", help="variants to run besides the reference")
    options = parser.parse_args()
    chosen = variants()
    if options.only is not None:
        chosen = {name: path for name, path in chosen.items() if name == "reference" or name in options.only}
    expected: dict[str, str] = {}
    print(f"{'game':44} {'variant':32} {'cpu s':>7} {'peak MiB':>8}  output")
    with tempfile.TemporaryDirectory() as scratch:
        for name, mutant in chosen.items():
            code = Path(scratch) / name.replace("/", "_")
            code.mkdir()
            lay_out(code, mutant)
            total = 0.0
            for board, first, moves in GAMES:
                cpu, peak, output = run_game(code, board, first, moves, options.cap)
                total += cpu
                if name == "reference":
                    expected[moves] = output
                same = "same" if output == expected.get(moves) else "DIFFERENT"
                shown = f">{options.cap:.0f}" if cpu == float("inf") else f"{cpu:.2f}"
                print(
                    f"{board + ' ' + first + ' ' + moves[6:-4]:44} {name:32} {shown:>7} "
                    f"{peak / 1024:8.1f}  {same if cpu != float('inf') else '-'}",
                    flush=True,
                )
            print(f"{'total':44} {name:32} {total:7.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
