"""Where stones go before a game starts: handicap stones and star points.

GTP's ``fixed_handicap`` places handicap stones on fixed points, the star
points (*hoshi*) drawn on an empty board; servers allow as many as GTP
places (KGS: 9 on 19x19). Points are flat indices (``row * size + col``,
row 0 at the top; :mod:`mockgo.go.coords`). :meth:`mockgo.go.board.Board.place_handicap`
puts them on a board.
"""


def max_handicap(size):
    """The most handicap stones a game on a ``size`` board may have: as many
    as GTP's ``fixed_handicap`` places (9 on odd boards of 9 and up, 4 on
    the other boards of 7 and up, none below 7), which is also what servers
    allow (KGS: 9)."""
    if size < 7:
        return 0
    return 9 if size % 2 == 1 and size >= 9 else 4


def hoshi_points(size):
    """The star points GnuGo draws on an empty board of this size."""
    if size in (2, 4) or size < 2:
        return []
    middle = size // 2
    if size == 3:
        return [middle * size + middle]
    line = 1 if size == 5 else (2 if size <= 11 else 3)
    lines = [line, size - 1 - line]
    points = {r * size + c for r in lines for c in lines}
    if size % 2 == 1:
        points.add(middle * size + middle)
        if size >= 13:
            for other in lines:
                points.add(middle * size + other)
                points.add(other * size + middle)
    return sorted(points)


def fixed_handicap_points(size, stones):
    """Handicap stone placement as GTP's ``fixed_handicap`` defines it.

    2 to 4 stones on the 3-3 points (4-4 on boards of 13 and up); odd boards of
    9 and up also take 5 to 9 stones (the middles of the sides and the centre).
    """
    if stones < 2 or stones > max_handicap(size):
        raise ValueError(f"no fixed handicap of {stones} stones on a {size}x{size} board")
    low = 2 if size <= 12 else 3
    high, middle = size - 1 - low, size // 2

    def at(col, row_from_bottom):
        return (size - 1 - row_from_bottom) * size + col

    lower_left, upper_right = at(low, low), at(high, high)
    upper_left, lower_right = at(low, high), at(high, low)
    left, right = at(low, middle), at(high, middle)
    bottom, top, center = at(middle, low), at(middle, high), at(middle, middle)
    order = {
        2: [lower_left, upper_right],
        3: [lower_left, upper_right, upper_left],
        4: [lower_left, upper_right, upper_left, lower_right],
        5: [lower_left, upper_right, upper_left, lower_right, center],
        6: [lower_left, upper_right, upper_left, lower_right, left, right],
        7: [lower_left, upper_right, upper_left, lower_right, left, right, center],
        8: [lower_left, upper_right, upper_left, lower_right, left, right, bottom, top],
        9: [lower_left, upper_right, upper_left, lower_right, left, right, bottom, top, center],
    }
    return order[stones]
