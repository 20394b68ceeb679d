"""Ultimate tic-tac-toe engine on three integers (the file you submit).

The game: nine small 3x3 grids (the zones) sit in a large 3x3 grid. A move marks one empty
cell; the cell's position inside its zone names the zone the opponent must play in next.
Completing a line of three in a zone captures that zone for the large grid, and a line of
three captured zones in the large grid wins the game. When the zone you are sent to is
captured or full, you may play in any zone that is neither captured nor full.

Zones and the cells inside a zone share the names and numbers of the compass:

    +----+----+----+        +---+---+---+
    | nw | n  | ne |        | 0 | 1 | 2 |
    +----+----+----+        +---+---+---+
    | w  | c  | e  |        | 3 | 4 | 5 |
    +----+----+----+        +---+---+---+
    | sw | s  | se |        | 6 | 7 | 8 |
    +----+----+----+        +---+---+---+

A 9-bit *pattern* describes one side's marks in a 3x3 grid: bit k is set when that side holds
square k (nw = bit 0 ... se = bit 8).

The board is a tuple `(us, them, share)` of three non-negative integers, each fitting in 63
bits (most significant bits on the left, `#` bits unused and always 0):

    us    : #        SW-X  E-X   C-X   W-X   NE-X  N-X   NW-X
    width : 1         9     9     9     9     9     9     9
    them  : #        SW-O  E-O   C-O   W-O   NE-O  N-O   NW-O
    width : 1         9     9     9     9     9     9     9
    share : ######  ZN  LG-O  LG-X  SE-O  S-O   SE-X  S-X
    width : 6       4    9     9     9     9     9     9

So X's pattern of zone z (0 <= z <= 6) is `us >> 9*z & 0x1FF`, O's is the same in `them`; the
two last zones live in `share`: X's S at bits 0-8, X's SE at 9-17, O's S at 18-26, O's SE at
27-35. `LG-X` (bits 36-44) and `LG-O` (bits 45-53) are the large grid: bit z is set when that
side captured zone z. `ZN` (bits 54-57) is the zone the next move must be played in, 0 to 8,
or 9 (`ANY_ZONE`) when any open zone may be used. The empty board is `(0, 0, 9 << 54)`.

A move is the number `9 * zone + cell` (0 to 80); `nw/ne` is move 2, `c/c` is move 40. The
side making it is passed separately: 0 for X (who starts), 1 for O. Functions receive boards
as tuples or as lists of three integers and return tuples.
"""

from __future__ import annotations

Board = tuple[int, int, int]
Move = int
Side = int
Tables = tuple[list[int], list[int]]
Line = list[Move]

INFINITY = 1_000_000
ANY_ZONE = 9
ZONE_NAMES = ("nw", "n", "ne", "w", "c", "e", "sw", "s", "se")
EMPTY_BOARD: Board = (0, 0, ANY_ZONE << 54)


def move_name(move: Move) -> str:
    """Name a move: the zone's name, a slash, the cell's name.

    Examples: `move_name(2) == "nw/ne"`, `move_name(40) == "c/c"`, `move_name(80) == "se/se"`,
    `move_name(0) == "nw/nw"`.
    """
    raise NotImplementedError


def parse_move(text: str) -> Move:
    """The move named by `text`, the inverse of `move_name`: `parse_move("n/se") == 17`.

    Only the exact lower-case names of `ZONE_NAMES` around a single `/` are accepted; anything
    else (`"nw"`, `"NW/NE"`, `"x/y"`, `"nw/ne/c"`, `""`, `" nw/ne"`) raises ValueError.
    Whether the move is legal in some position is not this function's concern.
    """
    raise NotImplementedError


def generate_moves(board: Board) -> list[Move]:
    """All legal moves, in increasing order (zone by zone, cells nw to se inside a zone).

    - None at all once either side's large-grid pattern holds a line of three.
    - When `ZN` names a zone, the empty cells of that zone.
    - When `ZN` is 9, the empty cells of every zone that nobody has captured.
    Example: the empty board has all 81 moves; after X plays `c/c` (40), O's moves are
    36..44 except 40.
    """
    raise NotImplementedError


def play_move(board: Board, move: Move, side: Side) -> Board:
    """The board after `side` marks the cell `move` (assumed legal); `board` itself is unchanged.

    1. Set the mover's bit of that cell (in `us`/`them` for zones nw..sw, in `share` for s, se).
    2. If the mover's pattern in that zone now holds a line, set the zone's bit in the mover's
       large-grid pattern.
    3. The next zone is the cell's position inside its zone, unless that zone is now full or
       is captured by either side (after step 2), in which case `ZN` becomes 9.
    Example: `play_move((0, 0, 9 << 54), 40, 0) == (1 << 40, 0, 4 << 54)`.
    """
    raise NotImplementedError


