"""Step generators for suites/weighted.yaml (weighted tic-tac-toe).

Every generator returns a list of steps (see docs/suites.md). A test starts with
`constants.configure(size)`: it picks the board size and starts a fresh transposition table.
Positions are given as lists of moves from the empty board, played with `Board.play`.
"""

from __future__ import annotations

from typing import Any

Step = dict[str, Any]
Moves = list[tuple[int, int]]

MOVE_ATTRS = ["score", "coords.row", "coords.col"]
WINDOW = 10001  # the drivers' alpha-beta window is -WINDOW .. WINDOW

# Mid-game positions (no line yet) and the depths searched from them.
POSITIONS_3: list[tuple[Moves, list[int]]] = [
    ([], [1, 2, 3]),
    ([(1, 1), (0, 0)], [1, 2, 3, 5, 7]),
    ([(0, 2), (1, 1), (2, 0)], [1, 2, 4, 6]),
    ([(0, 0), (1, 1), (0, 1)], [1, 3, 6]),
    ([(2, 1), (0, 2), (1, 0), (1, 2)], [2, 5]),
]
POSITIONS_4: list[tuple[Moves, list[int]]] = [
    ([], [1, 2, 3]),
    ([(0, 0), (1, 1), (2, 2), (3, 3), (0, 3)], [1, 2, 3, 4]),
    ([(1, 1), (1, 2), (2, 1), (2, 2), (0, 0), (3, 3), (0, 3), (3, 0)], [2, 4, 5]),
    ([(0, 1), (3, 2), (1, 3), (2, 0), (2, 2), (1, 0), (3, 1), (0, 2), (1, 1), (2, 3)], [3, 6]),
]
CUSTOM_GRID = [[-1, -1, -1], [9, -1, -1], [-1, -1, -1]]


def configure(size: int) -> Step:
    return {"call": "constants.configure", "args": [size], "let": "configured",
            "label": f"constants.configure({size})"}


def coords(row: int, col: int) -> dict[str, Any]:
    return {"$call": "board.BoardCoordinate", "args": [row, col]}


def new_board(name: str = "b", grid: list[list[int]] | None = None) -> Step:
    score = {"$get": "constants.SCORE_PRESET"} if grid is None else grid
    return {"call": "board.Board", "args": [score], "let": name}


def play_all(moves: Moves, name: str = "b", check: bool = False) -> list[Step]:
    """Play `moves`; with `check`, compare play's result, the score and the id after each."""
    steps: list[Step] = []
    for row, col in moves:
        play: Step = {"call": f"{name}.play", "args": [coords(row, col)],
                      "label": f"{name}.play(({row}, {col}))"}
        if check:
            steps += [play, {"call": f"{name}.get_board_score"}, {"get": f"{name}.id"}]
        else:
            steps.append({**play, "let": "played"})
    return steps


def position(size: int, moves: Moves, grid: list[list[int]] | None = None) -> list[Step]:
    return [configure(size), new_board(grid=grid), *play_all(moves)]


def searches(size: int, positions: list[tuple[Moves, list[int]]], alpha_beta: bool) -> list[Step]:
    """For each position, a fresh tree searched at each depth (shallow first)."""
    steps = [configure(size), new_board("start")]
    for index, (moves, depths) in enumerate(positions):
        board = f"p{index}"
        steps += [{"call": "start.copy", "let": board}, *play_all(moves, board)]
        tree = f"t{index}"
        steps.append({"call": "boardtree.BoardTree", "args": [{"$ref": board}], "let": tree})
        for depth in depths:
            if alpha_beta:
                step: Step = {"call": f"{tree}.get_optimal_move_alpha_beta",
                              "args": [depth, -WINDOW, WINDOW]}
            else:
                step = {"call": f"{tree}.get_optimal_move", "args": [depth]}
            steps.append({**step, "show": "attrs", "attrs": MOVE_ATTRS,
                          "label": f"{moves} depth {depth}"})
    return steps


def minimax_3x3() -> list[Step]:
    return searches(3, POSITIONS_3, alpha_beta=False)


def minimax_4x4() -> list[Step]:
    return searches(4, POSITIONS_4, alpha_beta=False)


def alpha_beta_3x3() -> list[Step]:
    return searches(3, POSITIONS_3, alpha_beta=True)


def alpha_beta_4x4() -> list[Step]:
    return searches(4, POSITIONS_4, alpha_beta=True)


