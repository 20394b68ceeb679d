"""Deterministic generators for suites/boardgame.yaml (standard library only).

The functions without arguments are the suite's `steps_from` generators; they build boards and
dictionary operations from seeded `random.Random` objects, so every run gives the same steps.
Expected values are never computed here: `grader record boardgame` takes them from the reference.

Run as a script (`.venv/bin/python suites/boardgame_cases.py`) to rewrite the scripted human moves
`fixtures/boardgame/moves_*.txt` of the transcript tests: the human there wins when it can,
blocks when it must and otherwise plays a seeded random square, against the reference computer.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

Step = dict[str, Any]
Grid = list[str]

COMPUTER, HUMAN, BLOCKED, EMPTY = "o", "b", "d", "g"
DIRECTIONS = {"rows": (0, 1), "columns": (1, 0), "down-right": (1, 1), "down-left": (1, -1)}


# ---------------------------------------------------------------- small board helpers


def opponent(symbol: str) -> str:
    """The other player."""
    return HUMAN if symbol == COMPUTER else COMPUTER


def blank(rows: int, cols: int) -> list[list[str]]:
    """An all-empty grid as a list of mutable rows."""
    return [[EMPTY] * cols for _ in range(rows)]


def joined(grid: list[list[str]]) -> Grid:
    """A grid of mutable rows as row strings."""
    return ["".join(row) for row in grid]


def has_line(grid: list[list[str]], k: int, symbol: str) -> bool:
    """Whether `symbol` holds k adjacent squares in a line (the generators' own check)."""
    rows, cols = len(grid), len(grid[0])
    for row in range(rows):
        for col in range(cols):
            for down, right in DIRECTIONS.values():
                cells = [(row + down * step, col + right * step) for step in range(k)]
                if all(0 <= r < rows and 0 <= c < cols and grid[r][c] == symbol
                       for r, c in cells):
                    return True
    return False


def scatter(rng: random.Random, grid: list[list[str]], k: int, count: int,
            symbols: tuple[str, ...] = (COMPUTER, HUMAN, BLOCKED)) -> None:
    """Put up to `count` random symbols on empty squares without completing any line."""
    empties = [(r, c) for r, row in enumerate(grid) for c, s in enumerate(row) if s == EMPTY]
    rng.shuffle(empties)
    for r, c in empties[:count]:
        symbol = rng.choice(symbols)
        grid[r][c] = symbol
        if symbol != BLOCKED and has_line(grid, k, symbol):
            grid[r][c] = EMPTY


def board_step(name: str, rows: int, cols: int, k: int, grid: Grid, levels: int = 3) -> Step:
    """A step that builds a Board and keeps it under `name`."""
    return {"let": name, "call": "board.Board", "args": [rows, cols, k, levels, grid]}


def method_step(name: str, method: str, args: list[Any], about: str) -> Step:
    """A compared call of a Board method, labelled with the board it runs on."""
    shown_args = ", ".join(repr(arg) for arg in args)
    return {"call": f"{name}.{method}", "args": args, "label": f"{method}({shown_args}) on {about}"}


def describe(rows: int, cols: int, k: int, grid: Grid) -> str:
    """A short text naming a board, for labels."""
    return f"{rows}x{cols} board, k={k}, rows {grid}"


# ---------------------------------------------------------------- Board: wins


def line_board(rng: random.Random, direction: str, k: int, symbol: str) -> tuple[int, int, Grid]:
    """A board with blocked squares, scattered tiles and one line of k `symbol`s in `direction`."""
    down, right = DIRECTIONS[direction]
    rows = rng.randint(k if down else 1, k + 2)
    cols = rng.randint(k if right else 1, k + 2)
    grid = blank(rows, cols)
    start_row = rng.randint(0, rows - 1 - down * (k - 1))
    first_col, last_col = (k - 1, cols - 1) if right < 0 else (0, cols - 1 - right * (k - 1))
    start_col = rng.randint(first_col, last_col)
    cells = [(start_row + down * step, start_col + right * step) for step in range(k)]
    for r, c in cells:
        grid[r][c] = symbol
    scatter(rng, grid, k, rows * cols // 2)
    return rows, cols, joined(grid)


def wins_steps(direction: str, seed: int) -> list[Step]:
    """For k = 2..5: boards holding a line in `direction` for one player, asked for both."""
    rng = random.Random(seed)
    steps: list[Step] = []
    for k in range(2, 6):
        for index in range(3):
            symbol = (COMPUTER, HUMAN)[(k + index) % 2]
            rows, cols, grid = line_board(rng, direction, k, symbol)
            name = f"b{k}_{index}"
            about = describe(rows, cols, k, grid)
            steps.append(board_step(name, rows, cols, k, grid))
            steps.append(method_step(name, "wins", [symbol], about))
            steps.append(method_step(name, "wins", [opponent(symbol)], about))
    return steps


def wins_rows() -> list[Step]:
    return wins_steps("rows", 101)


def wins_columns() -> list[Step]:
    return wins_steps("columns", 102)


def wins_down_right() -> list[Step]:
    return wins_steps("down-right", 103)


def wins_down_left() -> list[Step]:
    return wins_steps("down-left", 104)


def near_miss_boards(rng: random.Random) -> list[tuple[int, int, int, Grid]]:
    """Boards where a player is one square short: broken by a blocked square, wrapping around
    the board's edge, or k-1 long."""
    boards: list[tuple[int, int, int, Grid]] = []
    for k in range(2, 6):
        for down, right in DIRECTIONS.values():
            size = k + 1
            grid = blank(size, size)
            start_col = size - 1 if right < 0 else 0
            cells = [(down * step, start_col + right * step) for step in range(k)]
            gap = rng.randrange(1, k) if k > 2 else 1
            for number, (r, c) in enumerate(cells):
                grid[r][c] = BLOCKED if number == gap else COMPUTER
            boards.append((size, size, k, joined(grid)))
        # k-1 at the end of one row and 1 at the start of the next: adjacent in row-major order
        cols = k + 1
        grid = blank(2, cols)
        for c in range(cols - (k - 1), cols):
            grid[0][c] = HUMAN
        grid[1][0] = HUMAN
        boards.append((2, cols, k, joined(grid)))
        # a column that runs off the bottom and "continues" at the top of the next column
        rows = k + 1
        grid = blank(rows, 2)
        for r in range(rows - (k - 1), rows):
            grid[r][0] = COMPUTER
        grid[0][1] = COMPUTER
        boards.append((rows, 2, k, joined(grid)))
        # k-1 on a down-left diagonal ending in column 0, and one more "past" it in the last column
        size = k + 1
        grid = blank(size, size)
        for step in range(k):
            grid[step][(k - 2 - step) % size] = HUMAN
        boards.append((size, size, k, joined(grid)))
    return boards


def wins_near_misses() -> list[Step]:
    """Boards without a line of k (every one is a trap for some shortcut); both players asked."""
    rng = random.Random(105)
    steps: list[Step] = []
    for index, (rows, cols, k, grid) in enumerate(near_miss_boards(rng)):
        name = f"m{index}"
        about = describe(rows, cols, k, grid)
        steps.append(board_step(name, rows, cols, k, grid))
        steps.append(method_step(name, "wins", [COMPUTER], about))
        steps.append(method_step(name, "wins", [HUMAN], about))
    return steps


# ---------------------------------------------------------------- Board: draws and scores


def full_board(rng: random.Random, rows: int, cols: int, k: int) -> Grid | None:
    """A board with no empty square and no line for either player, or None if none was found."""
    for _ in range(200):
        grid = blank(rows, cols)
        cells = [(r, c) for r in range(rows) for c in range(cols)]
        rng.shuffle(cells)
        for r, c in cells:
            options = [COMPUTER, HUMAN]
            rng.shuffle(options)
            for symbol in options:
                grid[r][c] = symbol
                if not has_line(grid, k, symbol):
                    break
            else:
                grid[r][c] = BLOCKED
        if rng.random() < 0.5:
            r, c = rng.choice(cells)
            grid[r][c] = BLOCKED
        if not has_line(grid, k, COMPUTER) and not has_line(grid, k, HUMAN):
            return joined(grid)
    return None


def outcome_boards() -> list[tuple[int, int, int, Grid]]:
    """Boards of every outcome: drawn (full), won by either player (full or not), undecided."""
    rng = random.Random(106)
    boards: list[tuple[int, int, int, Grid]] = []
    for rows, cols, k in ((3, 3, 3), (3, 4, 3), (4, 4, 3), (2, 5, 2), (4, 5, 4), (5, 5, 4)):
        drawn = full_board(rng, rows, cols, k)
        if drawn is not None:
            boards.append((rows, cols, k, drawn))
            # the same board with one square emptied is undecided
            cells = [(r, c) for r in range(rows) for c in range(cols) if drawn[r][c] != BLOCKED]
            r, c = rng.choice(cells)
            grid = [list(row) for row in drawn]
            grid[r][c] = EMPTY
            boards.append((rows, cols, k, joined(grid)))
        for symbol in (COMPUTER, HUMAN):
            direction = rng.choice(sorted(DIRECTIONS))
            down, right = DIRECTIONS[direction]
            grid = blank(rows, cols)
            start_col = k - 1 if right < 0 else 0
            for step in range(k):
                grid[down * step][start_col + right * step] = symbol
            scatter(rng, grid, k, rows * cols // 3)
            boards.append((rows, cols, k, joined(grid)))
            # the winning board filled up completely (still a win, not a draw)
            for r in range(rows):
                for c in range(cols):
                    if grid[r][c] == EMPTY:
                        grid[r][c] = BLOCKED
            boards.append((rows, cols, k, joined(grid)))
        boards.append((rows, cols, k, joined(blank(rows, cols))))
    all_blocked = [BLOCKED * 3] * 2
    boards.append((2, 3, 2, all_blocked))
    return boards


def outcome_steps(methods: tuple[str, ...]) -> list[Step]:
    """`methods` (without arguments) asked on every outcome board."""
    steps: list[Step] = []
    for index, (rows, cols, k, grid) in enumerate(outcome_boards()):
        name = f"e{index}"
        about = describe(rows, cols, k, grid)
        steps.append(board_step(name, rows, cols, k, grid))
        steps.extend(method_step(name, method, [], about) for method in methods)
    return steps


def draws() -> list[Step]:
    return outcome_steps(("is_draw",))


def evaluations() -> list[Step]:
    return outcome_steps(("eval_board",))


def evaluations_after_plays() -> list[Step]:
    """Play and take back tiles on a board, asking eval_board, is_draw and wins after each move."""
    rng = random.Random(107)
    steps: list[Step] = []
    for number, (rows, cols, k) in enumerate(((3, 3, 3), (4, 5, 3), (4, 4, 4))):
        grid = blank(rows, cols)
        scatter(rng, grid, k, 2, (BLOCKED,))
        name = f"p{number}"
        steps.append(board_step(name, rows, cols, k, joined(grid)))
        empties = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] == EMPTY]
        rng.shuffle(empties)
        symbol = HUMAN
        about = f"{rows}x{cols} board, k={k}, after the plays so far"
        for move, (r, c) in enumerate(empties):
            steps.append(method_step(name, "store_play", [r, c, symbol], about))
            steps.append(method_step(name, "eval_board", [], about))
            if move % 3 == 2:
                steps.append(method_step(name, "store_play", [r, c, EMPTY], about))
                steps.append(method_step(name, "square_is_empty", [r, c], about))
                steps.append(method_step(name, "store_play", [r, c, symbol], about))
            steps.append(method_step(name, "is_draw", [], about))
            steps.append(method_step(name, "config", [], about))
            symbol = opponent(symbol)
    return steps


# ---------------------------------------------------------------- Board: configurations


def configurations() -> list[Step]:
    """config() and square_is_empty on boards of many shapes, before and after plays."""
    rng = random.Random(108)
    steps: list[Step] = []
    for number, (rows, cols) in enumerate(((1, 1), (1, 4), (4, 1), (2, 3), (3, 3), (4, 5), (6, 7))):
        k = min(rows, cols)
        grid = blank(rows, cols)
        scatter(rng, grid, k, rows * cols // 2)
        name = f"c{number}"
        about = describe(rows, cols, k, joined(grid))
        steps.append(board_step(name, rows, cols, k, joined(grid)))
        steps.append(method_step(name, "config", [], about))
        for r in range(rows):
            for c in range(cols):
                steps.append(method_step(name, "square_is_empty", [r, c], about))
        empties = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] == EMPTY]
        for r, c in empties[:3]:
            steps.append(method_step(name, "store_play", [r, c, rng.choice((COMPUTER, HUMAN))],
                                     about))
            steps.append(method_step(name, "config", [], about + " after the plays so far"))
            steps.append(method_step(name, "square_is_empty", [r, c], about + " after a play"))
    return steps


