"""The game driver (given: do not edit): a human at the keyboard against the computer.

    python play.py BOARD_FILE [--first computer|human]

The board file holds the number of rows, the number of columns, how many tiles in a line win
(k), the deepest level the computer's search explores, each on its own line, then the grid: one
line per row, `g` for an empty square and `d` for a blocked one. For example:

    3
    3
    3
    4
    ggg
    gdg
    ggg

The human goes first unless `--first computer` is given. Moves are read from standard input,
one per line, as a row and a column counted from 0 (`1 2`); a move off the board, on a blocked
square or on a taken one is asked again. The board is shown after every move with `o` for the
computer, `b` for the human, `.` for an empty square and `#` for a blocked one.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple

from board import Board
from computer import choose_move
from symbols import (
    BLOCKED,
    COMPUTER,
    COMPUTER_WINS,
    DRAW,
    EMPTY,
    HUMAN,
    HUMAN_WINS,
    UNDECIDED,
    Score,
    Symbol,
)

USAGE = "usage: play BOARD_FILE [--first computer|human]"
SHOWN = {COMPUTER: "o", HUMAN: "b", BLOCKED: "#", EMPTY: "."}
SCORE_NAMES = {
    HUMAN_WINS: "you win",
    UNDECIDED: "undecided",
    DRAW: "draw",
    COMPUTER_WINS: "the computer wins",
}
OUTCOMES = {HUMAN_WINS: "You win.", DRAW: "It is a draw.", COMPUTER_WINS: "The computer wins."}
NUMBER_LINES = (
    "number of rows",
    "number of columns",
    "number of tiles in a line to win (k)",
    "deepest search level",
)


class BoardFileError(Exception):
    """A board file that cannot be played, with the 1-based line at fault."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


class BoardSpec(NamedTuple):
    """The contents of a board file, checked."""

    rows: int
    cols: int
    k: int
    max_levels: int
    grid: list[str]


def parse_number(text: str, line: int, what: str, least: int) -> int:
    """The whole number `text` on `line`, which must be at least `least`."""
    try:
        number = int(text)
    except ValueError:
        raise BoardFileError(line, f"the {what} must be a whole number, found {text!r}") from None
    if number < least:
        raise BoardFileError(line, f"the {what} must be at least {least}, found {number}")
    return number


