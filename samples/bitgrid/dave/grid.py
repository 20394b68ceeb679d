"""Dave: his count_games never stops (he forgot the end of the game)."""

EMPTY, X, O = 0, 1, 2


def _valid(grid):
    if type(grid) is not int or grid < 0 or grid >= 1 << 18:
        raise ValueError("bad grid")
    if any((grid >> s) & 3 == 3 for s in range(0, 18, 2)):
        raise ValueError("bad field value 3")


def position(x, y):
    if not (0 <= x < 3 and 0 <= y < 3):
        raise ValueError("coordinates out of range")
    return 2 * (3 * y + x)


def get_field(grid, x, y):
    _valid(grid)
    return (grid >> position(x, y)) & 3


def set_field(grid, x, y, value):
    _valid(grid)
    if value not in (0, 1, 2):
        raise ValueError("bad value")
    p = position(x, y)
    return grid & ~(3 << p) | value << p


def winner(grid):
    _valid(grid)
    lines = [[(0, r), (1, r), (2, r)] for r in range(3)] + [[(c, 0), (c, 1), (c, 2)] for c in range(3)]
    lines += [[(0, 0), (1, 1), (2, 2)], [(2, 0), (1, 1), (0, 2)]]
    for line in lines:
        values = {get_field(grid, x, y) for x, y in line}
        if len(values) == 1 and values != {EMPTY}:
            return values.pop()
    return EMPTY


def is_full(grid):
    _valid(grid)
    return all(get_field(grid, i % 3, i // 3) for i in range(9))


def count_games():
    memo = {}

    def count(grid, player):
        if (grid, player) not in memo:
            if is_full(grid):
                memo[grid, player] = 1
            else:
                memo[grid, player] = sum(  # no memo lookup before recursing: loops

                    count(set_field(grid, i % 3, i // 3, player), 3 - player)
                    for i in range(9) if get_field(grid, i % 3, i // 3) == EMPTY)
        return memo[grid, player]

    while True:
        count(0, X)
        memo.clear()
