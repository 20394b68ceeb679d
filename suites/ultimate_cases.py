"""Cases for suites/ultimate.yaml, and a plain model of the original engine.

The model (`legal_moves`, `apply`, `tables`, `heuristic`, `negamax`) follows FACTS.md step by
step with no speed tricks, independently of reference/ultimate: the generators use it to reach
positions, tests/test_ultimate_*.py check the reference against it, and
bench/ultimate_calibrate.py times it (with and without pruning) to set the suite's limits.

`python suites/ultimate_cases.py` rewrites the stdin files of the transcript tests in
fixtures/ultimate/ (the scripted opponent needs the reference engine's replies).
"""

from __future__ import annotations

import importlib.util
import random
import sys
from functools import cache
from pathlib import Path
from typing import Any

Board = tuple[int, int, int]
Case = list[Any]
Step = dict[str, Any]

ROOT = Path(__file__).resolve().parent.parent
WIN = 1_000_000
ANY = 9
NAMES = ("nw", "n", "ne", "w", "c", "e", "sw", "s", "se")
START: Board = (0, 0, ANY << 54)
LINES = ((0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 4, 8), (2, 4, 6))


# ----- the plain model -------------------------------------------------------------------------

def cell_owner(board: Board, move: int) -> int | None:
    """0 (X), 1 (O) or None for the cell `move`."""
    us, them, share = board
    if move < 63:
        return 0 if us >> move & 1 else 1 if them >> move & 1 else None
    bit = move - 63
    return 0 if share >> bit & 1 else 1 if share >> bit + 18 & 1 else None


def zone_owner(board: Board, zone: int) -> int | None:
    """Who captured `zone` in the large grid, if anyone."""
    share = board[2]
    return 0 if share >> 36 + zone & 1 else 1 if share >> 45 + zone & 1 else None


def next_zone(board: Board) -> int:
    """The `ZN` field."""
    return board[2] >> 54 & 15


def has_line(owned: list[bool]) -> bool:
    """True when the nine flags hold a line of three."""
    return any(all(owned[i] for i in line) for line in LINES)


def large_winner(board: Board) -> int | None:
    """The side holding a line of captured zones."""
    for side in (0, 1):
        if has_line([zone_owner(board, z) == side for z in range(9)]):
            return side
    return None


def zone_full(board: Board, zone: int) -> bool:
    """True when no cell of `zone` is empty."""
    return all(cell_owner(board, 9 * zone + c) is not None for c in range(9))


def legal_moves(board: Board) -> list[int]:
    """Moves in the original's order."""
    if large_winner(board) is not None:
        return []
    zone = next_zone(board)
    zones = [zone] if zone != ANY else [z for z in range(9) if zone_owner(board, z) is None]
    return [9 * z + c for z in zones for c in range(9) if cell_owner(board, 9 * z + c) is None]


def apply(board: Board, move: int, side: int) -> Board:
    """Play `move` for `side`."""
    us, them, share = board
    if move >= 63:
        share |= 1 << move - 63 + 18 * side
    elif side == 0:
        us |= 1 << move
    else:
        them |= 1 << move
    board = (us, them, share)
    zone, cell = divmod(move, 9)
    if has_line([cell_owner(board, 9 * zone + c) == side for c in range(9)]):
        share |= 1 << 36 + 9 * side + zone
        board = (us, them, share)
    blocked = zone_full(board, cell) or zone_owner(board, cell) is not None
    share = share & ~(15 << 54) | (ANY if blocked else cell) << 54
    return us, them, share


def grid_scores(x: int, o: int) -> tuple[int, int]:
    """(large, small) table entries for the 3x3 patterns `x` and `o`."""
    bits = [(x >> i & 1) - (o >> i & 1) for i in range(9)]
    weights = (7, 5, 7, 5, 9, 5, 7, 5, 7)
    position = sum(w * b for w, b in zip(weights, bits, strict=True))
    large = small = 0
    for line in LINES:
        mine = sum(x >> i & 1 for i in line)
        theirs = sum(o >> i & 1 for i in line)
        if mine and theirs:
            continue
        if mine == 3:
            return WIN, 0
        if theirs == 3:
            return -WIN, 0
        large += {0: 0, 1: 20, 2: 90}[mine] - {0: 0, 1: 20, 2: 90}[theirs]
        small += {0: 0, 1: 1, 2: 8}[mine] - {0: 0, 1: 1, 2: 8}[theirs]
    if bin(x | o).count("1") == 9:
        return 0, 0
    return large + 25 * position, small + position


