"""Bitmaps and the game tree of (w, h, k) tic-tac-toe (the file you hand in).

Part 1 packs a board into one int, one bit per square (see `prelude.py` for the layout): square
(i, j), column i and row j, is bit `encode(w, h, i, j) == (h + 1) * i + j`, and the board keeps
one extra empty row on top and one extra empty column on its right. On a 3x3 board:

    .  .  .  .
    2  6 10  .
    1  5  9  .
    0  4  8  .

So the full 3x3 board is 0b0000011101110111 == 1911, the leftmost column alone is 7, the bottom
row alone is 0b0000000100010001 == 273, and the empty board is 0. `prelude.bitmap(w, h, text)` reads
a drawing (top row first, '1' marked, '.' or '0' empty) and `draw(w, h, bitmap)` makes one.
`str(state)` draws a game state.

Part 2 plays the (w, h, k) game: two players take turns marking a free square of a w x h board,
and the first one to own k marks in a row, a column or a diagonal wins; a full board without
such an alignment is a draw. Tic-tac-toe is the (3, 3, 3) game. A position is a `State`
(given): `player_bitmap` holds the marks of the player who is up, `opponent_bitmap` those of
the other one, and `past_moves` how many moves have been played.

Replace each `raise NotImplementedError` with your code; you may add helper functions.
"""

from __future__ import annotations

import prelude  # noqa: F401 - prelude.bitmap draws boards in the examples
from prelude import (  # noqa: F401 - everything you may need
    BITMAP_WIDTH,
    Bitmap,
    Direction,
    Leaf,
    Move,
    NonLeaf,
    Offset,
    Offspring,
    Seq,
    State,
    Tree,
    draw,
    encode,
    north,
)

# ---------------------------------------------------------------- part 1: bitmaps


def decode(w: int, h: int, offset: Offset) -> tuple[int, int]:
    """Question 1. The inverse of `encode(w, h, ...)`: the square (i, j), column i and row j,
    whose bit number is `offset` (for any offset of the board and its extra row and column).

    >>> decode(3, 3, 5), decode(3, 3, 8), decode(3, 3, 15)
    ((1, 1), (2, 0), (3, 3))
    >>> all(decode(4, 3, encode(4, 3, i, j)) == (i, j) for i in range(5) for j in range(4))
    True
    """
    raise NotImplementedError


def mask(w: int, h: int, i: int, j: int) -> Bitmap:
    """Question 2. The board where square (i, j) is marked and every other square is empty.

    Hint: `encode`, and the shift-left operator `<<`.

    >>> mask(3, 3, 1, 1)  # bit 5: 0b0000000000100000
    32
    >>> draw(3, 3, mask(3, 3, 2, 0)).split()
    ['....', '000.', '000.', '001.']
    """
    raise NotImplementedError


def read(w: int, h: int, bitmap: Bitmap, i: int, j: int) -> bool:
    """Question 3. Whether square (i, j) is marked on the board `bitmap` (True or False).

    Hint: `mask`, and the bitwise and `&`.

    >>> read(3, 3, 273, 1, 0), read(3, 3, 273, 1, 1)  # 273: the bottom row
    (True, False)
    """
    raise NotImplementedError


def update(w: int, h: int, bitmap: Bitmap, i: int, j: int) -> Bitmap:
    """Question 4. The board `bitmap` with square (i, j) marked as well (and the same as
    `bitmap` everywhere else; marking a marked square changes nothing).

    Hint: `mask`, and the bitwise or `|`.

    >>> update(3, 3, 7, 0, 0), update(3, 3, 7, 1, 0)  # 7: the leftmost column
    (7, 23)
    """
    raise NotImplementedError


# ---------------------------------------------------------------- part 1: alignments
#
# An alignment runs along one of four directions: north, east, northeast or southeast (the
# opposite directions would find the same alignments, walked the other way). A direction is a
# function of (w, h) that gives the offset of one step that way: one step north adds 1 to the
# bit number, so `north(w, h) == 1` (given).


def east(w: int, h: int) -> Offset:
    """Question 5a. The offset of one step east (to the next column).

    >>> encode(3, 3, 1, 2) + east(3, 3) == encode(3, 3, 2, 2)
    True
    """
    raise NotImplementedError


def northeast(w: int, h: int) -> Offset:
    """Question 5b. The offset of one step northeast (next column, one row up).

    >>> encode(4, 3, 0, 0) + northeast(4, 3) == encode(4, 3, 1, 1)
    True
    """
    raise NotImplementedError


def southeast(w: int, h: int) -> Offset:
    """Question 5c. The offset of one step southeast (next column, one row down).

    >>> encode(3, 4, 0, 2) + southeast(3, 4) == encode(3, 4, 1, 1)
    True
    """
    raise NotImplementedError


