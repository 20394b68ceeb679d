"""Part 1: a dictionary of board configurations, as a hash table with separate chaining.

While the computer searches the game tree (see `computer.py`), every configuration whose score
it has worked out is remembered here, so that meeting the same configuration again, through
another order of the same moves, costs one look-up instead of a whole subtree.

You write two classes:

- `Record`: one entry, a configuration string with its score and the level of the game tree
  that score came from;
- `Dictionary`: a hash table of `size` buckets; each bucket is a chain (a Python list is fine)
  of the records whose keys hash to it. The key of a record is its configuration string.

Design your own hash function from the characters of the key: Python's built-in `hash` and
`dict`/`set` are not allowed here. A good one spreads keys evenly: the course's test stores
10000 different configuration strings in a table of 9887 buckets and wants fewer than 6000
collisions (see `put`).
"""

from __future__ import annotations

from errors import DuplicatedKeyError, InexistentKeyError
from symbols import Config, Score

__all__ = ["Dictionary", "DuplicatedKeyError", "InexistentKeyError", "Record"]


class Record:
    """One dictionary entry: attributes `config`, `score` and `level`, as given."""

    config: Config
    score: Score
    level: int

    def __init__(self, config: Config, score: Score, level: int) -> None:
        """Store the three values in attributes of the same names.

        >>> r = Record("oggbdgggg", 3, 2)
        >>> (r.config, r.score, r.level)
        ('oggbdgggg', 3, 2)
        """
        raise NotImplementedError

    def __repr__(self) -> str:
        """Given: `Record('oggbdgggg', 3, 2)`."""
        return f"Record({self.config!r}, {self.score!r}, {self.level!r})"


class Dictionary:
    """A hash table with `size` buckets and separate chaining, keyed by configuration strings."""

    size: int

    def __init__(self, size: int) -> None:
        """Create an empty table of `size` buckets; keep `size` in an attribute of that name.

        `size` is at least 1; the course uses primes such as 9887.
        """
        raise NotImplementedError

    def put(self, record: Record) -> int:
        """Add `record` under the key `record.config`; return 1 on a collision, else 0.

        A collision means the key's bucket already held at least one record (with another key)
        before this one was added. If a record with the same configuration is already stored,
        raise `DuplicatedKeyError` and leave the dictionary unchanged.

        With `Dictionary(1)` every key shares the one bucket: the first `put` returns 0 and
        every later successful one returns 1.
        """
        raise NotImplementedError

    def get(self, config: Config) -> Record | None:
        """Return the record stored under `config`, or None when there is none."""
        raise NotImplementedError

    def remove(self, config: Config) -> None:
        """Remove the record stored under `config`; raise `InexistentKeyError` if there is none."""
        raise NotImplementedError

    def num_items(self) -> int:
        """Return how many records are stored (puts that succeeded minus removals)."""
        raise NotImplementedError