@cache
def tables() -> tuple[list[int], list[int]]:
    """Both lookup tables, indexed `o << 9 | x`."""
    large = [0] * (1 << 18)
    small = [0] * (1 << 18)
    for o in range(512):
        for x in range(512):
            large[o << 9 | x], small[o << 9 | x] = grid_scores(x, o)
    return large, small


def zone_patterns(board: Board, zone: int) -> tuple[int, int]:
    """X's and O's 9-bit patterns in `zone`."""
    owners = [cell_owner(board, 9 * zone + c) for c in range(9)]
    return (
        sum(1 << c for c in range(9) if owners[c] == 0),
        sum(1 << c for c in range(9) if owners[c] == 1),
    )


def heuristic(board: Board, side: int) -> int:
    """The original's evaluation for `side`."""
    large, small = tables()
    value = large[board[2] >> 36 & (1 << 18) - 1]
    if abs(value) != WIN:
        for z in range(9):
            x, o = zone_patterns(board, z)
            if x | o != 511 and zone_owner(board, z) is None:
                value += small[o << 9 | x]
    return -value if side else value


def negamax(
    board: Board, side: int, depth: int, alpha: int = -WIN, beta: int = WIN, prune: bool = True
) -> tuple[int, list[int]]:
    """The original's search: fail-hard alpha-beta (plain minimax when `prune` is False)."""
    root = depth

    def visit(board: Board, side: int, depth: int, alpha: int, beta: int) -> tuple[int, list[int]]:
        plies = root - depth
        moves = legal_moves(board)
        if not moves:
            value = tables()[0][board[2] >> 36 & (1 << 18) - 1] * (-1 if side else 1)
            value = value - plies if value == WIN else value + plies if value == -WIN else 0
            return value, [0] * plies
        if depth == 0:
            return heuristic(board, side), [0] * root
        best = [0] * root
        for move in moves:
            value, line = visit(apply(board, move, side), 1 - side, depth - 1, -beta, -alpha)
            value = -value
            line[plies] = move
            if prune and value >= beta:
                return beta, line
            if value > alpha:
                alpha, best = value, line
        return alpha, best

    return visit(board, side, depth, alpha, beta)


