"""Draw the board that a board id stands for (given file: do not edit).

    grader run weighted id2board -s 3 -i 4721

The id is read as N*N base-3 digits, the square (row, col) being digit row * N + col
(0 empty, 1 X, 2 O); the example prints O X O / _ X X / _ O _. It does not use your code, so
you can check your ids with it.
"""

from __future__ import annotations

import sys

from constants import SUPPORTED_SIZES, format_grid

USAGE = "Usage: id2board -s SIZE -i ID   (or --size SIZE --id ID); SIZE is 3 or 4."
DIGIT_CHARS = (" ", "X", "O")


def id_to_grid(board_id: int, size: int) -> list[list[str]]:
    """The squares' characters, row by row, of the board `board_id` on a size x size board."""
    digits = []
    for _ in range(size * size):
        board_id, digit = divmod(board_id, 3)
        digits.append(DIGIT_CHARS[digit])
    return [digits[row * size : (row + 1) * size] for row in range(size)]


def parse(argv: list[str]) -> tuple[int, int] | str:
    """(size, id) from the arguments, or the message explaining what is wrong."""
    values: dict[str, int] = {}
    names = {"-s": "size", "--size": "size", "-i": "id", "--id": "id"}
    at = 0
    while at < len(argv):
        name = names.get(argv[at])
        if name is None:
            return f"Unknown argument: {argv[at]}"
        if at + 1 == len(argv):
            return f"Missing value after {argv[at]}"
        try:
            values[name] = int(argv[at + 1])
        except ValueError:
            return f"Not a number: {argv[at + 1]}"
        at += 2
    if "size" not in values or "id" not in values:
        return "Both the size and the id are needed."
    size, board_id = values["size"], values["id"]
    if size not in SUPPORTED_SIZES:
        return f"The size must be 3 or 4, not {size}."
    if not 0 <= board_id < 3 ** (size * size):
        return f"The id of a {size}x{size} board lies between 0 and {3 ** (size * size) - 1}."
    return size, board_id


def main(argv: list[str] | None = None) -> int:
    parsed = parse(sys.argv[1:] if argv is None else argv)
    if isinstance(parsed, str):
        print(parsed)
        print(USAGE)
        return 2
    size, board_id = parsed
    print(format_grid(id_to_grid(board_id, size)), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
