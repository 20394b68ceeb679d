"""Reference: the transposition table, TABLE_SIZE buckets chained separately.

Each bucket's chain is a small dict from board id to (depth, move): dicts keep insertion
order, so the newest entry is the head of its chain (`chain()` lists it first), and finding
an id in a chain costs one hash probe instead of a walk.
"""

from __future__ import annotations

import constants
from board import BoardOptimalMove

Entry = tuple[int, BoardOptimalMove]

NOT_FOUND = BoardOptimalMove()


class BoardHashTable:
    """Optimal moves by board id and search depth; one table per program (`get_instance`)."""

    _instance: BoardHashTable | None = None

    def __init__(self) -> None:
        """An empty table; use `get_instance()` rather than calling this."""
        self._size = constants.TABLE_SIZE
        self._buckets: list[dict[int, Entry] | None] = [None] * self._size

    @classmethod
    def get_instance(cls) -> BoardHashTable:
        """The program's only table, created on first use."""
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def get_hashed_move(self, id: int, depth: int) -> BoardOptimalMove:
        """The move stored for `id` if it was searched at least `depth` deep, else an illegal move."""
        chain = self._buckets[id % self._size]
        if chain is not None:
            entry = chain.get(id)
            if entry is not None and entry[0] >= depth:
                return entry[1]
        return NOT_FOUND

    def update_table(self, id: int, depth: int, move: BoardOptimalMove) -> None:
        """Store `move` for `id`: as a new head entry, or over an entry searched less deep."""
        index = id % self._size
        chain = self._buckets[index]
        if chain is None:
            self._buckets[index] = {id: (depth, move)}
            return
        entry = chain.get(id)
        if entry is None:
            chain[id] = (depth, move)
        elif entry[0] < depth:
            chain[id] = (depth, move)  # updated where it stands in the chain

    def clear_table(self) -> None:
        """Forget every entry."""
        self._buckets = [None] * self._size

    def chain(self, index: int) -> list[int]:
        """The ids in bucket `index`, head first."""
        chain = self._buckets[index]
        return [] if chain is None else list(reversed(chain))