def board_dictionary() -> list[Step]:
    """repeated_config and insert_config against a real Dictionary, as the search uses them."""
    rng = random.Random(109)
    record = {"show": "attrs", "attrs": ["config", "score", "level"]}
    steps: list[Step] = [{"let": "table", "call": "dictionary.Dictionary", "args": [101]},
                         board_step("b", 3, 4, 3, ["gggg", "gdgg", "gggg"], 6)]
    about = "3x4 board, k=3, rows ['gggg', 'gdgg', 'gggg'] with the plays so far"
    played: list[tuple[int, int]] = []
    symbol = COMPUTER
    for move in range(8):
        free = [(r, c) for r in range(3) for c in range(4)
                if (r, c) != (1, 1) and (r, c) not in played]
        r, c = rng.choice(free)
        played.append((r, c))
        steps.append(method_step("b", "store_play", [r, c, symbol], about))
        steps.append(method_step("b", "repeated_config", [{"$ref": "table"}], about))
        steps.append(method_step("b", "insert_config", [{"$ref": "table"}, move % 4, move + 1],
                                 about))
        steps.append({**method_step("b", "repeated_config", [{"$ref": "table"}], about),
                      **record})
        if move % 2:
            # take the last play back: the configuration stored one move earlier is found again
            steps.append(method_step("b", "store_play", [r, c, EMPTY], about))
            steps.append({**method_step("b", "repeated_config", [{"$ref": "table"}], about),
                          **record})
            # the other player on that square: a configuration never stored
            steps.append(method_step("b", "store_play", [r, c, opponent(symbol)], about))
            steps.append(method_step("b", "repeated_config", [{"$ref": "table"}], about))
            steps.append(method_step("b", "store_play", [r, c, symbol], about))
            steps.append({**method_step("b", "repeated_config", [{"$ref": "table"}], about),
                          **record})
        symbol = opponent(symbol)
    steps.append({"call": "table.num_items", "label": "num_items() after the inserts"})
    return steps


