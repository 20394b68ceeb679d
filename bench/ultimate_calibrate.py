"""Time the ultimate suite's search tests three ways, to choose their CPU limits.

- reference: reference/ultimate/engine.py's `search`;
- plain: a straightforward fail-hard alpha-beta built from the reference's `generate_moves`,
  `play_move` and `evaluate` (one new board per node, as the original Python engine does);
  fixtures/ultimate/solutions/plain-student, plain in every function and its tables too,
  is slower still: its figures (bench/plain_limits.py ultimate) set the suite's limits;
- unpruned: the same without cut-offs (capped: stops counting after `--cap` seconds per call).

Run: .venv/bin/python bench/ultimate_calibrate.py [--cap SECONDS]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support import cases_module  # noqa: E402 - needs the root on sys.path first

cases = cases_module("ultimate")

INF = 1_000_000


class OutOfTime(Exception):
    """The capped search ran past its budget."""


def load_reference() -> Any:
    """The reference engine under a private name."""
    path = ROOT / "reference" / "ultimate" / "engine.py"
    spec = importlib.util.spec_from_file_location("_ultimate_bench_engine", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def plain_search(engine: Any, tables: Any, prune: bool, deadline: float) -> Callable[..., Any]:
    """A search function in the original's plain style."""

    def search(board: Any, side: int, depth: int, alpha: int = -INF, beta: int = INF) -> Any:
        root = depth
        large = tables[0]

        def visit(board: Any, side: int, depth: int, alpha: int, beta: int) -> Any:
            if time.perf_counter() > deadline:
                raise OutOfTime
            moves = engine.generate_moves(board)
            plies = root - depth
            if not moves:
                value = large[board[2] >> 36 & 0x3FFFF] * (-1 if side else 1)
                value = value - plies if value == INF else value + plies if value == -INF else 0
                return value, [0] * plies
            if depth == 0:
                return engine.evaluate(board, side, tables), [0] * root
            best = [0] * root
            for move in moves:
                value, line = visit(engine.play_move(board, move, side), 1 - side, depth - 1, -beta, -alpha)
                value = -value
                line[plies] = move
                if prune and value >= beta:
                    return beta, line
                if value > alpha:
                    alpha, best = value, line
            return alpha, best

        return visit(board, side, depth, alpha, beta)

    return search


def main() -> int:
    """Print one row per search test."""
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--cap", type=float, default=5.0, help="seconds per unpruned test (40 shows every figure)"
    )
    options = parser.parse_args()
    engine = load_reference()
    start = time.perf_counter()
    tables = engine.build_tables()
    print(f"build_tables: {time.perf_counter() - start:.2f} s")
    tests = {
        name: getattr(cases, name)
        for name in dir(cases)
        if name.startswith("search_") and (name.endswith("_visible") or name.endswith("_hidden"))
    }
    print(f"{'test':24} {'calls':>5} {'reference':>10} {'plain':>8} {'unpruned':>10}")
    for test, make in sorted(tests.items()):
        calls = [step["args"] for step in make() if step.get("call") == "engine.search"]
        row = []
        for kind in ("reference", "plain", "unpruned"):
            begin = time.perf_counter()
            deadline = begin + options.cap
            try:
                for args in calls:
                    board, side, depth = tuple(args[0]), args[1], args[2]
                    window = args[4:]
                    if kind == "reference":
                        engine.search(board, side, depth, tables, *window)
                    else:
                        plain_search(engine, tables, kind == "plain", deadline)(board, side, depth, *window)
                row.append(f"{time.perf_counter() - begin:.2f}")
            except OutOfTime:
                row.append(f">{options.cap:.0f}")
        print(f"{test:24} {len(calls):5} {row[0]:>10} {row[1]:>8} {row[2]:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
