"""Tasks 2 and 4: the search tree, minimax and alpha-beta pruning.

A BoardTree is either empty or a node: one board position plus one sub-tree per square, i.e.
per possible next move (N * N sub-trees; the one of a taken square always stays empty). The
tree starts as a single node and grows only on demand: a child is built the first time the
search (or `get_sub_tree`) needs it, by copying the board and playing the move on the copy.
Built nodes are kept, so the next search from a child reuses what was built below it.

The drivers play a whole game: search from the root, play the move found, continue from
`get_sub_tree(move)`. On 4x4 the search visits millions of positions. The heaviest tests
(4x4, minimax at depth 5 and alpha-beta at depth 6) leave room for a plain Python solution: a
list-of-lists board that checks the lines and adds up the score on every call, with a tree
that copies and plays every child, fits their limits (the suite states them) several times
over, and so does a node for every child, leaves included. Faster and smaller is easy, though:

- keep a node small: `__slots__`, the children in one list (or dict) created when the node is
  first searched, no per-node copies of the score grid;
- you need not build a node for a child that you only score: a leaf (depth 0 or a finished
  game) or a child found in the table. Work out its id and score from the parent (copy and
  play, or cheaper) and build its node only when the search goes below it, or when
  `get_sub_tree` asks for it. The results are the same; the tree is several times smaller.
- storing depth-0 leaves in the table, as the pseudocode does, is allowed but never pays off:
  every lookup asks for a depth of at least 1.

Order and ties (they decide which move is printed): try the squares row by row, each row
left to right (row-major), and replace the best move only by a strictly better one, so among
equal scores the first square found wins. X maximizes the score, O minimizes it.
"""

from __future__ import annotations

from board import Board, BoardCoordinate, BoardOptimalMove


class BoardTree:
    """A search tree node, or an empty tree."""

    def __init__(self, board: Board | None = None) -> None:
        """Create a one-node tree for (a copy of) `board`, or an empty tree when it is None.

        Copy the board: the drivers keep playing on the one they passed in.
        """
        raise NotImplementedError

    @property
    def board(self) -> Board | None:
        """Return the board at the root, None for an empty tree."""
        raise NotImplementedError

    def is_empty(self) -> bool:
        """Return True for an empty tree (no root)."""
        raise NotImplementedError

    def get_sub_tree(self, coords: BoardCoordinate) -> BoardTree:
        """Return the sub-tree of the move `coords`, building its node first if it is empty.

        Building: copy the root's board and play `coords` on the copy; if `play` accepts the
        move, the copy becomes the sub-tree's root, else the sub-tree stays empty (a taken
        square or coordinates off the board: return an empty tree). Calling it twice with the
        same move returns the same sub-tree. Example: on the tree of the empty 3x3 board,
        get_sub_tree(BoardCoordinate(1, 1)) is a tree whose board has X in the middle and
        id 81; on that sub-tree, get_sub_tree(BoardCoordinate(1, 1)) is empty.
        """
        raise NotImplementedError

    def get_optimal_move(self, depth: int) -> BoardOptimalMove:
        """Return the best move for the player to move, searching `depth` moves ahead (minimax).

        With `table = BoardHashTable.get_instance()` (from hashtable import BoardHashTable):

        1. Empty tree: return the illegal move `BoardOptimalMove()`.
        2. `depth` is 0 or the board is finished: make
           `BoardOptimalMove(board score, any coordinates)`, store it with
           `table.update_table(board id, depth, move)` and return it.
        3. If `table.get_hashed_move(board id, depth)` is not the illegal move (score !=
           ILLEGAL), return it: this position was already searched deep enough.
        4. Otherwise start from -infinity for X (+infinity for O) and, for every square in
           row-major order: build its sub-tree if empty, search it with `depth - 1`, skip it
           if the result is illegal (a taken square), and keep
           `BoardOptimalMove(child's score, that square)` when the child's score is strictly
           better (higher for X, lower for O) than the best so far.
        5. Store the best move with `table.update_table(board id, depth, best)`, return it.

        Examples on the 3x3 preset grid, empty board: depth 1 gives score 36 at (1, 0) (X
        takes the 9); depth 2 gives score -4 at (1, 0) (O answers on the 8).
        """
        raise NotImplementedError

    def get_optimal_move_alpha_beta(self, depth: int, alpha: int, beta: int) -> BoardOptimalMove:
        """Return the same move as `get_optimal_move(depth)`, skipping hopeless moves (alpha-beta).

        `alpha` is the score X is already sure to reach elsewhere, `beta` the score O is sure
        to hold X to; the drivers start with alpha = -WIN_SCORE - 1, beta = WIN_SCORE + 1.
        Steps 1 to 3 as in `get_optimal_move`. Step 4 searches each sub-tree with
        `get_optimal_move_alpha_beta(depth - 1, alpha, beta)` and keeps strictly better moves
        the same way; after each sub-tree, with `best` the best score so far:

        - X to move: if best > beta, stop the loop (O will never let the game come here);
          else alpha = max(alpha, best).
        - O to move: if best < alpha, stop the loop; else beta = min(beta, best).

        Step 5 changes: a result found with a cut-off, or outside the window you were given,
        is only a bound, not the position's true score, and must not go into the table. Store
        the best move only when the given alpha < best score < the given beta (with a
        cut-off the score is always outside, so this one test is enough). Storing bounds
        makes later searches return different moves; with this rule the game printed by task 4
        is exactly the one of task 2, only faster.

        Efficiency counts too: two tests count, from outside, how many positions one search
        looks up in the table (`probe.py`, given: every position searched with depth >= 1 is
        looked up once, step 3). Your search may look up at most 20% more positions than the
        reference solution's on the same position, and must look positions up: test the cut-off
        right after counting each child, and store and reuse results as in steps 3 and 5.
        """
        raise NotImplementedError