# ---------------------------------------------------------------- Dictionary


def key_pool(rng: random.Random, count: int) -> list[str]:
    """`count` different configuration-like keys of 4 to 12 symbols."""
    keys: list[str] = []
    while len(keys) < count:
        key = "".join(rng.choice("obdg") for _ in range(rng.randint(4, 12)))
        if key not in keys:
            keys.append(key)
    return keys


def interleaving(size: int, operations: int, pool: int, seed: int) -> list[Step]:
    """Random puts, look-ups, removals and counts on one Dictionary(size), keys from a small
    pool so that duplicated and missing keys come up often."""
    rng = random.Random(seed)
    keys = key_pool(rng, pool)
    table = {"$ref": "table"}
    steps: list[Step] = [{"let": "table", "call": "dictionary.Dictionary", "args": [size]}]
    for _ in range(operations):
        key = rng.choice(keys)
        roll = rng.random()
        if roll < 0.45:
            score, level = rng.randrange(4), rng.randrange(10)
            steps.append({"call": "probe.put", "args": [table, key, score, level],
                          "label": f"put(Record({key!r}, {score}, {level}))"})
        elif roll < 0.72:
            steps.append({"call": "probe.lookup", "args": [table, key],
                          "label": f"get({key!r})"})
        elif roll < 0.92:
            steps.append({"call": "table.remove", "args": [key], "label": f"remove({key!r})"})
        else:
            steps.append({"call": "table.num_items", "label": "num_items()"})
    steps.append({"call": "table.num_items", "label": "num_items() at the end"})
    steps.extend({"call": "probe.lookup", "args": [table, key], "label": f"get({key!r}) at the end"}
                 for key in keys)
    return steps