def alignments(w: int, h: int, k: int, direction: Direction, bitmap: Bitmap) -> Bitmap:
    """Question 6. The set (as a bitmap) of the squares where a k-alignment along `direction`
    begins: square s is in it when s, s + d, s + 2d, ..., s + (k - 1)d are all marked in
    `bitmap`, d being `direction(w, h)`. Here k >= 1.

    Bit-level parallelism does it in a few operations over the whole board at once:
    `bitmap >> d` is the set of squares whose neighbour in that direction is marked, so
    `bitmap & (bitmap >> d)` is the set where a 2-alignment begins; two more operations give
    the 4-alignments, and so on. The empty extra row and column stop alignments from wrapping
    around the edges of the board. Give a recursive definition (the base case can be k = 1)
    that takes O(log k) operations, not O(k).

    >>> alignments(3, 3, 2, east, 273)  # bottom row: 2-alignments begin at (0, 0) and (1, 0)
    17
    >>> alignments(3, 3, 3, east, 273), alignments(3, 3, 3, north, 273)
    (1, 0)
    >>> diagonal = prelude.bitmap(3, 3, '''
    ...     ....
    ...     ..1.
    ...     .1..
    ...     1...
    ... ''')
    >>> alignments(3, 3, 3, northeast, diagonal), alignments(3, 3, 3, southeast, diagonal)
    (1, 0)
    """
    raise NotImplementedError


def has_alignment(w: int, h: int, k: int, bitmap: Bitmap) -> bool:
    """Question 7. Whether `bitmap` holds a k-alignment anywhere, in any of the four directions.

    >>> has_alignment(3, 3, 3, 273), has_alignment(3, 3, 3, 7), has_alignment(3, 3, 3, 1 + 16)
    (True, True, False)
    >>> has_alignment(3, 3, 3, prelude.bitmap(3, 3, '''
    ...     ....
    ...     1...
    ...     .1..
    ...     ..1.
    ... '''))
    True
    """
    raise NotImplementedError


# ---------------------------------------------------------------- part 2: game states


def initial(w: int, h: int, k: int) -> State:
    """The state where the (w, h, k) game begins: an empty board, no move played yet.

    >>> initial(3, 3, 3)
    State(w=3, h=3, k=3, player_bitmap=0, opponent_bitmap=0, past_moves=0)
    """
    raise NotImplementedError


def square_is_available(state: State, i: int, j: int) -> bool:
    """Whether (i, j) may be played: a square of the board proper (not of the extra row or
    column, so i < w and j < h) that neither player has marked.

    >>> state = State(3, 3, 3, 1, 16, 2)  # X at (0, 0), O at (1, 0), X is up
    >>> square_is_available(state, 0, 0), square_is_available(state, 0, 1)
    (False, True)
    >>> square_is_available(state, 3, 0)  # column 3 is the extra column
    False
    """
    raise NotImplementedError


def play(state: State, i: int, j: int) -> State:
    """The state after the player who is up marks the (available) square (i, j).

    Then the other player is up: the new state's `player_bitmap` is the old `opponent_bitmap`,
    its `opponent_bitmap` is the old `player_bitmap` with (i, j) marked, and one more move has
    been played.

    >>> play(initial(3, 3, 3), 1, 1)
    State(w=3, h=3, k=3, player_bitmap=0, opponent_bitmap=32, past_moves=1)
    >>> str(play(play(initial(3, 3, 3), 1, 1), 0, 0)).split()  # X played (1, 1), O (0, 0)
    ['...', '.X.', 'O..']
    """
    raise NotImplementedError


def no_square_is_available(state: State) -> bool:
    """Whether the board is full, so that no move can be played (`past_moves` tells).

    >>> no_square_is_available(initial(3, 3, 3)), no_square_is_available(State(1, 1, 2, 0, 1, 1))
    (False, True)
    """
    raise NotImplementedError


def opponent_has_won(state: State) -> bool:
    """Whether the opponent of the player who is up (who has just played) has a k-alignment.

    >>> opponent_has_won(State(3, 3, 3, 2 + 4, 273, 5)), opponent_has_won(State(3, 3, 3, 273, 6, 5))
    (True, False)
    """
    raise NotImplementedError


# ---------------------------------------------------------------- part 2: the game tree


def tree(state: State) -> Tree:
    """Question 8. The game tree whose root is `state` (see `lazytree.py` for the tree types).

    - If the opponent has won, the game is over and the player who is up has lost: `Leaf(-1)`.
      (A leaf worth +1 cannot happen: nobody loses by making a move.)
    - Otherwise, if the board is full, the game is a draw: `Leaf(0)`.
    - Otherwise, a `NonLeaf` whose offspring has one pair `(move, subtree)` per available
      square, in increasing bit-number order; `move` is that bit number,
      `encode(w, h, i, j)`, and `subtree` is `tree(play(state, i, j))`.

    The offspring must be lazy: a subtree is built only when the sequence is traversed that
    far (the tree of the 4x4 board has trillions of nodes). `Seq.interval`, `Seq.filter` and
    `Seq.map` (or `Seq(generator_function, arguments...)`) build such sequences.

    >>> [move for move, _subtree in tree(initial(3, 3, 3)).offspring]
    [0, 1, 2, 4, 5, 6, 8, 9, 10]
    >>> tree(State(3, 3, 3, 2 + 4, 273, 5))
    Leaf(value=-1)

    The full tree of tic-tac-toe has 549946 nodes, and its value is 0: a draw.
    """
    raise NotImplementedError
