"""Ultimate tic-tac-toe on three integers: rules, lookup-table heuristic and alpha-beta search."""

from __future__ import annotations

from collections.abc import Callable

Board = tuple[int, int, int]
Move = int
Side = int
Tables = tuple[list[int], list[int]]
Line = list[Move]

INFINITY = 1_000_000
ANY_ZONE = 9
ZONE_NAMES = ("nw", "n", "ne", "w", "c", "e", "sw", "s", "se")

GRID = 0b111_111_111
PAIR = 0b111_111_111_111_111_111
LARGE_SHIFT = 36
ZONE_SHIFT = 54
ZONE_FIELD = 0b1111 << ZONE_SHIFT
EMPTY_BOARD: Board = (0, 0, ANY_ZONE << ZONE_SHIFT)

# The eight lines of a 3x3 grid in the order the tables are built: columns, rows, diagonals.
LINE_MASKS = (
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b100_010_001,
    0b001_010_100,
)
CORNERS = 0b101_000_101
EDGES = 0b010_101_010
CENTRE = 0b000_010_000

LARGE_LINE = (20, 90)  # one and two own marks on an open line of the large grid
SMALL_LINE = (1, 8)  # the same for a zone
CORNER_WEIGHT, EDGE_WEIGHT, CENTRE_WEIGHT = 7, 5, 9
LARGE_POSITION_FACTOR = 25


def _has_line(grid: int) -> bool:
    """True when the 9-bit pattern holds a complete line."""
    return any(grid & mask == mask for mask in LINE_MASKS)


WON = [_has_line(grid) for grid in range(512)]
FREE_CELLS = [tuple(c for c in range(9) if not grid >> c & 1) for grid in range(512)]


def zone_grids(board: Board, zone: int) -> tuple[int, int]:
    """The X and O patterns of one zone."""
    us, them, share = board
    if zone < 7:
        return us >> 9 * zone & GRID, them >> 9 * zone & GRID
    return share >> 9 * (zone - 7) & GRID, share >> 9 * (zone - 5) & GRID


