"""The course's test program for the four tasks (given file: do not edit).

    grader run weighted main [--size 3|4] [--depth D]

It asks for a task number on standard input, then:

1. a game typed in row/column pairs (-1 quits);
2. the computer plays both sides with minimax (`get_optimal_move`) at depth D;
3. a few transposition-table calls on one position;
4. like 2, with alpha-beta (`get_optimal_move_alpha_beta`, window -WIN_SCORE-1..WIN_SCORE+1).

`--size` picks the board (default 3), `--depth` the search depth (default DEPTH_PRESET of that
size: 4 for 3x3, 7 for 4x4). Tasks 2 and 4 end with `Took N milliseconds.`
"""

from __future__ import annotations

import argparse
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

TOO_DEEP = (
    "WARNING: High search depth can use up a large amount of memory and will likely crash your"
    " computer. Aborting."
)


def print_position(board: object) -> None:
    """The board, then its score and id."""
    from board import Board

    assert isinstance(board, Board)
    print(board, end="")
    print(f"Score: {board.get_board_score()}")
    print(f"ID: {board.id}")


def task1(numbers: Numbers) -> None:
    """A game typed in by the user."""
    from board import Board, BoardCoordinate

    board = Board(constants.SCORE_PRESET)
    print_position(board)
    while True:
        move = ask_row_col(numbers, constants.BOARD_SIZE)
        if move is None:
            return
        board.play(BoardCoordinate(*move))
        print_position(board)
        result = game_over(board.get_board_score(), board.is_full())
        if result is not None:
            print(result)
            return


def self_play(depth: int, alpha_beta: bool) -> None:
    """Tasks 2 and 4: the search plays both sides from the empty board."""
    from board import Board
    from boardtree import BoardTree

    begin = time.monotonic()
    board = Board(constants.SCORE_PRESET)
    print_position(board)
    tree = BoardTree(board)
    while True:
        if alpha_beta:
            best = tree.get_optimal_move_alpha_beta(depth, -constants.WIN_SCORE - 1, constants.WIN_SCORE + 1)
        else:
            best = tree.get_optimal_move(depth)
        print(f"Estimated best score: {best.score}")
        print(f"Row: {best.coords.row}")
        print(f"Col: {best.coords.col}")
        board.play(best.coords)
        tree = tree.get_sub_tree(best.coords)
        print_position(board)
        result = game_over(board.get_board_score(), board.is_full())
        if result is not None:
            print(result)
            break
        if tree.is_empty():  # only a broken search gets here: stop instead of looping forever
            print("The search returned an illegal move.")
            break
    print(f"Took {round((time.monotonic() - begin) * 1000)} milliseconds.")


def task3() -> None:
    """Store, find and clear one entry of the transposition table."""
    from board import Board, BoardCoordinate, BoardOptimalMove
    from hashtable import BoardHashTable

    board = Board(constants.SCORE_PRESET)
    for row, col in ((0, 0), (0, 1), (1, 0), (1, 1)):
        board.play(BoardCoordinate(row, col))
    table = BoardHashTable.get_instance()
    print(f"First call: {table.get_hashed_move(board.id, 3).score}")
    table.update_table(board.id, 3, BoardOptimalMove(10000, BoardCoordinate(2, 0)))
    print(f"Second call: {table.get_hashed_move(board.id, 3).score}")
    print(f"Third call: {table.get_hashed_move(board.id, 4).score}")
    table.clear_table()
    print(f"Fourth call: {table.get_hashed_move(board.id, 3).score}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="main", description="The four tasks of the course.")
    parser.add_argument("--size", type=int, choices=constants.SUPPORTED_SIZES, default=3)
    parser.add_argument("--depth", type=int, help="search depth (default: the size's preset)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    constants.configure(args.size)
    depth = constants.DEPTH_PRESET if args.depth is None else args.depth
    if (args.size * args.size) ** depth > 1e10:
        print(TOO_DEEP)
        return 0
    gc.set_threshold(100_000, 50, 100)  # the search keeps millions of objects: rescan them less
    numbers = Numbers()
    try:
        task = numbers.ask("Select a task number from 1 to 4.", 0, 4)
        if task == 1:
            task1(numbers)
        elif task in (2, 4):
            self_play(depth, alpha_beta=task == 4)
        elif task == 3:
            task3()
    except EndOfInput:
        print(END_OF_INPUT_MESSAGE)
    release_search_memory()
    return 0


if __name__ == "__main__":
    sys.exit(main())
