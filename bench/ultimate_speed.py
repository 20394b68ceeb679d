"""Speed of reference/ultimate: depth 8 from the empty board (the issue's target: <= 1.5 s).

For comparison the original engines took 7.4 s (Python) and 0.26 s (Java) on this machine.
Also times the same search written plainly (a new board per node, like the original Python)
unless --no-plain is given, and reports the peak memory of a console game's first engine move.

Run: .venv/bin/python bench/ultimate_speed.py [--depth 8] [--repeat 3] [--no-plain]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from ultimate_calibrate import load_reference, plain_search  # noqa: E402


def peak_memory_kb(depth: int) -> int:
    """Peak RSS of the console playing X at `depth` for one move, in a child process."""
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(ROOT / "reference" / "ultimate" / "engine.py", folder)
        shutil.copy(ROOT / "exercises" / "ultimate" / "console.py", folder)
        subprocess.run(
            [sys.executable, str(Path(folder) / "console.py")],
            input=f"{depth}\n1\n",
            text=True,
            capture_output=True,
            check=True,
        )
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def main() -> int:
    """Print the timings."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-plain", action="store_true")
    options = parser.parse_args()
    engine = load_reference()
    start = time.perf_counter()
    tables = engine.build_tables()
    print(f"build_tables: {time.perf_counter() - start:.3f} s")
    board = engine.EMPTY_BOARD
    times, cpu = [], []
    for _ in range(options.repeat):
        used = resource.getrusage(resource.RUSAGE_SELF).ru_utime
        start = time.perf_counter()
        value, line = engine.search(board, 0, options.depth, tables)
        times.append(time.perf_counter() - start)
        cpu.append(resource.getrusage(resource.RUSAGE_SELF).ru_utime - used)
    shown = (engine.eval_string(value, options.depth), ", ".join(map(engine.move_name, line)))
    print(
        f"reference depth {options.depth}: best {min(times):.3f} s wall, "
        f"{min(cpu):.3f} s cpu (of {options.repeat}); Eval: {shown[0]} PV: [{shown[1]}]"
    )
    if not options.no_plain:
        start = time.perf_counter()
        plain = plain_search(engine, tables, True, float("inf"))(board, 0, options.depth)
        print(
            f"plain depth {options.depth}: {time.perf_counter() - start:.3f} s wall; "
            f"same result: {plain == (value, line)}"
        )
    peak = peak_memory_kb(options.depth)
    print(f"console, one move at depth {options.depth}: peak RSS {peak} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
