"""Shared pieces of the drivers (given file: do not edit): reading numbers, game turns, results."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import TextIO

from constants import WIN_SCORE

END_OF_INPUT_MESSAGE = "End of input: quitting."


class EndOfInput(Exception):
    """Standard input ran out while the program was waiting for a number."""


class Numbers:
    """Whitespace-separated integers read one at a time, like `cin >> n` in the course's programs.

    A token that is not an integer reads as None (the caller asks again); the end of the input
    raises EndOfInput.
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        self._tokens = self._read(sys.stdin if stream is None else stream)

    @staticmethod
    def _read(stream: TextIO) -> Iterator[str]:
        for line in stream:
            yield from line.split()

    def next(self) -> int | None:
        """The next integer, None for a token that is not one."""
        token = next(self._tokens, None)
        if token is None:
            raise EndOfInput
        try:
            return int(token)
        except ValueError:
            return None

    def ask(self, prompt: str, low: int, high: int) -> int:
        """Print `prompt` and read a number until one lies in `low..high`."""
        while True:
            print(prompt)
            value = self.next()
            if value is not None and low <= value <= high:
                return value


def ask_row_col(numbers: Numbers, size: int, quit_hint: bool = True) -> tuple[int, int] | None:
    """Ask for a row then a column (re-asking out-of-range values); None when the player types -1."""
    hint = " Type -1 to quit game." if quit_hint else ""
    row = numbers.ask(f"Select a row from 0 to {size - 1} (top to bottom).{hint}", -1, size - 1)
    if row == -1:
        return None
    col = numbers.ask(f"Select a column from 0 to {size - 1} (left to right).{hint}", -1, size - 1)
    if col == -1:
        return None
    return row, col


def game_over(score: int, full: bool) -> str | None:
    """The result line once the game has ended (a line, or a full board), else None."""
    if score == WIN_SCORE:
        return "Player X won!"
    if score == -WIN_SCORE:
        return "Player O won!"
    if full:
        if score > 0:
            return "Player X won!"
        return "Player O won!" if score < 0 else "Draw!"
    return None


def release_search_memory() -> None:
    """Drop the program's hash table before exiting.

    Python's own shutdown takes seconds to free a table of a million entries; dropping the
    one reference (the singleton of the given `get_instance`) frees it in a fraction of that.
    """
    hashtable = sys.modules.get("hashtable")
    table_class = getattr(hashtable, "BoardHashTable", None)
    if table_class is not None:
        table_class._instance = None
