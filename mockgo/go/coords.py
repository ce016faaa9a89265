"""Coordinates: converting between the ways a point on the board is written.

mockgo's canonical form is the flat index ``row * size + col`` with row 0 at the
top of the board, and ``size * size`` for pass (see :func:`pass_index`), so a
policy over all moves is one vector of ``size * size + 1`` entries.

The other forms:

- (row, col): a pair of ints, row 0 at the top; pass is ``None``.
- GTP vertex: ``"A1"`` is the bottom-left corner, the column letters skip
  ``I``, and ``"pass"``. Case-insensitive on input, upper case on output.
- SGF point: two letters, column then row, ``"aa"`` at the top-left; pass is
  the empty string, and ``"tt"`` is also read as pass on boards up to 19x19
  (an FF[3] habit that FF[4] still allows).
"""

GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
SGF_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_GTP_SIZE = len(GTP_COLUMNS)
MAX_SGF_SIZE = len(SGF_LETTERS)


def pass_index(size):
    """The flat index that stands for a pass on a size x size board."""
    return size * size


def _check_size(size, limit=None):
    if not isinstance(size, int) or size < 1 or (limit is not None and size > limit):
        raise ValueError(f"board size {size!r} is out of range (1..{limit or 'any'})")


def to_flat(row_col, size):
    """(row, col) or None (pass) to a flat index."""
    if row_col is None:
        return pass_index(size)
    row, col = row_col
    if not (0 <= row < size and 0 <= col < size):
        raise ValueError(f"point {row_col!r} is off a {size}x{size} board")
    return row * size + col


def from_flat(move, size):
    """A flat index to (row, col), or None for pass."""
    if move == pass_index(size):
        return None
    if not 0 <= move < size * size:
        raise ValueError(f"move index {move!r} is off a {size}x{size} board")
    return divmod(int(move), size)


def from_gtp(vertex, size):
    """A GTP vertex such as ``"D4"`` or ``"pass"`` to a flat index."""
    _check_size(size, MAX_GTP_SIZE)
    text = vertex.strip().upper()
    if text == "PASS":
        return pass_index(size)
    if len(text) < 2 or text[0] not in GTP_COLUMNS or not text[1:].isdigit():
        raise ValueError(f"{vertex!r} is not a GTP vertex")
    col = GTP_COLUMNS.index(text[0])
    row = size - int(text[1:])
    if not (0 <= row < size and col < size):
        raise ValueError(f"GTP vertex {vertex!r} is off a {size}x{size} board")
    return row * size + col


def to_gtp(move, size):
    """A flat index to a GTP vertex (``"pass"`` for a pass)."""
    _check_size(size, MAX_GTP_SIZE)
    row_col = from_flat(move, size)
    if row_col is None:
        return "pass"
    row, col = row_col
    return f"{GTP_COLUMNS[col]}{size - row}"


def from_sgf(point, size):
    """An SGF point such as ``"dd"`` to a flat index; ``""`` (and ``"tt"`` up to 19x19) is pass."""
    _check_size(size, MAX_SGF_SIZE)
    if point == "" or (point == "tt" and size <= 19):
        return pass_index(size)
    if len(point) != 2 or point[0] not in SGF_LETTERS or point[1] not in SGF_LETTERS:
        raise ValueError(f"{point!r} is not an SGF point")
    col, row = SGF_LETTERS.index(point[0]), SGF_LETTERS.index(point[1])
    if row >= size or col >= size:
        raise ValueError(f"SGF point {point!r} is off a {size}x{size} board")
    return row * size + col


def to_sgf(move, size):
    """A flat index to an SGF point (``""`` for a pass)."""
    _check_size(size, MAX_SGF_SIZE)
    row_col = from_flat(move, size)
    if row_col is None:
        return ""
    row, col = row_col
    return SGF_LETTERS[col] + SGF_LETTERS[row]
