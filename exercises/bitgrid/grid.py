"""A tic-tac-toe grid packed into one integer, two bits per field.

The grid has 3x3 fields. Field (x, y) -- x is the column, y the row, both 0..2 -- is stored in
the two bits starting at bit number ``(x + y * 3) * 2``. A field holds 0 (empty), 1 (X) or 2 (O),
so the whole grid fits in 18 bits and the empty grid is simply the integer 0.

Worked example: the grid 4737 is ``00 00 01 00 10 10 00 00 01`` in binary (fields (2,2) down to
(0,0), two bits each); the field (1, 1) sits at bit 8 and holds the value 2, an O.

Every function rejects coordinates outside 0..2 and values other than 0, 1, 2 with a ValueError
whose message says what was wrong. Grids are never negative and never use bits past bit 17.
"""

from __future__ import annotations

Grid = int
EMPTY, X, O = 0, 1, 2


def position(x: int, y: int) -> int:
    """Question 1. The number of the lowest of the two bits that hold field (x, y).

    position(0, 0) == 0, position(1, 1) == 8, position(2, 2) == 16.
    Raise ValueError when x or y is not in 0..2.
    """
    raise NotImplementedError


def get_field(grid: Grid, x: int, y: int) -> int:
    """Question 2. The value (0 empty, 1 X, 2 O) of field (x, y) in `grid`.

    Mask the two bits with ``3 << position(x, y)``, then shift the result back down.
    get_field(4737, 1, 1) == 2.
    Raise ValueError for bad coordinates, or for a grid that is negative, wider than 18 bits
    or holds the impossible field value 3.
    """
    raise NotImplementedError


def set_field(grid: Grid, x: int, y: int, value: int) -> Grid:
    """Question 3. A new grid equal to `grid` except that field (x, y) holds `value`.

    Clear the two bits with the inverted mask, then OR in the value shifted into place. Any value
    may overwrite any other (this is bit manipulation, not a game rule):
    set_field(4737, 1, 1, 1) == 4481.
    Raise ValueError for bad coordinates, a bad grid or a value outside 0..2.
    """
    raise NotImplementedError


def winner(grid: Grid) -> int:
    """Question 4. 1 when X holds a full row, column or diagonal, 2 when O does, else 0.

    Grids where both players have a line cannot arise in play; return either one for them.
    Raise ValueError for a bad grid.
    """
    raise NotImplementedError


def is_full(grid: Grid) -> bool:
    """Question 5. True when no field of `grid` is empty. Raise ValueError for a bad grid."""
    raise NotImplementedError


def count_games() -> int:
    """Question 6. How many different games of tic-tac-toe exist.

    A game is a sequence of moves, X first and then alternating, each on an empty field, that
    stops as soon as a player completes a line or the grid is full. Two games are different when
    their move sequences differ. Build the games on the packed grid with the functions above.

    Playing out all games one by one takes longer in Python than the test's CPU limit allows:
    many move orders reach the same grid, so count the games from each grid only once
    (remember the counts, e.g. in a dict keyed by the grid and the player to move).
    """
    raise NotImplementedError
