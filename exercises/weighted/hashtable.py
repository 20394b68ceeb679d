"""Task 3: the transposition table (a hash table of search results).

The search meets the same position again and again through different move orders. The table
remembers, per board id, the deepest search done so far and the move it found, so that a
position is searched only once per depth.

It is a hash table of `constants.TABLE_SIZE` buckets (101 on 3x3, 200009 on 4x4) with
separate chaining: bucket `id % TABLE_SIZE` holds a linked list of entries (id, depth, move).
A new entry may go anywhere in its list (the head is the simplest place); a lookup walks the
list until it finds the id. Board ids are unique, so an id appears at most once in the table.

Example (TABLE_SIZE 101), with bucket 1 holding id 1920 at depth 4 with the move
BoardOptimalMove(-3, BoardCoordinate(2, 1)) and bucket 99 holding other ids:

- get_hashed_move(306, 3): 306 % 101 = 3, an empty bucket: the illegal move.
- get_hashed_move(402, 3): 402 % 101 = 99, a bucket without 402: the illegal move.
- get_hashed_move(1920, 4) and get_hashed_move(1920, 3): BoardOptimalMove(-3, (2, 1)).
- get_hashed_move(1920, 5): stored at depth 4 only, not deep enough: the illegal move.
"""

from __future__ import annotations

import constants  # noqa: F401  (read constants.TABLE_SIZE at call time)
from board import BoardOptimalMove


class BoardHashTable:
    """Optimal moves by board id and search depth; one table per program."""

    _instance: BoardHashTable | None = None

    def __init__(self) -> None:
        """Create an empty table: `constants.TABLE_SIZE` empty buckets.

        Code outside this file never calls it: use `BoardHashTable.get_instance()`.
        """
        raise NotImplementedError

    @classmethod
    def get_instance(cls) -> BoardHashTable:
        """Return the program's only table, created on first use (given)."""
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def get_hashed_move(self, id: int, depth: int) -> BoardOptimalMove:
        """Return the move stored for board `id` if it was searched at least `depth` deep.

        Look `id` up in bucket `id % TABLE_SIZE`. When it is there with a stored depth
        >= `depth`, return the stored move (a deeper search is at least as good). When it is
        missing, or stored with a smaller depth, return the illegal move `BoardOptimalMove()`.
        """
        raise NotImplementedError

    def update_table(self, id: int, depth: int, move: BoardOptimalMove) -> None:
        """Remember `move` as the result of searching board `id` `depth` moves deep.

        If `id` is not in the table, add a new entry to the list of bucket `id % TABLE_SIZE`
        (anywhere in it). If it is there with a smaller depth, replace that entry's depth and
        move in place. If it is there with the same or a larger depth, change nothing.
        """
        raise NotImplementedError

    def clear_table(self) -> None:
        """Remove every entry: afterwards the table is empty, as if new (same bucket count)."""
        raise NotImplementedError

    def chain(self, index: int) -> list[int]:
        """Return the ids in bucket `index`, in the order of its list (head to tail).

        With TABLE_SIZE 101, after update_table for ids 5, 106 and 207 (all in bucket 5),
        chain(5) holds those three ids in the order your list keeps them (for instance
        [207, 106, 5] with head insertion) and chain(6) is [].
        """
        raise NotImplementedError
