"""Speed of the gametree and alphabeta references on tic-tac-toe.

Run with `.venv/bin/python bench/gametree_speed.py`. Each figure is measured in a fresh child
process (best of three runs); its peak memory is the child's ru_maxrss. Targets:

- counting the 549946 nodes of the full (3, 3, 3) tree: at most 1 s;
- the alpha-beta value of (3, 3, 3): well under 0.1 s;
- solve(4, 4, 4) == 0 with the transposition table: at most 3 s.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {
    "gametree": [ROOT / "reference" / "gametree", ROOT / "exercises" / "gametree"],
    "alphabeta": [ROOT / "reference" / "alphabeta", ROOT / "exercises" / "alphabeta"],
}
RUNS = 3


def count_with_a_stack() -> object:
    """The nodes of tic-tac-toe's tree, counted with an explicit stack."""
    import gametree
    from lazytree import NonLeaf

    count, stack = 0, [gametree.tree(gametree.initial(3, 3, 3))]
    while stack:
        node = stack.pop()
        count += 1
        if type(node) is NonLeaf:
            for _move, child in node.offspring:
                stack.append(child)
    return count


def count_with_given_helper() -> object:
    """The nodes of tic-tac-toe's tree, counted by `lazytree.count_nodes` (as the grader does)."""
    import gametree
    from lazytree import count_nodes

    return count_nodes(gametree.tree(gametree.initial(3, 3, 3)))


def alpha_beta_value() -> object:
    """`bval(BOTTOM, TOP, tree(initial(3, 3, 3)))`."""
    import gametree
    import tictactoe
    from prelude import BOTTOM, TOP

    return tictactoe.bval(BOTTOM, TOP, gametree.tree(gametree.initial(3, 3, 3)))


def solve_4x4x4() -> object:
    """`solve(4, 4, 4)`."""
    import tictactoe

    return tictactoe.solve(4, 4, 4)


def size_with_alphabeta_reference() -> object:
    """alphabeta's recursive `size` on the gametree reference's tic-tac-toe tree."""
    import gametree  # first, with gametree's prelude; lazytree is the same file in both

    sys.modules.pop("prelude")
    sys.path[:0] = [str(folder) for folder in FOLDERS["alphabeta"]]
    import alphabeta

    return alphabeta.size(gametree.tree(gametree.initial(3, 3, 3)))


FIGURES: dict[str, tuple[Callable[[], object], float]] = {
    "count 3x3x3 nodes (stack)": (count_with_a_stack, 1.0),
    "count 3x3x3 nodes (lazytree.count_nodes)": (count_with_given_helper, 1.0),
    "count 3x3x3 nodes (alphabeta.size)": (size_with_alphabeta_reference, 1.0),
    "alpha-beta value of 3x3x3": (alpha_beta_value, 0.1),
    "solve(4, 4, 4)": (solve_4x4x4, 3.0),
}


def child(name: str) -> None:
    """Measure one figure in this process and print it as JSON."""
    sys.setrecursionlimit(10_000)
    sys.path[:0] = [str(folder) for folder in FOLDERS["gametree"]]
    function, _target = FIGURES[name]
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"result": result, "wall": wall, "cpu": cpu, "peak_mb": peak_mb}))


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
        return 0
    print(f"{'figure':44} {'result':>8} {'cpu s':>7} {'wall s':>7} {'peak MB':>8} {'target s':>9}")
    for name, (_function, target) in FIGURES.items():
        runs = []
        for _ in range(RUNS):
            output = subprocess.run(
                [sys.executable, __file__, "--child", name],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            runs.append(json.loads(output))
        best = min(runs, key=lambda run: run["cpu"])
        verdict = "ok" if best["cpu"] <= target else "MISSED"
        print(
            f"{name:44} {best['result']!s:>8} {best['cpu']:7.3f} {best['wall']:7.3f}"
            f" {best['peak_mb']:8.1f} {target:9.1f} {verdict}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
