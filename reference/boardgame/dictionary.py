"""Reference: configuration records in a hash table with separate chaining."""

from __future__ import annotations

from errors import DuplicatedKeyError, InexistentKeyError
from symbols import Config, Score

__all__ = ["Dictionary", "DuplicatedKeyError", "InexistentKeyError", "Record"]

HASH_BASE = 37


class Record:
    """One dictionary entry: attributes `config`, `score` and `level`, as given."""

    def __init__(self, config: Config, score: Score, level: int) -> None:
        self.config = config
        self.score = score
        self.level = level

    def __repr__(self) -> str:
        return f"Record({self.config!r}, {self.score!r}, {self.level!r})"


class Dictionary:
    """A hash table with `size` buckets and separate chaining, keyed by configuration strings."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.buckets: list[list[Record]] = [[] for _ in range(size)]
        self.count = 0

    def bucket(self, config: Config) -> list[Record]:
        """The chain `config` hashes to (a polynomial hash, evaluated by Horner's rule)."""
        code = 0
        for char in config:
            code = (code * HASH_BASE + ord(char)) % self.size
        return self.buckets[code]

    def put(self, record: Record) -> int:
        chain = self.bucket(record.config)
        if any(stored.config == record.config for stored in chain):
            raise DuplicatedKeyError(record.config)
        collided = 1 if chain else 0
        chain.append(record)
        self.count += 1
        return collided

    def get(self, config: Config) -> Record | None:
        for stored in self.bucket(config):
            if stored.config == config:
                return stored
        return None

    def remove(self, config: Config) -> None:
        chain = self.bucket(config)
        for index, stored in enumerate(chain):
            if stored.config == config:
                del chain[index]
                self.count -= 1
                return
        raise InexistentKeyError(config)

    def num_items(self) -> int:
        return self.count