def move_name(move: Move) -> str:
    """`nw/ne` for move 2: zone name, slash, cell name."""
    return ZONE_NAMES[move // 9] + "/" + ZONE_NAMES[move % 9]


def parse_move(text: str) -> Move:
    """The move named by `text` (`zone/cell`, lower case); ValueError for anything else."""
    parts = text.split("/")
    if len(parts) != 2 or parts[0] not in ZONE_NAMES or parts[1] not in ZONE_NAMES:
        raise ValueError(f"not a move: {text!r}")
    return 9 * ZONE_NAMES.index(parts[0]) + ZONE_NAMES.index(parts[1])


def generate_moves(board: Board) -> list[Move]:
    """Legal moves, zone by zone and cell by cell; none once the large grid holds a line."""
    share = board[2]
    large_x, large_o = share >> LARGE_SHIFT & GRID, share >> LARGE_SHIFT + 9 & GRID
    if WON[large_x] or WON[large_o]:
        return []
    decided = large_x | large_o
    zone = share >> ZONE_SHIFT & 0b1111
    zones = range(9) if zone == ANY_ZONE else (zone,)
    moves: list[Move] = []
    for z in zones:
        if zone == ANY_ZONE and decided >> z & 1:
            continue
        x, o = zone_grids(board, z)
        moves.extend(9 * z + c for c in FREE_CELLS[x | o])
    return moves


def play_move(board: Board, move: Move, side: Side) -> Board:
    """The board after `side` (0 = X, 1 = O) marks `move`; the argument is left unchanged."""
    us, them, share = board
    zone, cell = divmod(move, 9)
    if zone >= 7:
        share |= 1 << move - 63 + 18 * side
    elif side:
        them |= 1 << move
    else:
        us |= 1 << move
    if WON[zone_grids((us, them, share), zone)[side]]:
        share |= 1 << LARGE_SHIFT + 9 * side + zone
    x, o = zone_grids((us, them, share), cell)
    decided = share >> LARGE_SHIFT | share >> LARGE_SHIFT + 9
    target = ANY_ZONE if x | o == GRID or decided >> cell & 1 else cell
    return us, them, share & ~ZONE_FIELD | target << ZONE_SHIFT


def build_tables() -> Tables:
    """The large-grid and zone tables, both indexed `o_pattern << 9 | x_pattern`.

    A line scores for one side when the other side has no mark on it, so each side's score is a
    sum over the lines the other side leaves open. These sums are worked out once per pattern and
    set of open lines (8 bits, one per line of LINE_MASKS); each row of the tables (one O
    pattern) then only looks them up.
    """
    patterns = range(512)
    count = [bin(grid).count("1") for grid in patterns]
    lines = list(enumerate(LINE_MASKS))
    left_open = [255 & ~sum(1 << i for i, mask in lines if grid & mask) for grid in patterns]
    completed = [sum(1 << i for i, mask in lines if grid & mask == mask) for grid in patterns]
    position = [
        CORNER_WEIGHT * count[grid & CORNERS]
        + EDGE_WEIGHT * count[grid & EDGES]
        + CENTRE_WEIGHT * count[grid & CENTRE]
        for grid in patterns
    ]

    def line_sums(score: tuple[int, int]) -> list[list[int]]:
        """`sums[open_lines][grid]`: what `grid` scores on the lines of `open_lines`."""
        worth = [
            [score[n - 1] if 0 < (n := count[grid & mask]) < 3 else 0 for _, mask in lines]
            for grid in patterns
        ]
        sums = [[0] * 512]
        for open_lines in range(1, 256):
            lowest = (open_lines & -open_lines).bit_length() - 1  # the other lines were summed before
            sums.append(
                [
                    rest + row[lowest]
                    for rest, row in zip(sums[open_lines & open_lines - 1], worth, strict=True)
                ]
            )
        return sums

    large_sums, small_sums = line_sums(LARGE_LINE), line_sums(SMALL_LINE)
    # The first line of `open_lines` a grid completes, as its bit (a lower bit is an earlier line), or 0.
    first_line = [
        [done & open_lines & -(done & open_lines) for done in completed] for open_lines in range(256)
    ]
    large: list[int] = []
    small: list[int] = []
    for o in patterns:
        x_open = left_open[o]  # X's lines: those O leaves open; O's: those each X pattern leaves open
        o_large = [large_sums[open_lines][o] for open_lines in left_open]
        o_small = [small_sums[open_lines][o] for open_lines in left_open]
        o_first = [first_line[open_lines][o] for open_lines in left_open]
        large += [
            INFINITY
            if x_first and not 0 < o_first_x < x_first
            else -INFINITY
            if o_first_x
            else 0
            if x | o == GRID
            else x_large - o_large_x + LARGE_POSITION_FACTOR * (x_position - position[o])
            for x, x_first, o_first_x, x_large, o_large_x, x_position in zip(
                patterns, first_line[x_open], o_first, large_sums[x_open], o_large, position, strict=True
            )
        ]
        small += [
            0 if x_first or o_first_x or x | o == GRID else x_small - o_small_x + x_position - position[o]
            for x, x_first, o_first_x, x_small, o_small_x, x_position in zip(
                patterns, first_line[x_open], o_first, small_sums[x_open], o_small, position, strict=True
            )
        ]
    return large, small


def evaluate(board: Board, side: Side, tables: Tables) -> int:
    """Heuristic value for `side`: large grid plus every zone still open, from X's view, signed."""
    large_table, small_table = tables
    share = board[2]
    value = large_table[share >> LARGE_SHIFT & PAIR]
    if value not in (INFINITY, -INFINITY):
        decided = (share >> LARGE_SHIFT | share >> LARGE_SHIFT + 9) & GRID
        for z in range(9):
            x, o = zone_grids(board, z)
            if x | o != GRID and not decided >> z & 1:
                value += small_table[o << 9 | x]
    return -value if side else value


def _outcome(board: Board, side: Side, plies: int, large_table: list[int]) -> int:
    """Value for `side` of a finished game, `plies` moves below the root."""
    value = large_table[board[2] >> LARGE_SHIFT & PAIR]
    if side:
        value = -value
    if value == INFINITY:
        return value - plies
    if value == -INFINITY:
        return value + plies
    return 0


# Per side to move: 0 when the zone stays open after the move, 1 when it fills up, 2 when won.
def _closing(shift: int) -> list[int]:
    """Status of a zone after a move, indexed by its new `o << 9 | x` pattern."""
    return [
        2 if WON[pair >> shift & GRID] else 1 if (pair | pair >> 9) & GRID == GRID else 0
        for pair in range(1 << 18)
    ]


CLOSING = (_closing(0), _closing(9))
OPEN_ZONES = [tuple(z for z in range(9) if mask >> z & 1) for mask in range(512)]
ONLY_ZONE = [(z,) for z in range(9)]


def search(
    board: Board,
    side: Side,
    depth: int,
    tables: Tables,
    alpha: int = -INFINITY,
    beta: int = INFINITY,
) -> tuple[int, Line]:
    """Fail-hard negamax alpha-beta of `depth` plies: the value for `side`, the principal line."""
    if depth < 0:
        raise ValueError(f"negative depth: {depth}")
    large_table, small_table = tables
    if not generate_moves(board):
        return _outcome(board, side, 0, large_table), []
    if depth == 0:
        return evaluate(board, side, tables), []

    # Mutable search state: one `o << 9 | x` pattern per zone; the rest travels as arguments.
    pairs = [o << 9 | x for x, o in (zone_grids(board, z) for z in range(9))]
    large = board[2] >> LARGE_SHIFT & PAIR
    decided = (large | large >> 9) & GRID
    open_zones = total = 0
    for z, pair in enumerate(pairs):
        if not decided >> z & 1 and (pair | pair >> 9) & GRID != GRID:
            open_zones |= 1 << z
            total += small_table[pair]
    node = _make_node(pairs, depth, large_table, small_table)
    return node(side, depth, alpha, beta, board[2] >> ZONE_SHIFT & 0b1111, large, total, open_zones)


NodeFunction = Callable[[Side, int, int, int, int, int, int, int], tuple[int, Line]]


def _make_node(
    pairs: list[int], root_depth: int, large_table: list[int], small_table: list[int]
) -> NodeFunction:
    """The recursive search over `pairs`, for one root.

    A node gets the side to move, the remaining depth, the window, the zone to play in, the
    large-grid pattern, `total` (the zone tables summed over the open zones) and the open zones
    as a bit mask; it is never a finished game: a parent scores those children itself. A
    heuristic value from X's view is `large_table[large] + total`.
    """

    def node(
        side: Side,
        depth: int,
        alpha: int,
        beta: int,
        zone: int,
        large: int,
        total: int,
        open_zones: int,
    ) -> tuple[int, Line]:
        ply = root_depth - depth
        shift = 9 * side
        closing = CLOSING[side]
        zones = OPEN_ZONES[open_zones] if zone == ANY_ZONE else ONLY_ZONE[zone]
        if depth == 1:
            # Every child is a leaf: score it here from the patterns it would have.
            here = large_table[large]
            best = -1
            best_ends = False
            for z in zones:
                pair = pairs[z]
                rest = total - small_table[pair]
                others = open_zones & ~(1 << z)
                for cell in FREE_CELLS[(pair | pair >> 9) & GRID]:
                    after = pair | 1 << cell + shift
                    status = closing[after]
                    ends = False
                    if not status:
                        value = here + rest + small_table[after]
                        if side:
                            value = -value
                    else:
                        grid = large_table[large | 1 << z + shift] if status == 2 else here
                        if grid == INFINITY or grid == -INFINITY:
                            value = INFINITY - ply - 1
                            ends = True
                        elif others:
                            value = -(grid + rest) if side else grid + rest
                        else:
                            value = 0
                            ends = True
                    if value >= beta:
                        line = [0] * (ply + 1 if ends else root_depth)
                        line[ply] = 9 * z + cell
                        return beta, line
                    if value > alpha:
                        alpha, best, best_ends = value, 9 * z + cell, ends
            line = [0] * (ply + 1 if best_ends else root_depth)
            if best >= 0:
                line[ply] = best
            return alpha, line

        pv: Line | None = None
        for z in zones:
            pair = pairs[z]
            rest = total - small_table[pair]
            for cell in FREE_CELLS[(pair | pair >> 9) & GRID]:
                after = pair | 1 << cell + shift
                status = closing[after]
                next_large = large
                next_open = open_zones
                ends = False
                if status:
                    next_open = open_zones & ~(1 << z)
                    if status == 2:
                        next_large = large | 1 << z + shift
                        if large_table[next_large] in (INFINITY, -INFINITY):
                            value, ends = INFINITY - ply - 1, True
                    if not ends and not next_open:
                        value, ends = 0, True
                if ends:
                    line = [0] * (ply + 1)
                else:
                    # A zone that closes scores 0 in the small table, so `total` stays right.
                    pairs[z] = after
                    value, line = node(
                        1 - side,
                        depth - 1,
                        -beta,
                        -alpha,
                        cell if next_open >> cell & 1 else ANY_ZONE,
                        next_large,
                        rest + small_table[after],
                        next_open,
                    )
                    pairs[z] = pair
                    value = -value
                if value >= beta:
                    line[ply] = 9 * z + cell
                    return beta, line
                if value > alpha:
                    line[ply] = 9 * z + cell
                    alpha, pv = value, line
        return alpha, pv if pv is not None else [0] * root_depth

    return node


def eval_string(value: int, depth: int) -> str:
    """`W<n>`/`L<n>` for a forced result in n plies, `D0` for zero, else the signed value."""
    if value <= -INFINITY + depth:
        return f"L{value + INFINITY}"
    if value >= INFINITY - depth:
        return f"W{INFINITY - value}"
    if value == 0:
        return "D0"
    return f"{value:+d}"


def board_string(board: Board) -> str:
    """The 9x9 cells in 3x3 blocks, the large grid below, then `ZONE: ...` (no final newline)."""
    cells = []
    for z in range(9):
        x, o = zone_grids(board, z)
        cells.append("".join("X" if x >> c & 1 else "O" if o >> c & 1 else "." for c in range(9)))
    share = board[2]
    rule = "---+---+---"
    rows = [rule]
    for band in range(0, 9, 3):
        for row in range(0, 9, 3):
            rows.append("|".join(cells[band + col][row : row + 3] for col in range(3)))
        rows.append(rule)
    large_x, large_o = share >> LARGE_SHIFT & GRID, share >> LARGE_SHIFT + 9 & GRID
    large = "".join("X" if large_x >> z & 1 else "O" if large_o >> z & 1 else "." for z in range(9))
    rows += [large[0:3], large[3:6], large[6:9]]
    zone = share >> ZONE_SHIFT & 0b1111
    rows.append("ZONE: " + ("ANY" if zone == ANY_ZONE else ZONE_NAMES[zone].upper()))
    return "\n".join(rows)