def custom_grid_search() -> list[Step]:
    """The course's own checks: a grid of -1 with one 9, searched 1 and 9 deep (both searches)."""
    steps = [configure(3)]
    for name, call, extra in (("m", "get_optimal_move", []),
                              ("a", "get_optimal_move_alpha_beta", [-WINDOW, WINDOW])):
        steps += [new_board(f"g{name}", CUSTOM_GRID),
                  {"call": "boardtree.BoardTree", "args": [{"$ref": f"g{name}"}], "let": name}]
        for depth in (1, 9):
            steps.append({"call": f"{name}.{call}", "args": [depth, *extra], "show": "attrs",
                          "attrs": MOVE_ATTRS, "label": f"{call}({depth}) on the custom grid"})
    return steps


def ids_3x3() -> list[Step]:
    return [configure(3), new_board(),
            *play_all([(1, 1), (0, 0), (2, 2), (0, 2), (0, 1), (2, 1), (1, 0), (1, 2)],
                      check=True)]


def ids_4x4() -> list[Step]:
    return [configure(4), new_board(),
            *play_all([(1, 0), (0, 3), (3, 3), (2, 1), (1, 2), (0, 0), (3, 1), (2, 3), (1, 1)],
                      check=True)]


def full_games() -> list[Step]:
    """Whole games to the last square, checking score, fullness and the end after each move."""
    games = [
        (3, [(0, 1), (1, 2), (1, 0), (0, 2), (1, 1), (2, 1), (2, 2), (0, 0), (2, 0)]),
        (3, [(1, 1), (0, 0), (0, 2), (2, 0), (1, 0), (1, 2), (0, 1), (2, 1), (2, 2)]),
        (4, [(3, 0), (1, 1), (2, 0), (2, 2), (0, 0), (0, 3), (1, 3), (0, 1), (3, 2), (2, 3),
             (2, 1), (1, 2), (3, 1), (3, 3), (0, 2), (1, 0)]),
    ]
    steps: list[Step] = []
    for size, moves in games:
        steps += [configure(size), new_board()]
        for row, col in moves:
            steps += [{**play_all([(row, col)])[0]}, {"call": "b.get_board_score"},
                      {"call": "b.is_full"}, {"call": "b.is_finished"}]
        steps.append({"call": "b.__str__"})
    return steps


def lines() -> list[Step]:
    """A line of each kind for each player, on both sizes: score and is_finished."""
    games = [
        (3, [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)]),  # X: top row
        (3, [(0, 0), (0, 1), (1, 0), (1, 1), (2, 2), (2, 1)]),  # O: middle column
        (3, [(0, 0), (0, 1), (1, 1), (0, 2), (2, 2)]),  # X: diagonal
        (3, [(0, 0), (0, 2), (0, 1), (1, 1), (2, 2), (2, 0)]),  # O: anti-diagonal
        (4, [(0, 3), (0, 0), (1, 2), (1, 1), (2, 1), (2, 2), (3, 0)]),  # X: anti-diagonal
        (4, [(0, 0), (3, 0), (0, 1), (3, 1), (1, 0), (3, 2), (2, 2), (3, 3)]),  # O: bottom row
        (4, [(0, 2), (0, 0), (1, 2), (1, 1), (2, 2), (0, 1), (3, 2)]),  # X: third column
        (4, [(0, 1), (0, 0), (0, 2), (1, 1), (1, 3), (2, 2), (2, 0), (3, 3)]),  # O: diagonal
    ]
    steps: list[Step] = []
    for size, moves in games:
        steps += [configure(size), new_board(), *play_all(moves[:-1])]
        steps += [{"call": "b.is_finished"}, *play_all(moves[-1:]),
                  {"call": "b.get_board_score"}, {"call": "b.is_finished"}, {"call": "b.is_full"}]
    return steps