def build_tables() -> Tables:
    """The two lookup tables `(large, small)` of the heuristic, each a list of 2**18 ints.

    Entry `o << 9 | x` scores a 3x3 grid where X holds pattern `x` and O pattern `o`, from X's
    point of view (mutually impossible pairs are scored all the same). Look at the eight
    lines in this order: the columns (nw-w-sw, n-c-s, ne-e-se), the rows (nw-n-ne, w-c-e,
    sw-s-se), the diagonals (nw-c-se, ne-c-sw). Skip a line that holds marks of both sides;
    the first remaining line with three marks of one side decides the grid. Otherwise every
    remaining line with two/one marks of X adds 90/20 to the large score and 8/1 to the small
    one, and the same for O subtracts. The positional term is
    `7 * corners + 5 * edges + 9 * centre`, each counting X's marks minus O's there.

    - decided for X: `large = +1000000`, `small = 0`; decided for O: `-1000000` and 0;
    - all nine squares filled, undecided: both 0;
    - otherwise `large = lines_large + 25 * positional`, `small = lines_small + positional`.
    Examples: a lone X in the centre lies on four open lines and holds the centre, so
    `large[1 << 4] == 4 * 20 + 25 * 9 == 305` and `small[1 << 4] == 4 * 1 + 9 == 13`;
    X holding the top row gives `large[0b111] == 1000000`.
    """
    raise NotImplementedError


def evaluate(board: Board, side: Side, tables: Tables) -> int:
    """The heuristic value of `board` for `side`, from the tables of `build_tables`.

    From X's point of view: if the large grid's entry in `large` is +/-1000000, that is the
    value; otherwise it is that entry plus the `small` entry of every zone that is neither
    full nor captured. For O (side 1) return the negation.
    Examples: 0 for the empty board; after X plays `c/c` the large grid is empty (entry 0)
    and zone c holds a lone centre X (13), so 13 for X and -13 for O.
    """
    raise NotImplementedError


def search(
    board: Board,
    side: Side,
    depth: int,
    tables: Tables,
    alpha: int = -INFINITY,
    beta: int = INFINITY,
) -> tuple[int, Line]:
    """Negamax alpha-beta search of `depth` plies for `side`: `(value, principal_variation)`.

    The search, node by node (`plies` = moves made since the root):
    1. No legal move: the game is over. The value is the large grid's entry in `large` for the
       side to move, moved `plies` toward 0 when it is +/-1000000 (a win found sooner is
       worth more), and 0 otherwise. The line has `plies` slots.
    2. Remaining depth 0: `evaluate(...)` for the side to move, a line of `depth` slots (the
       root's depth) holding 0.
    3. Otherwise try the moves in `generate_moves` order; a child is searched with the window
       `(-beta, -alpha)` and its value negated. Write the move into slot `plies` of the
       child's line. A value `>= beta` returns `beta` at once with that line (fail-hard);
       a value `> alpha` raises `alpha` and makes that line the best one. After the last
       move return `alpha` and the best line, or a fresh line of `depth` zeros when no move
       raised `alpha`.
    The root is called with `alpha`/`beta` (by default -1000000/+1000000). The search
    must be fast: depth 8 from the empty board is about a million nodes.
    Examples (tables from `build_tables`): from the empty board, depth 1 gives
    `(13, [4])` (`nw/c`, +13) and depth 2 gives `(3, [40, 36])` (`c/c c/nw`, +3).
    Raises ValueError for a negative depth.
    """
    raise NotImplementedError


def eval_string(value: int, depth: int) -> str:
    """Show a search value the way the console does, for a search of `depth` plies.

    - `L<n>` when `value <= -1000000 + depth`, with n = value + 1000000 (lost in n plies);
    - `W<n>` when `value >= 1000000 - depth`, with n = 1000000 - value (won in n plies);
    - `D0` for 0;
    - otherwise the value with its sign: `+91`, `-7`.
    """
    raise NotImplementedError


def board_string(board: Board) -> str:
    """The board as the console prints it: 17 lines joined by newlines, no final newline.

    A rule `---+---+---`, then three bands of three text lines each followed by the rule;
    a text line shows one row of cells of three zones side by side (`X`, `O` or `.`),
    separated by `|`. Then the large grid as three lines of three symbols and the line
    `ZONE: NW` (the upper-case zone name) or `ZONE: ANY`. After X plays `nw/ne`:

        ---+---+---
        ..X|...|...
        ...|...|...
        ...|...|...
        ---+---+---
        (two more bands of empty zones)
        ...
        ...
        ...
        ZONE: NE
    """
    raise NotImplementedError