def interleaving_one_bucket() -> list[Step]:
    return interleaving(1, 100, 12, 201)


def interleaving_small_table() -> list[Step]:
    return interleaving(7, 200, 25, 202)


def interleaving_course_table() -> list[Step]:
    return interleaving(9887, 220, 40, 203)


def interleaving_hidden() -> list[Step]:
    return interleaving(13, 260, 30, 204)


def single_bucket_cases() -> list[list[Any]]:
    """Key lists for probe.single_bucket_answers (every put after the first collides)."""
    rng = random.Random(205)
    return [[key_pool(rng, count)] for count in (1, 2, 5, 20)]


# ---------------------------------------------------------------- scripted human moves

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "boardgame"

# moves file -> (board file, first player, seed of the human's random choices, typing mistakes
# to insert before the n-th move: list of (n, line))
GAMES: dict[str, tuple[str, str, int, list[tuple[int, str]]]] = {
    "moves_3x3_centre_a.txt": ("board_3x3_centre.txt", "human", 1, []),
    "moves_3x3_centre_b.txt": ("board_3x3_centre.txt", "computer", 2, []),
    "moves_3x3_centre_c.txt": ("board_3x3_centre.txt", "human", 3, []),
    "moves_3x3_mistakes.txt": ("board_3x3_centre.txt", "human", 4, [
        (0, "1 1"), (0, "3 0"), (0, "0 -1"), (0, "one two"), (0, ""), (1, "TAKEN"),
        (1, "0,5"), (2, "2 2 2"), (2, "TAKEN")]),
    "moves_4x5_k3_a.txt": ("board_4x5_k3.txt", "human", 5, []),
    "moves_4x5_k3_b.txt": ("board_4x5_k3.txt", "computer", 6, []),
    "moves_3x4_deep.txt": ("board_3x4_deep.txt", "computer", 7, []),
    "moves_3x4_deep_b.txt": ("board_3x4_deep.txt", "computer", 8, []),
    "moves_4x4_k4_deep.txt": ("board_4x4_k4_deep.txt", "human", 9, []),
    "moves_4x4_corners.txt": ("board_4x4_corners.txt", "computer", 10, []),
    "moves_5x5_blocked.txt": ("board_5x5_blocked.txt", "human", 11, []),
    "moves_2x3_k2.txt": ("board_2x3_k2.txt", "human", 12, []),
}