def seed_examples() -> list[Step]:
    """The three boards of the assignment's score example: -3, X's column (10000), -27."""
    games = [
        [(1, 1), (0, 0), (2, 0), (2, 1), (2, 2)],
        [(0, 2), (0, 1), (1, 2), (1, 0), (2, 2)],
        [(0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (1, 1), (2, 0), (2, 2), (2, 1)],
    ]
    steps = [configure(3)]
    for moves in games:
        steps += [new_board(), *play_all(moves), {"call": "b.get_board_score"},
                  {"call": "b.is_finished"}, {"get": "b.id"}]
    return steps


def move(score: int, row: int, col: int) -> dict[str, Any]:
    return {"$call": "board.BoardOptimalMove", "args": [score, coords(row, col)]}


def table(size: int) -> list[Step]:
    return [configure(size), {"call": "hashtable.BoardHashTable.get_instance", "let": "t"}]


def lookup(id: int, depth: int) -> Step:
    return {"call": "t.get_hashed_move", "args": [id, depth], "show": "attrs",
            "attrs": MOVE_ATTRS}


def store(id: int, depth: int, score: int, row: int, col: int) -> Step:
    return {"call": "t.update_table", "args": [id, depth, move(score, row, col)],
            "let": "stored", "label": f"update_table({id}, {depth}, ({score}, {row}, {col}))"}


def hash_seed_examples() -> list[Step]:
    """The assignment's example table: 1920 at depth 4 in bucket 1, other ids in bucket 99."""
    return [*table(3), store(99, 2, 5, 0, 0), store(1920, 4, -3, 2, 1), store(200, 1, 7, 1, 1),
            lookup(306, 3), lookup(402, 3), lookup(1920, 4), lookup(1920, 3), lookup(1920, 5),
            lookup(200, 1), lookup(99, 3)]


def hash_chains() -> list[Step]:
    """Head insertion, in-place updates only towards deeper searches."""
    return [*table(3), store(5, 1, 10, 0, 0), store(106, 2, 20, 0, 1), store(207, 3, 30, 0, 2),
            {"call": "t.chain", "args": [5]}, {"call": "t.chain", "args": [6]},
            store(106, 4, 21, 1, 1), {"call": "t.chain", "args": [5]}, lookup(106, 4),
            store(106, 1, 22, 2, 2), lookup(106, 1), store(207, 3, 31, 2, 0), lookup(207, 3),
            lookup(5, 1), lookup(5, 2), {"call": "t.chain", "args": [5]}]


def hash_clear() -> list[Step]:
    return [*table(3), store(7, 2, 1, 0, 0), store(108, 2, 2, 0, 1), lookup(7, 2),
            {"call": "t.clear_table", "let": "cleared"}, lookup(7, 2), lookup(108, 0),
            {"call": "t.chain", "args": [7]}, store(108, 1, 3, 1, 0), lookup(108, 1),
            {"call": "t.chain", "args": [7]}]


def hash_singleton() -> list[Step]:
    """Whatever is stored through one get_instance() is found through another."""
    again = {"call": "hashtable.BoardHashTable.get_instance", "let": "u"}
    return [*table(3), store(4721, 5, -7, 2, 2), again,
            {"call": "u.get_hashed_move", "args": [4721, 5], "show": "attrs", "attrs": MOVE_ATTRS}]


def hash_4x4() -> list[Step]:
    """TABLE_SIZE is 200009 on 4x4: 5 and 200014 share a bucket, 106 does not."""
    return [*table(4), store(5, 1, 1, 0, 0), store(200014, 1, 2, 0, 1), store(106, 1, 3, 0, 2),
            {"call": "t.chain", "args": [5]}, {"call": "t.chain", "args": [106]},
            lookup(200014, 1), lookup(43046720, 0)]


def sub_trees() -> list[Step]:
    """Children built on demand, copies kept apart, illegal moves give empty trees."""
    return [
        configure(3), new_board(),
        {"call": "boardtree.BoardTree", "args": [{"$ref": "b"}], "let": "t"},
        *play_all([(2, 2)]),
        {"call": "t.is_empty"}, {"get": "t.board.id"},
        {"call": "t.get_sub_tree", "args": [coords(1, 1)], "let": "s"},
        {"call": "s.is_empty"}, {"get": "s.board.id"}, {"call": "s.board.__str__"},
        {"get": "s.board.cur_player", "show": "str"}, {"get": "t.board.id"},
        {"call": "s.get_sub_tree", "args": [coords(1, 1)], "let": "taken"},
        {"call": "taken.is_empty"},
        {"call": "s.get_sub_tree", "args": [coords(3, 0)], "let": "off"},
        {"call": "off.is_empty"},
        {"call": "s.get_sub_tree", "args": [coords(0, 2)], "let": "s2"},
        {"get": "s2.board.id"}, {"call": "s2.board.get_board_score"},
        {"call": "s2.get_sub_tree", "args": [coords(2, 0)], "let": "s3"},
        {"call": "s3.board.__str__"}, {"get": "s3.board.id"},
        {"call": "boardtree.BoardTree", "let": "empty"}, {"call": "empty.is_empty"},
        {"call": "empty.get_optimal_move", "args": [3], "show": "attrs", "attrs": MOVE_ATTRS},
        {"call": "empty.get_optimal_move_alpha_beta", "args": [3, -WINDOW, WINDOW],
         "show": "attrs", "attrs": MOVE_ATTRS},
    ]


def sub_trees_4x4() -> list[Step]:
    return [
        configure(4), new_board(),
        {"call": "boardtree.BoardTree", "args": [{"$ref": "b"}], "let": "t"},
        {"call": "t.get_sub_tree", "args": [coords(3, 3)], "let": "s"},
        {"get": "s.board.id"}, {"call": "s.board.get_board_score"},
        {"call": "s.get_sub_tree", "args": [coords(2, 1)], "let": "s2"},
        {"get": "s2.board.id"}, {"call": "s2.board.__str__"},
        {"call": "s2.get_sub_tree", "args": [coords(3, 3)], "let": "taken"},
        {"call": "taken.is_empty"},
    ]


def search_then_descend() -> list[Step]:
    """Search, follow the move, search again from the sub-tree: what the drivers do."""
    steps = [configure(3), new_board(),
             {"call": "boardtree.BoardTree", "args": [{"$ref": "b"}], "let": "t0"}]
    for turn in range(4):
        steps += [
            {"call": f"t{turn}.get_optimal_move", "args": [3], "let": f"m{turn}", "check": True,
             "show": "attrs", "attrs": MOVE_ATTRS},
            {"call": f"t{turn}.get_sub_tree", "args": [{"$get": f"m{turn}.coords"}],
             "let": f"t{turn + 1}"},
            {"get": f"t{turn + 1}.board.id"},
        ]
    return steps


def coordinates() -> list[Step]:
    cases = [(0, 0), (2, 2), (3, 0), (0, 3), (-1, 1), (1, -1), (3, 3), (4, 0)]
    steps: list[Step] = []
    for size in (3, 4):
        steps.append(configure(size))
        for row, col in cases:
            steps.append({"call": "board.BoardCoordinate", "args": [row, col], "let": "c"})
            label = f"({row}, {col}).is_valid() on {size}x{size}"
            steps.append({"call": "c.is_valid", "label": label})
    return steps


def empty_boards() -> list[Step]:
    steps: list[Step] = []
    for size in (3, 4):
        steps += [configure(size), new_board(), {"call": "b.__str__"},
                  {"call": "b.get_board_score"}, {"get": "b.id"},
                  {"get": "b.cur_player", "show": "str"}, {"call": "b.is_full"},
                  {"call": "b.is_finished"}]
    return steps


def rejected_moves() -> list[Step]:
    """Taken squares and squares off the board: False, and nothing changes."""
    steps = [configure(3), new_board(), *play_all([(0, 0)])]
    for row, col in [(0, 0), (3, 1), (1, 3), (-1, 0)]:
        steps += [{"call": "b.play", "args": [coords(row, col)],
                   "label": f"b.play(({row}, {col}))"},
                  {"get": "b.id"}, {"get": "b.cur_player", "show": "str"},
                  {"call": "b.get_board_score"}]
    steps += [configure(4), new_board(), *play_all([(3, 3)]),
              {"call": "b.play", "args": [coords(3, 3)]},
              {"call": "b.play", "args": [coords(4, 0)]},
              {"get": "b.id"}, {"call": "b.__str__"}]
    return steps


def copies() -> list[Step]:
    return [configure(3), new_board(), *play_all([(1, 1)]),
            {"call": "b.copy", "let": "c"}, *play_all([(0, 0)], "c"),
            {"get": "b.id"}, {"get": "c.id"}, {"call": "b.__str__"}, {"call": "c.__str__"},
            {"get": "b.cur_player", "show": "str"}, {"get": "c.cur_player", "show": "str"},
            {"call": "b.get_board_score"}, {"call": "c.get_board_score"}]


def custom_scores() -> list[Step]:
    """A board built on another grid keeps its own values (and a copy of them)."""
    grid = [[1, 1, -100], [1, 1, 1], [1, 1, 100]]
    return [configure(3), new_board("g", grid), *play_all([(0, 0), (1, 1), (0, 1), (2, 2)], "g"),
            {"call": "g.get_board_score"}, *play_all([(0, 2)], "g"), {"call": "g.get_board_score"},
            {"call": "g.is_finished"}]
