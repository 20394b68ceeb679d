"""How the computer chooses its move (given: do not edit).

`choose_move` first looks for a square that wins at once, then for one that stops the human
from winning at once; failing both it searches the game tree with `computer_play`: the seed
algorithm, built on the Board and Dictionary methods you write.

The search tries squares in row-major order. On a level where the computer moves it keeps the
highest score, on a human level the lowest; a later square replaces the best one only when
strictly better. `highest` and `lowest` are the best scores the computer and the human are
already sure of; once `highest >= lowest` the remaining squares of the level cannot matter and
the search returns at once (the alpha/beta cut). Before exploring below a configuration it asks
the dictionary whether that configuration was scored already (the test marked (*) in the
original algorithm); after exploring it stores the score found.
"""

from __future__ import annotations

from typing import NamedTuple

from board import Board
from dictionary import Dictionary
from symbols import COMPUTER, COMPUTER_WINS, EMPTY, HUMAN, Score, Symbol, opponent

TABLE_SIZE = 9887  # buckets of the dictionary the search starts for each computer move


class Reply(NamedTuple):
    """A scored move: the square (`row`, `col`), its `score`, and the level that score came from."""

    score: Score
    row: int
    col: int
    level: int


class Move(NamedTuple):
    """The computer's decision: the square, and why (`"win"`, `"block"` or `"search"`)."""

    row: int
    col: int
    reason: str
    score: Score | None  # the search's score; None for a blocking move


def empty_squares(board: Board) -> list[tuple[int, int]]:
    """The empty squares of `board`, row after row."""
    return [
        (row, col)
        for row in range(board.rows)
        for col in range(board.cols)
        if board.square_is_empty(row, col)
    ]


def winning_square(board: Board, symbol: Symbol) -> tuple[int, int] | None:
    """The first empty square (row-major) where `symbol` wins at once, or None."""
    for row, col in empty_squares(board):
        board.store_play(row, col, symbol)
        won = board.wins(symbol)
        board.store_play(row, col, EMPTY)
        if won:
            return row, col
    return None


def computer_play(
    board: Board, configurations: Dictionary, symbol: Symbol, highest: Score, lowest: Score, level: int
) -> Reply:
    """Score the moves of `symbol` on `board` at `level` of the game tree; return the best."""
    value = -1 if symbol == COMPUTER else 4  # worse than any real score for `symbol`
    best_row = best_col = best_level = -1
    for row in range(board.rows):
        for col in range(board.cols):
            if not board.square_is_empty(row, col):
                continue
            board.store_play(row, col, symbol)
            if board.wins(symbol) or board.is_draw() or level == board.max_levels:
                reply = Reply(board.eval_board(), row, col, level)
            else:
                known = board.repeated_config(configurations)  # (*)
                if known is not None:
                    reply = Reply(known.score, row, col, known.level)
                else:
                    reply = computer_play(board, configurations, opponent(symbol), highest, lowest, level + 1)
                    if board.repeated_config(configurations) is None:
                        board.insert_config(configurations, reply.score, reply.level)
            board.store_play(row, col, EMPTY)
            if (symbol == COMPUTER and reply.score > value) or (symbol == HUMAN and reply.score < value):
                best_row, best_col, value, best_level = row, col, reply.score, reply.level
                if symbol == COMPUTER and value > highest:
                    highest = value
                elif symbol == HUMAN and value < lowest:
                    lowest = value
                if highest >= lowest:  # alpha/beta cut
                    return Reply(value, best_row, best_col, best_level)
    return Reply(value, best_row, best_col, best_level)


def choose_move(board: Board) -> Move:
    """The computer's move on `board` (which has an empty square and no winner yet)."""
    square = winning_square(board, COMPUTER)
    if square is not None:
        return Move(*square, "win", COMPUTER_WINS)
    square = winning_square(board, HUMAN)
    if square is not None:
        return Move(*square, "block", None)
    configurations = Dictionary(TABLE_SIZE)
    reply = computer_play(board, configurations, COMPUTER, -1, 4, 0)
    return Move(reply.row, reply.col, "search", reply.score)