def script_game(board_file: str, first: str, seed: int,
                mistakes: list[tuple[int, str]]) -> list[str]:
    """Play the reference computer against a scripted human; the human's input lines."""
    sys.path.insert(0, str(ROOT))
    from tests.support import exercise_modules  # only the script needs the reference

    rng = random.Random(seed)
    with exercise_modules("boardgame") as modules:
        play, computer = modules["play"], modules["computer"]
        spec = play.parse_board((FIXTURES / board_file).read_text(encoding="utf-8"))
        board = modules["board"].Board(*spec)
        lines: list[str] = []
        turn = HUMAN if first == "human" else COMPUTER
        human_moves = 0
        while board.eval_board() == 1:
            if turn == COMPUTER:
                move = computer.choose_move(board)
                board.store_play(move.row, move.col, COMPUTER)
            else:
                square = (computer.winning_square(board, HUMAN)
                          or computer.winning_square(board, COMPUTER)
                          or rng.choice(computer.empty_squares(board)))
                for when, text in mistakes:
                    if when == human_moves:
                        if text == "TAKEN":
                            squares = board.config()
                            taken = next(i for i, s in enumerate(squares) if s in "ob")
                            text = f"{taken // spec.cols} {taken % spec.cols}"
                        lines.append(text)
                lines.append(f"{square[0]} {square[1]}")
                board.store_play(*square, HUMAN)
                human_moves += 1
            turn = opponent(turn)
    return lines


def write_move_scripts() -> None:
    """Rewrite every moves_*.txt of GAMES."""
    for moves_file, (board_file, first, seed, mistakes) in GAMES.items():
        lines = script_game(board_file, first, seed, mistakes)
        (FIXTURES / moves_file).write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{moves_file}: {len(lines)} lines")


if __name__ == "__main__":
    write_move_scripts()
