"""Benchmark: the boardgame reference Dictionary and what the search asks of it.

    .venv/bin/python bench/boardgame_dictionary.py

Prints (1) collisions of the course's 10000 keys for several table sizes, next to what a
uniformly random hash would give; (2) put and get throughput on the course keys; (3) for the
first computer move on each suite board: positions visited, configurations stored, dictionary
hits, the longest chain of the TABLE_SIZE table, and CPU seconds, with and without the
dictionary finding repeated configurations.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support import exercise_modules  # noqa: E402 - needs the root on sys.path first

FIXTURES = ROOT / "fixtures" / "boardgame"
BOARDS = [
    ("board_3x3_centre.txt", "computer"),
    ("board_4x5_k3.txt", "human"),
    ("board_3x4_deep.txt", "computer"),
    ("board_4x4_k4_deep.txt", "human"),
    ("board_4x4_corners.txt", "computer"),
    ("board_5x5_blocked.txt", "human"),
]


def expected_collisions(keys: int, size: int) -> float:
    """Collisions a uniformly random hash would make on average."""
    return keys - size * (1 - math.exp(-keys / size))


def collisions_table(modules: dict[str, Any]) -> None:
    probe = modules["probe"]
    print("table size   collisions   uniform hash")
    for size in (1009, 4999, 9887, 10007, 19997, 100003):
        uniform = expected_collisions(10_000, size)
        print(f"{size:10} {probe.count_collisions(size):12} {uniform:14.0f}")


def throughput(modules: dict[str, Any]) -> None:
    dictionary, probe = modules["dictionary"], modules["probe"]
    keys = probe.course_keys()
    table = dictionary.Dictionary(9887)
    started = time.process_time()
    for key in keys:
        table.put(dictionary.Record(key, 1, 0))
    put_s = time.process_time() - started
    started = time.process_time()
    for _ in range(5):
        for key in keys:
            table.get(key)
    get_s = (time.process_time() - started) / 5
    print(
        f"\nput: {len(keys) / put_s / 1000:.0f}k/s   get: {len(keys) / get_s / 1000:.0f}k/s "
        f"(10000 course keys, 9887 buckets)"
    )


def first_moves(modules: dict[str, Any]) -> None:
    dictionary, computer, play = modules["dictionary"], modules["computer"], modules["play"]

    class NeverFinds(dictionary.Dictionary):  # type: ignore[misc,name-defined]
        def get(self, config: str) -> None:
            return None

        def put(self, record: Any) -> int:
            self.count += 1
            return 0

    print("\nfirst computer move   dictionary  visited   stored    hits  longest chain   cpu s")
    for board_file, first in BOARDS:
        spec = play.parse_board((FIXTURES / board_file).read_text(encoding="utf-8"))
        for table_type in (dictionary.Dictionary, NeverFinds):
            board = modules["board"].Board(*spec)
            if first == "human":
                board.store_play(0, 0, "b")
            counts = {"plays": 0, "hits": 0}
            store, repeated = board.store_play, board.repeated_config

            def counting_store(
                row: int, col: int, symbol: str, store: Any = store, counts: dict[str, int] = counts
            ) -> None:
                counts["plays"] += 1
                store(row, col, symbol)

            def counting_lookup(table: Any, repeated: Any = repeated, counts: dict[str, int] = counts) -> Any:
                found = repeated(table)
                counts["hits"] += found is not None
                return found

            board.store_play, board.repeated_config = counting_store, counting_lookup
            table = table_type(computer.TABLE_SIZE)
            started = time.process_time()
            computer.computer_play(board, table, "o", -1, 4, 0)
            cpu = time.process_time() - started
            longest = max(len(chain) for chain in table.buckets)
            name = "real" if table_type is dictionary.Dictionary else "never finds"
            print(
                f"{board_file[6:-4]:20} {name:>11} {counts['plays'] // 2:8} "
                f"{table.num_items():8} {counts['hits']:7} {longest:14} {cpu:7.2f}",
                flush=True,
            )


def main() -> int:
    with exercise_modules("boardgame") as modules:
        collisions_table(modules)
        throughput(modules)
        first_moves(modules)
    return 0


if __name__ == "__main__":
    sys.exit(main())
