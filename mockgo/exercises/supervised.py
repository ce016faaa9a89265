"""Notebook 01's exercises: two more of AlphaGo's feature planes written
from the board and checked against the encoder ("turns since" and
"self-atari size"), and a network trained on the board and its history
alone beside one trained on all 48 planes."""

import numpy as np

from mockgo.data.dataset import batches, read_manifest
from mockgo.exercises import Exercise, NotYet
from mockgo.go import coords
from mockgo.go.features import get_encoder
from mockgo.presets import preset

__all__ = ["board_and_history", "self_atari", "train_and_score", "turns_since"]


def _planes_named(encoder, title):
    """The indices of the encoder's planes whose names start with ``title``."""
    return [i for i, name in enumerate(encoder.plane_names) if name.startswith(title + ":")]


def _compare_with_encoder(answer, boards, title):
    """Run ``answer`` on every board and compare it with the encoder's 8
    planes called ``title``; NotYet naming the first difference. Returns the
    encoder's planes of every board, for the checker's sentence."""
    if not boards:
        raise ValueError("no boards to check on")
    found = []
    for k, board in enumerate(boards):
        encoder = get_encoder("alphago48", board.size)
        indices = _planes_named(encoder, title)
        expected = encoder.encode(board)[..., indices]
        planes = np.asarray(answer(board))
        if planes.shape != expected.shape:
            raise NotYet(f"the planes should be an array of shape {expected.shape} (rows, "
                         f"columns, the 8 planes), not {planes.shape}")
        wrong = np.argwhere(planes != expected)
        if len(wrong):
            row, col, plane = wrong[0]
            point = coords.to_gtp(int(row) * board.size + int(col), board.size)
            raise NotYet(f"position {k + 1} of {len(boards)} (before move "
                         f"{board.move_number + 1}), plane '{encoder.plane_names[indices[plane]]}' "
                         f"at {point}: yours {planes[row, col, plane]}, the encoder's "
                         f"{expected[row, col, plane]} ({len(wrong)} points differ there)")
        found.append(expected)
    return found


# ------------------------------------------------------------- turns_since


def _turns_since_skeleton(board):
    """The 8 "turns since" planes of ``board``, shape (size, size, 8): for
    each stone, a 1 in plane k - 1 if it was played k moves ago (k = 1 for
    the last move), in plane 7 if 8 or more moves ago (set-up and handicap
    stones too); 0 on empty points."""
    raise NotImplementedError  # your code here


def _turns_since_solution(board):
    n = board.size
    planes = np.zeros((n, n, 8), np.uint8)
    for point in np.flatnonzero(board.stones):
        age = board.move_number - board.played_at[point]  # 1: the last move
        row, col = divmod(int(point), n)
        planes[row, col, min(age, 8) - 1] = 1
    return planes


def _check_turns_since(answer, boards):
    expected = _compare_with_encoder(answer, boards, "turns since")
    stones = sum(int(planes.sum()) for planes in expected)
    recent = sum(int(planes[..., :7].sum()) for planes in expected)
    return (f"the encoder's 8 'turns since' planes on all {len(boards)} positions: "
            f"{stones:,} stones, {recent:,} of them played in the last 7 moves")


turns_since = Exercise(
    "turns_since", "the 'turns since' planes", _check_turns_since, _turns_since_solution,
    _turns_since_skeleton,
    "board.played_at[p] is the move number at which the stone on p was played (a large "
    "negative number for set-up stones) and board.move_number the number of moves played so "
    "far, so board.move_number - board.played_at[p] is 1 for the stone of the last move. "
    "np.flatnonzero(board.stones) lists the points with a stone; divmod(p, board.size) gives "
    "its row and column.")


# -------------------------------------------------------------- self_atari


def _self_atari_skeleton(board):
    """The 8 "self-atari size" planes of ``board``, shape (size, size, 8):
    for each legal move after which the player's group holding the new
    stone has exactly one liberty, a 1 in plane k - 1 if that group has k
    stones (plane 7: 8 or more); 0 everywhere else."""
    raise NotImplementedError  # your code here


def _self_atari_solution(board):
    n = board.size
    planes = np.zeros((n, n, 8), np.uint8)
    for move in np.flatnonzero(board.legal_moves()[:-1]):
        after = board.copy()
        after.play(int(move))
        head = after.group[move]  # the stone that stands for the new stone's group
        if after.liberties[head] == 1:
            row, col = divmod(int(move), n)
            planes[row, col, min(after.group_size[head], 8) - 1] = 1
    return planes


def _check_self_atari(answer, boards):
    expected = _compare_with_encoder(answer, boards, "self-atari size")
    moves = sum(int(planes.sum()) for planes in expected)
    larger = sum(int(planes[..., 1:].sum()) for planes in expected)
    return (f"the encoder's 8 'self-atari size' planes on all {len(boards)} positions: "
            f"{moves:,} legal moves put the player's own group in atari, {larger:,} of them "
            f"a group of two stones or more")


