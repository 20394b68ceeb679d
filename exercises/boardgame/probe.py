"""Helpers the grader calls to test a Dictionary without depending on its hash (given).

`put` returns 1 or 0 depending on the hash function, which is yours to design, so the tests
never compare that number directly; these helpers turn results into plain values that every
correct dictionary agrees on.
"""

from __future__ import annotations

import random

from dictionary import Dictionary, Record
from symbols import SYMBOLS, Config, Score

COURSE_TABLE_SIZE = 9887
COURSE_KEYS = 10_000
COURSE_MAX_COLLISIONS = 6_000  # the course's test fails with this many collisions or more


def course_keys(count: int = COURSE_KEYS, seed: int = 2210) -> list[Config]:
    """`count` different configuration strings of 9 to 16 symbols, always the same ones."""
    rng = random.Random(seed)
    keys: list[Config] = []
    seen: set[Config] = set()
    while len(keys) < count:
        key = "".join(rng.choice(SYMBOLS) for _ in range(rng.randint(9, 16)))
        if key not in seen:
            seen.add(key)
            keys.append(key)
    return keys


def collision_test() -> list[object]:
    """The course's test, 10000 keys in 9887 buckets: [fewer than 6000 collisions?, items]."""
    table = Dictionary(COURSE_TABLE_SIZE)
    collisions = sum(table.put(Record(key, index % 4, index % 7)) for index, key in enumerate(course_keys()))
    return [collisions < COURSE_MAX_COLLISIONS, table.num_items()]


def count_collisions(size: int, count: int = COURSE_KEYS) -> int:
    """How many of `count` course keys collide in a table of `size` buckets (for benchmarks)."""
    table = Dictionary(size)
    return sum(table.put(Record(key, 0, 0)) for key in course_keys(count))


def put(table: Dictionary, config: Config, score: Score, level: int) -> bool:
    """Put a new record; True when `put` answered 0 or 1 (its exceptions pass through)."""
    return table.put(Record(config, score, level)) in (0, 1)


def lookup(table: Dictionary, config: Config) -> list[object] | None:
    """The stored record as [config, score, level], or None."""
    record = table.get(config)
    return None if record is None else [record.config, record.score, record.level]


def single_bucket_answers(configs: list[Config]) -> list[int]:
    """What `put` answers for each of `configs` in a table of one bucket (0, then 1s)."""
    table = Dictionary(1)
    return [table.put(Record(config, 1, 0)) for config in configs]
