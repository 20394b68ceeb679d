"""Two people play tic-tac-toe on the packed grid (a given driver: do not edit).

Each move is a line "x y" (column, row, 0..2). After every move the driver prints the board and
the grid's integer, so you can watch the bits change. Run it with `grader run bitgrid play`.
"""

from __future__ import annotations

import sys

from grid import EMPTY, X, get_field, is_full, set_field, winner

SYMBOLS = {EMPTY: ".", X: "X", 2: "O"}


def board_text(grid: int) -> str:
    rows = [" ".join(SYMBOLS[get_field(grid, x, y)] for x in range(3)) for y in range(3)]
    return "\n".join(rows)


def read_move(grid: int) -> tuple[int, int] | None:
    """The next legal move from stdin, asking again after a bad one; None at end of input."""
    while True:
        line = sys.stdin.readline()
        if not line:
            return None
        parts = line.split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            print("Please type two numbers: x y (each 0..2).")
            continue
        x, y = int(parts[0]), int(parts[1])
        if not (0 <= x <= 2 and 0 <= y <= 2):
            print("Both numbers must be between 0 and 2.")
            continue
        if get_field(grid, x, y) != EMPTY:
            print("That field is taken.")
            continue
        return x, y


def main(argv: list[str] | None = None) -> int:
    grid, player = 0, X
    print(board_text(grid))
    print(f"grid = {grid}")
    while True:
        print(f"{SYMBOLS[player]} to move (x y):")
        move = read_move(grid)
        if move is None:
            print("End of input: the game is abandoned.")
            return 0
        grid = set_field(grid, move[0], move[1], player)
        print(board_text(grid))
        print(f"grid = {grid}")
        if winner(grid) != EMPTY:
            print(f"{SYMBOLS[winner(grid)]} wins!")
            return 0
        if is_full(grid):
            print("Draw!")
            return 0
        player = 3 - player


if __name__ == "__main__":
    sys.exit(main())