self_atari = Exercise(
    "self_atari", "the 'self-atari size' planes", _check_self_atari, _self_atari_solution,
    _self_atari_skeleton,
    "Two ways: the notebook's group_and_liberties on the stones after the move (as "
    "what_the_move_does does, captures taken off first), or the board's own bookkeeping: "
    "after = board.copy(); after.play(move); head = after.group[move]; then "
    "after.liberties[head] and after.group_size[head] are the new group's liberties and "
    "stones. Only the legal moves: np.flatnonzero(board.legal_moves()[:-1]).")


# ------------------------------------------------------- board_and_history

# The planes that show the stones and when they were played, nothing worked
# out from the rules (AlphaGo's "raw board position and move history").
BOARD_AND_HISTORY = ("player stones", "opponent stones", "empty points", "ones", "turns since")


def _board_and_history_skeleton(plane_names):
    """The indices (into ``plane_names``, the encoder's 48) of the planes
    that show only the stones and how many moves ago each was played:
    stone colour, ones and turns since."""
    raise NotImplementedError  # your code here


def _board_and_history_solution(plane_names):
    wanted = ("player stones", "opponent stones", "empty points", "ones", "turns since")
    return [i for i, name in enumerate(plane_names) if name.split(":")[0] in wanted]


def _is_board_and_history(name):
    return name.split(":")[0] in BOARD_AND_HISTORY


QUICK = preset("01_supervised", quick=True)  # the network of notebook 01's quick mode


def train_and_score(dataset, planes, steps, layers=QUICK.layers, filters=QUICK.filters,
                    batch_size=QUICK.batch_size, learning_rate=QUICK.learning_rate,
                    test_positions=2048, seed=0):
    """For each list of plane indices in ``planes``, a policy network of
    ``layers`` x ``filters`` (:func:`mockgo.learn.supervised.build_policy`;
    by default the size of notebook 01's quick mode) that reads only those
    planes, all trained side by side on the same ``steps`` batches of the
    dataset's train split (a random symmetry each, Adam at
    ``learning_rate``); returns each one's top-1 accuracy (over all points)
    on the first ``test_positions`` positions of the test split."""
    from mockgo.learn.supervised import build_policy, compile_policy  # Keras: only when run

    size = read_manifest(dataset)["spec"]["board_size"]
    networks = []
    for chosen in planes:
        network = build_policy(layers, filters, board_size=size, planes=len(chosen), seed=seed)
        networks.append(compile_policy(network, learning_rate=learning_rate, jit_compile=False))
    train = batches(dataset, "train", batch_size, shuffle=True, augment=True, seed=seed,
                    repeat=True, shards_in_memory=1)
    for _, (x, moves) in zip(range(steps), train):
        for network, chosen in zip(networks, planes):
            network.train_on_batch(x[..., chosen], moves)
    train.close()
    hits, seen = np.zeros(len(planes)), 0
    for x, moves in batches(dataset, "test", 512, shuffle=False, augment=False,
                            shards_in_memory=1):
        x, moves = x[:test_positions - seen], moves[:test_positions - seen]
        for k, (network, chosen) in enumerate(zip(networks, planes)):
            # A plain call: predict_on_batch would compile a function for four batches.
            probabilities = np.asarray(network(x[..., chosen], training=False))
            hits[k] += int((probabilities.argmax(axis=1) == moves).sum())
        seen += len(moves)
        if seen >= test_positions:
            break
    return [float(h / seen) for h in hits]


def _check_board_and_history(answer, plane_names, dataset, steps, **training):
    chosen = [int(i) for i in answer(list(plane_names))]
    if not chosen or any(not 0 <= i < len(plane_names) for i in chosen):
        raise NotYet(f"the answer should be indices from 0 to {len(plane_names) - 1}, "
                     f"not {chosen}")
    # The zeros plane shows nothing at all: taken or left, it changes nothing.
    extra = [plane_names[i] for i in chosen
             if not _is_board_and_history(plane_names[i]) and plane_names[i] != "zeros"]
    missing = [name for i, name in enumerate(plane_names)
               if _is_board_and_history(name) and i not in chosen]
    if extra:
        raise NotYet(f"{', '.join(extra)}: worked out from the rules, not the board and its "
                     f"history")
    if missing:
        raise NotYet(f"missing: {', '.join(missing)}")
    chosen = sorted(set(chosen))
    few, every = train_and_score(dataset, [chosen, list(range(len(plane_names)))], steps,
                                 **training)
    return (f"the {len(chosen)} planes of the board and its history; trained side by side for "
            f"{steps:,} batches, the network on them predicts {few:.1%} of the test moves, the "
            f"one on all {len(plane_names)} planes {every:.1%} (the favourite of all the points, "
            f"legal or not: section 5 picks among the legal ones only, which scores at least "
            f"as high)")


board_and_history = Exercise(
    "board_and_history", "a network on fewer planes", _check_board_and_history,
    _board_and_history_solution, _board_and_history_skeleton,
    "The names are in encoder.plane_names: 'player stones', 'opponent stones', 'empty "
    "points', 'ones' and the 8 'turns since: ...' planes. A list comprehension over "
    "enumerate(plane_names) with name.startswith(...) or name.split(':')[0] picks them.")
