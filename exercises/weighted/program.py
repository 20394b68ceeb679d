"""The interactive program of the course (given file: do not edit).

    grader run weighted program [--size 3|4] [options]

Options, as in the original:
  -d N, --depth N    search depth (default: DEPTH_PRESET of the board size)
  -s, --score        type in the score grid (N rows of N numbers) instead of the preset
  -ab, --alphabeta   search with alpha-beta pruning
  -a, --auto         auto mode: the computer plays both sides
  -v, --versus       versus mode: you play one side against the computer
  -m, --manual       manual mode: you play both sides, no search
  -h, --help         this help
Without -a, -v or -m the program runs in hinted mode: you play both sides and the computer
shows its estimated score and best move before every move. Only one mode may be given.
`--size` (ours: the original was built once per size) must come before the other options.

Typing -1 for a row or column ends the game. A move on a taken square changes nothing: the
board is printed again and the same player moves again.
"""

from __future__ import annotations

import gc
import sys
import time

import constants
from console import (
    END_OF_INPUT_MESSAGE,
    EndOfInput,
    Numbers,
    ask_row_col,
    game_over,
    release_search_memory,
)

INVALID = "Invalid command line argument. Type program -h or program --help for details."
MULTIPLE_MODES = "Multiple modes specified, which is not allowed. Select either -a, -v, -m or none."
TOO_DEEP = (
    "WARNING: High search depth can use up a large amount of memory and will likely crash your"
    " computer. Aborting."
)
HELP = [
    "The following arguments are available:",
    "-d [num] or --depth [num]: \t\t Set the search depth. Default value is DEPTH_PRESET.",
    "-s or --score: \t\t\t Enable manual score grid input. Default values are SCORE_PRESET.",
    "-ab or --alphabeta: \t\t\t Enable alpha-beta pruning.",
    "-a or --auto: \t\t\t Let BoardTree automatically plays its suggested moves.",
    "-v or --versus: \t\t\t Play against the BoardTree.",
    "-m or --manual: \t\t\t Disable BoardTree if you would like to test the game logic.",
    "--size [3|4]: \t\t\t Board size (give it first). Default 3.",
    "You can combine arguments such as program -s -ab -d 6 -a",
]
AUTO, VERSUS, HINTED, MANUAL = "auto", "versus", "hinted", "manual"
MODE_FLAGS = {"-a": AUTO, "--auto": AUTO, "-v": VERSUS, "--versus": VERSUS}
MODE_FLAGS |= {"-m": MANUAL, "--manual": MANUAL}


class Options:
    """What the command line asked for."""

    def __init__(self) -> None:
        self.size = 3
        self.depth = -1
        self.score_input = False
        self.alpha_beta = False
        self.mode = HINTED


def leading_int(text: str) -> int:
    """The number at the start of `text`, 0 if none (like C's atoi)."""
    digits = ""
    for at, char in enumerate(text.strip()):
        if char.isdigit() or (at == 0 and char in "+-"):
            digits += char
        else:
            break
    try:
        return int(digits)
    except ValueError:
        return 0


def parse(argv: list[str]) -> Options | tuple[str, int]:
    """The options, or (message to print, exit status) when the program must stop at once."""
    options = Options()
    args = list(argv)
    if len(args) >= 2 and args[0] == "--size":
        if args[1] not in ("3", "4"):
            return INVALID, 2
        options.size = int(args[1])
        args = args[2:]
    at = 0
    while at < len(args):
        arg = args[at]
        if arg in ("-s", "--score"):
            options.score_input = True
        elif arg in MODE_FLAGS:
            if options.mode != HINTED:
                return MULTIPLE_MODES, 2
            options.mode = MODE_FLAGS[arg]
        elif arg in ("-ab", "--alphabeta"):
            options.alpha_beta = True
        elif arg in ("-d", "--depth"):
            if at == len(args) - 1:
                return INVALID, 2
            at += 1
            options.depth = leading_int(args[at])
        elif arg in ("-h", "--help"):
            return "\n".join(HELP), 0
        else:
            return INVALID, 2
        at += 1
    return options


def read_score_grid(numbers: Numbers, size: int) -> list[list[int]]:
    """N rows of N integers from the input (tokens that are not integers are skipped)."""
    print("Input the score for each cell, row by row: ")
    values: list[int] = []
    while len(values) < size * size:
        value = numbers.next()
        if value is not None:
            values.append(value)
    return [values[row * size : (row + 1) * size] for row in range(size)]


def play(options: Options, numbers: Numbers) -> None:
    """Everything after the command line: setup questions, then the game."""
    from board import Board, BoardCoordinate
    from boardtree import BoardTree

    size = options.size
    depth = options.depth
    if depth <= 0:
        print(f"Search depth not specified. Using preset depth of {constants.DEPTH_PRESET}.")
        depth = constants.DEPTH_PRESET
    if (size * size) ** depth > 1e10:
        print(TOO_DEEP)
        return
    if options.score_input:
        score = read_score_grid(numbers, size)
    else:
        score = [list(row) for row in constants.SCORE_PRESET]
    human = -1
    if options.mode == VERSUS:
        human = numbers.ask(
            "Which player you would like to play as (0 for O, 1 for X)? Type -1 to quit game.", -1, 1
        )
        if human == -1:
            return

    print("Score grid:")
    print(constants.format_grid(score), end="")
    print(f"Search depth: {depth}")
    board = Board(score)
    print(board, end="")
    print(f"Score: {board.get_board_score()}")
    print(f"ID: {board.id}")
    tree = BoardTree(board)
    begin = time.monotonic()

    def search() -> BoardCoordinate:
        if options.alpha_beta:
            limit = constants.WIN_SCORE + 1
            best = tree.get_optimal_move_alpha_beta(depth, -limit, limit)
        else:
            best = tree.get_optimal_move(depth)
        print(f"Estimated best score: {best.score}")
        print(f"Row: {best.coords.row}")
        print(f"Col: {best.coords.col}")
        return best.coords

    while True:
        x_to_move = board.cur_player == constants.Cell.X
        computer_moves = options.mode == AUTO or (options.mode == VERSUS and (human == 0) == x_to_move)
        if computer_moves:
            move = search()
        else:
            if options.mode == HINTED:
                search()
            typed = ask_row_col(numbers, size)
            if typed is None:
                break
            move = BoardCoordinate(*typed)
        played = board.play(move)
        if played:
            tree = tree.get_sub_tree(move)
        print(board, end="")
        board_score = board.get_board_score()
        print(f"Score: {board_score}")
        print(f"ID: {board.id}")
        result = game_over(board_score, board.is_full())
        if result is not None:
            print(result)
            break
        if computer_moves and not played:  # a broken search: stop instead of looping
            print("The search returned an illegal move.")
            break
    if options.mode == AUTO:
        print(f"Took {round((time.monotonic() - begin) * 1000)} milliseconds.")


def main(argv: list[str] | None = None) -> int:
    parsed = parse(sys.argv[1:] if argv is None else argv)
    if isinstance(parsed, tuple):
        message, status = parsed
        print(message)
        return status
    constants.configure(parsed.size)
    gc.set_threshold(100_000, 50, 100)  # the search keeps millions of objects: rescan them less
    try:
        play(parsed, Numbers())
    except EndOfInput:
        print(END_OF_INPUT_MESSAGE)
    release_search_memory()
    return 0


if __name__ == "__main__":
    sys.exit(main())
