"""Play ultimate tic-tac-toe against the engine on the console (given file: do not edit).

Input, one item a line: the search depth (a positive whole number), then `1` when the engine
moves first and plays X or `2` when it plays O, then the opponent's moves such as `nw/ne`.
A move that is not a `zone/cell` name or not legal here is asked for again with another
`Move: ` prompt; other lines before the `1`/`2` are skipped. The engine prints its move, its
principal variation, its evaluation and the time it took, then the board. `Game over` ends
the game. The program ends quietly, with status 0, when the input runs out.

Run it with `python console.py`, or `grader run ultimate console` on a submission.
"""

from __future__ import annotations

import sys
import time

import engine


def read_line(prompt: str = "") -> str | None:
    """Print `prompt` (no newline) and read one line; None at the end of the input."""
    if prompt:
        print(prompt, end="", flush=True)
    line = sys.stdin.readline()
    return None if line == "" else line.rstrip("\r\n")


def read_depth() -> int | None:
    """The search depth; a line that is not a positive whole number is refused and asked again."""
    while True:
        line = read_line("Depth: ")
        if line is None:
            return None
        try:
            depth = int(line.strip())
        except ValueError:
            depth = 0
        if depth > 0:
            return depth
        print(f"Depth must be a positive whole number, not {line.strip()!r}.")


def read_engine_side() -> engine.Side | None:
    """0 when the engine plays X (input `1`), 1 when it plays O (input `2`)."""
    while True:
        line = read_line()
        if line is None:
            return None
        if line.strip() in ("1", "2"):
            return int(line.strip()) - 1


def read_move(legal: list[engine.Move]) -> engine.Move | None:
    """The opponent's next legal move, prompting `Move: ` until one is given."""
    while True:
        line = read_line("Move: ")
        if line is None:
            return None
        try:
            move = engine.parse_move(line.strip())
        except ValueError:
            continue
        if move in legal:
            return move


def engine_move(board: engine.Board, side: engine.Side, depth: int, tables: engine.Tables) -> engine.Board:
    """Search, report the engine's choice and return the board after it."""
    start = time.perf_counter()
    value, line = engine.search(board, side, depth, tables)
    elapsed = int(1000 * (time.perf_counter() - start))
    names = [engine.move_name(move) for move in line]
    print(
        f"AI Move: {names[0]} PV: [{', '.join(names)}] "
        f"Eval: {engine.eval_string(value, depth)} Time elapsed: {elapsed} ms"
    )
    return engine.play_move(board, line[0], side)


def main(argv: list[str] | None = None) -> int:
    """Run one game on stdin/stdout; the arguments are not used."""
    tables = engine.build_tables()  # first, like the original: before any input is read
    depth = read_depth()
    if depth is None:
        return 0
    engine_side = read_engine_side()
    if engine_side is None:
        return 0
    print("Playing X" if engine_side == 0 else "Playing O")
    board: engine.Board = (0, 0, 9 << 54)
    if engine_side == 0:
        board = engine_move(board, engine_side, depth, tables)
    print(engine.board_string(board))
    opponent = 1 - engine_side
    while True:
        legal = engine.generate_moves(board)
        if not legal:
            break
        move = read_move(legal)
        if move is None:
            return 0
        board = engine.play_move(board, move, opponent)
        print(engine.board_string(board))
        if not engine.generate_moves(board):
            break
        board = engine_move(board, engine_side, depth, tables)
        print(engine.board_string(board))
    print("Game over", flush=True)  # before waiting: a referee on a pipe sees it
    read_line()
    return 0


if __name__ == "__main__":
    sys.exit(main())