def parse_board(text: str) -> BoardSpec:
    """Check and read the contents of a board file; raise BoardFileError on the first problem."""
    lines = [line.strip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    numbers = []
    for index, (what, least) in enumerate(zip(NUMBER_LINES, (1, 1, 1, 0), strict=True)):
        if index >= len(lines):
            raise BoardFileError(index + 1, f"the file ends where the {what} should be")
        numbers.append(parse_number(lines[index], index + 1, what, least))
    rows, cols, k, max_levels = numbers
    if k > max(rows, cols):
        raise BoardFileError(3, f"k = {k} tiles in a line cannot fit on a {rows}x{cols} board")
    grid = lines[4:]
    for index, row in enumerate(grid[:rows]):
        line = index + 5
        if len(row) != cols:
            raise BoardFileError(line, f"row {index} has {len(row)} squares, expected {cols}")
        for col, symbol in enumerate(row):
            if symbol not in (EMPTY, BLOCKED):
                raise BoardFileError(
                    line,
                    f"unknown square {symbol!r} in column {col} "
                    f"(use {EMPTY} for empty, {BLOCKED} for blocked)",
                )
    if len(grid) < rows:
        raise BoardFileError(len(lines) + 1, f"the file ends after {len(grid)} of {rows} rows")
    if len(grid) > rows:
        raise BoardFileError(rows + 5, f"one line too many: the board has {rows} rows")
    return BoardSpec(rows, cols, k, max_levels, grid)


def render(board: Board) -> str:
    """The board as a grid with row and column numbers."""
    squares = board.config()
    width = len(str(max(board.rows, board.cols) - 1))
    header = " " * (width + 1) + " ".join(f"{col:>{width}}" for col in range(board.cols))
    body = [
        f"{row:>{width}} "
        + " ".join(
            f"{SHOWN.get(symbol, symbol):>{width}}"
            for symbol in squares[row * board.cols : (row + 1) * board.cols]
        )
        for row in range(board.rows)
    ]
    return "\n".join([header, *body])


def problem_with(board: Board, text: str) -> tuple[int, int] | str:
    """The square typed in `text`, or why it cannot be played."""
    parts = text.replace(",", " ").split()
    try:
        row, col = (int(part) for part in parts)
    except ValueError:
        return 'Type a row and a column, for example "1 2".'
    if not (0 <= row < board.rows and 0 <= col < board.cols):
        return (
            f"({row}, {col}) is off the board: rows go from 0 to {board.rows - 1}, "
            f"columns from 0 to {board.cols - 1}."
        )
    if board.config()[row * board.cols + col] == BLOCKED:
        return f"({row}, {col}) is blocked."
    if not board.square_is_empty(row, col):
        return f"({row}, {col}) is taken."
    return row, col


def ask_human(board: Board) -> tuple[int, int] | None:
    """Read moves until one is playable; None when the input ends first."""
    while True:
        print("Your move (row column):")
        text = sys.stdin.readline()
        if not text:
            return None
        answer = problem_with(board, text)
        if isinstance(answer, tuple):
            return answer
        print(answer)


def announce_computer(board: Board) -> None:
    """Let the computer choose, play and explain its move."""
    move = choose_move(board)
    board.store_play(move.row, move.col, COMPUTER)
    if move.reason == "win":
        why = "it wins at once"
    elif move.reason == "block":
        why = "it blocks your line"
    elif move.score is not None:
        why = f"search score {move.score} ({SCORE_NAMES.get(move.score, '?')})"
    else:
        why = "no reason given"
    print(f"Computer plays ({move.row}, {move.col}): {why}.")


def play_game(board: Board, first: Symbol) -> int:
    """Alternate the players from `first` until the game ends; the exit status."""
    turn = first
    print(render(board))
    outcome: Score = board.eval_board()
    while outcome == UNDECIDED:
        if turn == HUMAN:
            square = ask_human(board)
            if square is None:
                print("The input ended before the game did.")
                return 1
            board.store_play(*square, HUMAN)
            print(f"You play {square}.")
        else:
            announce_computer(board)
        print(render(board))
        outcome = board.eval_board()
        turn = COMPUTER if turn == HUMAN else HUMAN
    print(OUTCOMES.get(outcome, f"Unexpected score {outcome}."))
    return 0


def parse_args(argv: list[str]) -> tuple[str, Symbol] | None:
    """The board file and the first player, or None when `argv` is not understood."""
    first = HUMAN
    rest = list(argv)
    if "--first" in rest:
        at = rest.index("--first")
        choice = rest[at + 1] if at + 1 < len(rest) else ""
        if choice not in ("computer", "human"):
            return None
        first = COMPUTER if choice == "computer" else HUMAN
        del rest[at : at + 2]
    if len(rest) != 1 or rest[0].startswith("-"):
        return None
    return rest[0], first


def main(argv: list[str] | None = None) -> int:
    parsed = parse_args(sys.argv[1:] if argv is None else argv)
    if parsed is None:
        print(USAGE)
        return 2
    path, first = parsed
    name = Path(path).name
    try:
        spec = parse_board(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        print(f"Error: {name}: cannot be read ({error.strerror or error}).")
        return 1
    except UnicodeDecodeError:
        print(f"Error: {name}: not a text file.")
        return 1
    except BoardFileError as error:
        print(f"Error: {name}, line {error.line}: {error.message}.")
        return 1
    board = Board(*spec)
    print(
        f"{spec.rows}x{spec.cols} board, {spec.k} in a line to win, "
        f"search depth {spec.max_levels}. You are b, the computer is o."
    )
    return play_game(board, first)


if __name__ == "__main__":
    sys.exit(main())