def name(move: int) -> str:
    """`nw/ne` for 2."""
    return NAMES[move // 9] + "/" + NAMES[move % 9]


def board_text(board: Board) -> str:
    """The console drawing."""
    def mark(owner: int | None) -> str:
        return "." if owner is None else "XO"[owner]

    rule = "---+---+---"
    rows = [rule]
    for band in (0, 3, 6):
        for row in (0, 3, 6):
            rows.append("|".join(
                "".join(mark(cell_owner(board, 9 * z + row + k)) for k in range(3))
                for z in (band, band + 1, band + 2)
            ))
        rows.append(rule)
    rows += ["".join(mark(zone_owner(board, z)) for z in range(r, r + 3)) for r in (0, 3, 6)]
    zone = next_zone(board)
    return "\n".join([*rows, "ZONE: " + ("ANY" if zone == ANY else NAMES[zone].upper())])


# ----- positions -------------------------------------------------------------------------------

def random_game(rng: random.Random, plies: int) -> list[tuple[Board, int]]:
    """(board, side to move) before each of up to `plies` random moves, and after the last."""
    board, side = START, 0
    seen = [(board, side)]
    for _ in range(plies):
        moves = legal_moves(board)
        if not moves:
            break
        board, side = apply(board, rng.choice(moves), side), 1 - side
        seen.append((board, side))
    return seen


def positions(
    seed: int, count: int, low: int, high: int, live: bool = True
) -> list[tuple[Board, int]]:
    """`count` positions after `low`..`high` random plies; `live` ones still have moves."""
    rng = random.Random(seed)
    found: list[tuple[Board, int]] = []
    while len(found) < count:
        board, side = random_game(rng, rng.randint(low, high))[-1]
        if not live or legal_moves(board):
            found.append((board, side))
    return found


def as_args(board: Board) -> list[int]:
    """A board as YAML/JSON data."""
    return list(board)


# ----- call cases ------------------------------------------------------------------------------

def move_name_cases() -> list[Case]:
    """Every move."""
    return [[m] for m in range(81)]


def parse_move_cases() -> list[Case]:
    """Every name, then malformed text (ValueError)."""
    bad = ["", "nw", "nw/", "/nw", "nw/nw/nw", "NW/NE", "Nw/ne", "x/y", "nw/x", "c-c", "c c",
           " nw/ne", "nw/ne ", "nw\\ne", "40", "cc/c", "n/ee", "se/s/", "sw//s"]
    return [[name(m)] for m in range(81)] + [[text] for text in bad]


def eval_string_cases() -> list[Case]:
    """Values around every threshold, at several depths."""
    cases: list[Case] = []
    for depth in (1, 3, 5, 8):
        for value in (0, 1, -1, 91, -91, 13, -238, 99_999, -99_999,
                      WIN, -WIN, WIN - 1, -WIN + 1, WIN - depth, -WIN + depth,
                      WIN - depth - 1, -WIN + depth + 1, WIN - 3, -WIN + 3):
            cases.append([value, depth])
    return cases


def generate_cases(seed: int) -> list[Case]:
    """Boards from every stage, finished games included."""
    boards = [START] + [b for b, _ in positions(seed, 60, 0, 81, live=False)]
    boards += [b for b, _ in positions(seed + 1, 15, 45, 81, live=False) if not legal_moves(b)]
    return [[as_args(b)] for b in boards]


def capture_into_itself(rng: random.Random) -> list[Case]:
    """Moves that capture zone z by playing its cell z (the next zone is then ANY)."""
    found: list[Case] = []
    while len(found) < 6:
        board, side = START, 0
        while legal_moves(board):
            moves = legal_moves(board)
            for move in moves:
                zone, cell = divmod(move, 9)
                if zone == cell and zone_owner(apply(board, move, side), zone) is not None:
                    found.append([as_args(board), move, side])
                    break
            board, side = apply(board, rng.choice(moves), side), 1 - side
    return found


def play_cases(seed: int) -> list[Case]:
    """Legal moves in random positions, stressing captures, full zones and the s/se zones."""
    rng = random.Random(seed)
    cases: list[Case] = [[as_args(START), m, 0] for m in (0, 40, 62, 63, 71, 72, 80)]
    captures = full = 0
    for board, side in positions(seed, 150, 0, 80):
        for move in legal_moves(board):
            after = apply(board, move, side)
            zone, cell = divmod(move, 9)
            if zone_owner(after, zone) is not None and captures < 25:
                captures += 1
                cases.append([as_args(board), move, side])
            elif zone_full(after, cell) and full < 15:
                full += 1
                cases.append([as_args(board), move, side])
        if rng.random() < 0.1:
            cases.append([as_args(board), rng.choice(legal_moves(board)), side])
    return cases + capture_into_itself(rng)


def play_cases_visible() -> list[Case]:
    """Visible play_move cases."""
    return play_cases(2001)


def play_cases_hidden() -> list[Case]:
    """Hidden play_move cases."""
    return play_cases(2002)


def generate_cases_visible() -> list[Case]:
    """Visible generate_moves cases."""
    return generate_cases(1001)


def generate_cases_hidden() -> list[Case]:
    """Hidden generate_moves cases."""
    return generate_cases(1002)


def board_string_cases_visible() -> list[Case]:
    """Visible board drawings."""
    return [[as_args(START)]] + [[as_args(b)] for b, _ in positions(3001, 25, 1, 81, live=False)]


def board_string_cases_hidden() -> list[Case]:
    """Hidden board drawings."""
    return [[as_args(b)] for b, _ in positions(3002, 25, 1, 81, live=False)]


# ----- step cases (need the tables) ------------------------------------------------------------

BUILD: Step = {"let": "t", "call": "engine.build_tables"}


def table_steps() -> list[Step]:
    """Both tables' sizes and a spread of entries, decided and full grids included."""
    rng = random.Random(4001)
    steps: list[Step] = [
        BUILD,
        {"let": "large", "call": "t.__getitem__", "args": [0]},
        {"let": "small", "call": "t.__getitem__", "args": [1]},
        {"call": "large.__len__"},
        {"call": "small.__len__"},
    ]
    picks = [0, 16, 7, 7 << 9, 0b101_010_101, 0b010_101_010 << 9 | 0b101_010_101,
             0b110_001_110 << 9 | 0b001_110_001, 0b111 << 9 | 0b111 << 3, 0b100_100_100 << 9 | 0b1]
    while len(picks) < 160:
        x = rng.randrange(512)
        o = rng.randrange(512) & ~x
        picks.append(o << 9 | x)
    for index in picks:
        steps.append({"call": "large.__getitem__", "args": [index]})
        steps.append({"call": "small.__getitem__", "args": [index]})
    return steps


def evaluate_steps(seed: int) -> list[Step]:
    """evaluate() for both sides in positions of every stage."""
    steps: list[Step] = [BUILD]
    for board, side in [(START, 0), *positions(seed, 40, 1, 81, live=False)]:
        for who in (side, 1 - side):
            steps.append({"call": "engine.evaluate", "args": [as_args(board), who, {"$ref": "t"}]})
    return steps


def evaluate_steps_visible() -> list[Step]:
    """Visible evaluate cases."""
    return evaluate_steps(5001)


def evaluate_steps_hidden() -> list[Step]:
    """Hidden evaluate cases."""
    return evaluate_steps(5002)


def search_steps(seed: int, depths: list[int], count: int, low: int, high: int) -> list[Step]:
    """search() at each depth on `count` live positions after `low`..`high` plies."""
    steps: list[Step] = [BUILD]
    for board, side in positions(seed, count, low, high):
        for depth in depths:
            steps.append({"call": "engine.search",
                          "args": [as_args(board), side, depth, {"$ref": "t"}]})
    return steps


def search_shallow_visible() -> list[Step]:
    """Depths 1 to 4 in the middle game."""
    return search_steps(6001, [1, 2, 3, 4], 12, 6, 45)


def search_shallow_hidden() -> list[Step]:
    """Hidden: depths 1 to 4 in the middle game."""
    return search_steps(6002, [1, 2, 3, 4], 12, 6, 45)


def search_d5_visible() -> list[Step]:
    """Depth 5 in the opening and early middle game."""
    return search_steps(6101, [5], 6, 2, 14)


def search_d5_hidden() -> list[Step]:
    """Hidden: depth 5 in the opening and early middle game."""
    return search_steps(6102, [5], 6, 2, 14)


def wins_now(board: Board, side: int) -> bool:
    """`side`, to move, can complete a line of captured zones at once."""
    return any(large_winner(apply(board, m, side)) == side for m in legal_moves(board))


def lost_positions(seed: int, count: int) -> list[tuple[Board, int]]:
    """Positions where every move of the side to move lets the opponent win at once."""
    rng = random.Random(seed)
    found: list[tuple[Board, int]] = []
    while len(found) < count:
        history = random_game(rng, 81)
        for board, side in history[-8:-1]:
            for move in legal_moves(board):
                after = apply(board, move, side)
                replies = legal_moves(after)
                if replies and all(wins_now(apply(after, r, 1 - side), side) for r in replies):
                    found.append((after, 1 - side))
                    break
            if len(found) == count:
                break
    return found


def search_end_steps(seed: int) -> list[Step]:
    """Late positions (lines that reach the end of the game: W/L/D0, short lines)."""
    steps = search_steps(seed, [1, 2, 3, 4, 5], 10, 40, 70)
    for board, side in lost_positions(seed, 3):
        for depth in (1, 2, 3, 5):
            steps.append({"call": "engine.search",
                          "args": [as_args(board), side, depth, {"$ref": "t"}]})
    return steps


def search_end_visible() -> list[Step]:
    """Visible late positions."""
    return search_end_steps(6201)


def search_end_hidden() -> list[Step]:
    """Hidden late positions."""
    return search_end_steps(6202)


def search_window_steps(seed: int) -> list[Step]:
    """Narrow root windows: values clamped to the window (fail-hard) and their lines."""
    rng = random.Random(seed)
    windows = [(-50, 50), (0, 1), (-1, 0), (-20, -10), (10, 20), (100, 300), (-300, -100)]
    steps: list[Step] = [BUILD]
    for board, side in positions(seed, 14, 4, 55):
        depth = rng.choice([2, 3, 4])
        for low, high in rng.sample(windows, 4):
            steps.append({"call": "engine.search",
                          "args": [as_args(board), side, depth, {"$ref": "t"}, low, high]})
    return steps


def search_window_visible() -> list[Step]:
    """Visible window cases."""
    return search_window_steps(6301)


def search_window_hidden() -> list[Step]:
    """Hidden window cases."""
    return search_window_steps(6302)


def early_positions(seed: int, count: int) -> list[tuple[Board, int]]:
    """Openings (0 to 3 plies): wide trees where pruning matters most."""
    rng = random.Random(seed)
    plies = [0, *(rng.randint(1, 3) for _ in range(count - 1))]
    return [random_game(rng, n)[-1] for n in plies]


def search_d6_steps(seed: int) -> list[Step]:
    """Depth 6 from openings."""
    steps: list[Step] = [BUILD]
    for board, side in early_positions(seed, 3):
        steps.append({"call": "engine.search", "args": [as_args(board), side, 6, {"$ref": "t"}]})
    return steps


def search_d6_visible() -> list[Step]:
    """Visible depth-6 cases."""
    return search_d6_steps(6401)


def search_d6_hidden() -> list[Step]:
    """Hidden depth-6 cases."""
    return search_d6_steps(6402)


# ----- transcript inputs -----------------------------------------------------------------------

NOISE = ["", "hello", "nw", "NW/NE", "c/x", "nw/ne/c", "ce/c", "  "]


def load_reference() -> Any:
    """reference/ultimate/engine.py under a private module name."""
    path = ROOT / "reference" / "ultimate" / "engine.py"
    spec = importlib.util.spec_from_file_location("_ultimate_reference_engine", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def game_input(engine: Any, depth: int, engine_side: int, seed: int, noisy: bool,
               stop_after: int | None = None, before: tuple[str, ...] = ()) -> str:
    """The opponent's side of a game: depth, `1`/`2`, then moves (with bad lines when `noisy`).

    The opponent plays a seeded random legal move; the engine's replies come from the
    reference. With `stop_after`, the input ends after that many opponent moves; `before`
    holds lines given ahead of the depth.
    """
    rng = random.Random(seed)
    tables = engine.build_tables()
    lines = [*before, str(depth), "1" if engine_side == 0 else "2"]
    board, side = START, 0
    played = 0
    while engine.generate_moves(board):
        if side == engine_side:
            board = engine.play_move(board, engine.search(board, side, depth, tables)[1][0], side)
        else:
            if stop_after is not None and played == stop_after:
                return "\n".join(lines) + "\n"
            legal = engine.generate_moves(board)
            illegal = [m for m in range(81) if m not in legal]
            if noisy and illegal and rng.random() < 0.3:
                lines.append(rng.choice(NOISE))
                lines.append(name(rng.choice(illegal)))
            move = rng.choice(legal)
            lines.append(name(move))
            board = engine.play_move(board, move, side)
            played += 1
        side = 1 - side
    lines.append("")  # the key press the original waits for after `Game over`
    return "\n".join(lines) + "\n"


BAD_START = ("abc", "-2", "0", "", "3.5", " 2x")  # refused depths

GAMES: dict[str, dict[str, Any]] = {
    "game_x_d3.txt": {"depth": 3, "engine_side": 0, "seed": 7001, "noisy": True},
    "game_o_d3.txt": {"depth": 3, "engine_side": 1, "seed": 7002, "noisy": True},
    "game_x_d5.txt": {"depth": 5, "engine_side": 0, "seed": 7003, "noisy": False},
    "game_o_d5.txt": {"depth": 5, "engine_side": 1, "seed": 7004, "noisy": True},
    "hidden_x_d3.txt": {"depth": 3, "engine_side": 0, "seed": 7101, "noisy": True},
    "hidden_o_d3.txt": {"depth": 3, "engine_side": 1, "seed": 7102, "noisy": False},
    "hidden_x_d5.txt": {"depth": 5, "engine_side": 0, "seed": 7103, "noisy": True},
    "hidden_o_d5.txt": {"depth": 5, "engine_side": 1, "seed": 7104, "noisy": False},
    "eof_mid_game.txt": {"depth": 4, "engine_side": 1, "seed": 7201, "noisy": True,
                         "stop_after": 6},
    "bad_input.txt": {"depth": 2, "engine_side": 0, "seed": 7301, "noisy": True,
                      "stop_after": 8, "before": BAD_START},
}
SIDE_NOISE = {"bad_input.txt": ["9", "x", "", "12"]}  # skipped before the `1`/`2` line


def game_inputs() -> dict[str, str]:
    """The stdin text of every transcript test, by file name."""
    engine = load_reference()
    texts = {}
    for file, spec in GAMES.items():
        text = game_input(engine, **spec)
        noise = SIDE_NOISE.get(file)
        if noise:
            lines = text.split("\n")
            at = len(spec.get("before", ())) + 1  # right after the accepted depth
            text = "\n".join(lines[:at] + noise + lines[at:])
        texts[file] = text
    return texts


def write_inputs() -> None:
    """Rewrite the transcript inputs in fixtures/ultimate/."""
    folder = ROOT / "fixtures" / "ultimate"
    folder.mkdir(parents=True, exist_ok=True)
    for file, text in game_inputs().items():
        (folder / file).write_text(text)
        print("wrote", folder / file)


if __name__ == "__main__":
    write_inputs()
    sys.exit(0)
