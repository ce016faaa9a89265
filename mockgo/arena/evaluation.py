"""How often a policy network predicts the expert's move, beside two baselines.

A policy network is scored the way AlphaGo's paper scores its SL policy: on
positions of games it never saw, how often the move the expert played is the
network's most probable move (*top-1 accuracy*), or among its five most
probable (*top-5*). Here every game is replayed with the rules engine, so the
network's probabilities are first restricted to the legal points
(:func:`mockgo.nets.inference.masked_policy`), and the same positions score two
baselines:

- **uniform**: a move drawn at random among the legal points. Its accuracy
  is computed exactly, not sampled: ``1 / L`` for top-1 and ``min(5, L) / L``
  for top-5 in a position with ``L`` legal points, averaged over positions.
- **heuristic**: a hand-written rule, measured the same way. It ranks the
  legal points by, in order: (1) the number of opponent stones the move
  captures, most first; (2) being next to (one of the four neighbours of)
  the opponent's last move, which is where most replies are played; (3) the
  liberties of the mover's group after the move, most first. Points that
  tie on all three are taken as a random pick among them, again computed
  exactly (see :func:`expected_hits`). The three keys are read off
  AlphaGo's own feature planes (``alphago48``'s "capture size" and
  "liberties after move"), so the rule sees what the network sees, minus
  what it learns.

Positions where the expert passed are not scored (AlphaGo's policy network,
like :func:`mockgo.nets.models.policy_network`'s default, has no pass), nor are
moves played out of turn (old KGS handicap games have black put its free
handicap stones down as moves in a row; the planes show the position from
the side to move), nor moves after one that the rules forbid
(:func:`mockgo.data.sgf_reader.replay` stops there).

Accuracy by move number: positions are grouped by the number of moves played
before them (``0-19``, ``20-39``, ... with ``bucket_size=20``): openings are
learned well, fights in the middle game less so.

::

    result = evaluate_split(model, "runs/ds", "test")        # the held-out games
    result = evaluate_sgf(model, ["data/kgs/KGS-2017_06-19-910-.tar.gz"])
    print(result)                     # a table: method, positions, top-1, top-5
    result.scores["model"].top1, result.scores["uniform"].top5
    result.scores["model"].by_move    # [MoveBucket(first=0, last=19, ...), ...]

The same from a shell, on games a model never saw (``mockgo evaluate --help``)::

    mockgo evaluate runs/01_supervised/full/policy.keras more-games/ KGS-2018_01-19-x-.tar.gz
    mockgo evaluate sl-19 KGS-2018_01-19-x-.tar.gz         # a network that ships with mockgo
    mockgo evaluate policy:pretrained=sl-19 games/         # or a policy player's spec
"""

import dataclasses
import json
import warnings
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from mockgo import pretrained
from mockgo.data import archives, sgf_reader
from mockgo.data.dataset import read_manifest, split_of
from mockgo.data.files import atomic_write_text
from mockgo.errors import InputError
from mockgo.go.features import ALPHAGO48, ENCODERS, get_encoder
from mockgo.nets.io import load_model, model_info
from mockgo.play.specs import parse_spec

__all__ = [
    "Evaluation", "MoveBucket", "Scores", "by_move_number", "configure_parser",
    "evaluate_positions", "evaluate_sgf", "evaluate_split", "expected_hits", "heuristic_scores",
    "move_probabilities", "plot_accuracy_by_move", "policy_file", "position_at", "run_cli",
    "split_games",
    "split_sources", "uniform_accuracy",
]

METHODS = ("model", "uniform", "heuristic")
# How many float32 roundings apart two scores may be and still tie (expected_hits).
TIE_ROUNDINGS = 8


# ----------------------------------------------------------- the numbers


@dataclasses.dataclass
class MoveBucket:
    """Top-1 and top-5 over one stretch of the games' moves (move numbers first to last)."""

    first: int  # move numbers first..last (0-based: moves played before)
    last: int
    positions: int
    top1: float
    top5: float

    @property
    def label(self):
        return f"{self.first}-{self.last}"


@dataclasses.dataclass
class Scores:
    """One method's accuracy over a set of positions."""

    method: str
    positions: int
    top1: float
    top5: float
    by_move: list  # of MoveBucket


@dataclasses.dataclass
class Evaluation:
    """The scores of the model and the baselines on the same positions."""

    games: int
    scores: dict  # method -> Scores

    def table(self):
        """Rows ``(method, positions, top-1, top-5)``."""
        return [(s.method, s.positions, s.top1, s.top5) for s in self.scores.values()]

    def to_json(self):
        """The scores as a dict of plain numbers and lists, for ``json.dumps``."""
        return {"games": self.games,
                "scores": {method: dataclasses.asdict(s) for method, s in self.scores.items()}}

    def __str__(self):
        lines = [f"{'method':<10} {'positions':>10} {'top-1':>7} {'top-5':>7}"]
        for method, positions, top1, top5 in self.table():
            lines.append(f"{method:<10} {positions:>10,} {top1:>7.1%} {top5:>7.1%}")
        return "\n".join(lines) + f"\n({self.games:,} games)"


def expected_hits(scores, legal, move, k):
    """The chance that ``move`` is among the ``k`` best-scored legal points
    when ties are broken at random, for each row: with ``g`` legal points
    scored above the move and ``t`` tied with it (itself included), it is
    ``clip(k - g, 0, t) / t``.

    ``scores``: (n, points) floats; ``legal``: (n, points) booleans (the
    move must be legal); ``move``: (n,) indices. A scorer that scores every
    point alike is the uniform baseline: ``min(k, L) / L``.
    """
    scores = np.asarray(scores, np.float64)
    legal = np.asarray(legal, bool)
    rows = np.arange(len(move))
    mine = scores[rows, move][:, None]
    # Scores within a few float32 roundings of each other are tied: equal
    # logits need not give bit-equal softmax probabilities (a vectorised exp
    # rounds the lanes of a SIMD register and its remainder differently).
    slack = TIE_ROUNDINGS * np.finfo(np.float32).eps * np.abs(mine)
    above = ((scores > mine + slack) & legal).sum(axis=1)
    tied = ((np.abs(scores - mine) <= slack) & legal).sum(axis=1)
    if not legal[rows, move].all():
        raise ValueError("an expert move is not among the legal points")
    return np.clip(k - above, 0, tied) / tied


def uniform_accuracy(legal_counts, k=1):
    """The exact expected top-``k`` accuracy of a uniformly random legal
    move, for each position with that many legal points: ``min(k, L) / L``."""
    counts = np.asarray(legal_counts, np.float64)
    return np.minimum(k, counts) / counts


def _plane_index(encoder, prefix):
    return [i for i, name in enumerate(encoder.plane_names) if name.startswith(prefix)]


def heuristic_scores(planes, last_moves, size=19, encoder=None):
    """The heuristic's score of every point (module docstring), from
    ``alphago48`` planes ``(n, N, N, 48)`` and the opponent's last move of
    each position (a flat index, or None/-1/pass for none): ``100 *
    captured + 10 * next to the last move + liberties after``, shape
    ``(n, N*N)``. Only the order matters, and only among legal points."""
    encoder = encoder or get_encoder(ALPHAGO48, size)
    planes = np.asarray(planes).reshape(len(planes), size * size, -1)
    capture = planes[:, :, _plane_index(encoder, "capture size:")]  # one-hot 0..7+
    liberties = planes[:, :, _plane_index(encoder, "liberties after move:")]  # 1..8+
    captured = (capture * np.arange(capture.shape[-1])).sum(axis=-1)
    liberties_after = (liberties * np.arange(1, liberties.shape[-1] + 1)).sum(axis=-1)
    near_last = np.zeros((len(planes), size * size), bool)
    for row, last in enumerate(last_moves):
        if last is None or last < 0 or last >= size * size:
            continue
        r, c = divmod(int(last), size)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            if 0 <= r + dr < size and 0 <= c + dc < size:
                near_last[row, (r + dr) * size + c + dc] = True
    return 100.0 * captured + 10.0 * near_last + liberties_after


def by_move_number(move_numbers, top1, top5, bucket_size=20):
    """Group positions by move number into buckets of ``bucket_size``:
    a list of :class:`MoveBucket` (empty buckets left out), in order."""
    move_numbers = np.asarray(move_numbers)
    top1, top5 = np.asarray(top1, np.float64), np.asarray(top5, np.float64)
    buckets = move_numbers // bucket_size
    out = []
    for b in np.unique(buckets):
        chosen = buckets == b
        out.append(MoveBucket(first=int(b * bucket_size), last=int(b * bucket_size + bucket_size - 1),
                              positions=int(chosen.sum()), top1=float(top1[chosen].mean()),
                              top5=float(top5[chosen].mean())))
    return out


def _scores(method, hits1, hits5, move_numbers, bucket_size):
    hits1, hits5 = np.asarray(hits1, np.float64), np.asarray(hits5, np.float64)
    n = len(hits1)
    return Scores(method=method, positions=n,
                  top1=float(hits1.mean()) if n else float("nan"),
                  top5=float(hits5.mean()) if n else float("nan"),
                  by_move=by_move_number(move_numbers, hits1, hits5, bucket_size))


# ------------------------------------------------------------ evaluating


def _model_encoder(model, encoder):
    """The Encoder of ``model``'s planes: ``encoder`` (an Encoder, or a name),
    or None: the one the network records (:func:`mockgo.nets.io.model_info`)."""

    if encoder is not None and not isinstance(encoder, str):
        return encoder
    info = model_info(model, encoder)
    return get_encoder(info.encoder, info.board_size)


def evaluate_positions(predictor, planes, legal, moves, heuristic_planes, last_moves,
                       heuristic_encoder=None):
    """Hits of the three methods on one batch of positions: a dict
    ``method -> (top-1 hits, top-5 hits)`` (floats in [0, 1], expected
    values for the baselines). ``legal``: (n, N*N) booleans, legal points;
    ``heuristic_encoder``: the ``alphago48`` encoder of ``heuristic_planes``
    (made here when not given)."""
    from mockgo.nets.inference import \
        masked_policy  # TensorFlow: imported only when a network is used

    n, points = legal.shape
    probabilities = predictor.predict(planes)
    if isinstance(probabilities, tuple):  # a dual network: its policy (value second)
        probabilities = probabilities[0]
    masks = np.concatenate([legal, np.zeros((n, 1), bool)], axis=1)  # pass: not scored
    policy = masked_policy(probabilities, masks)[:, :points]
    heuristic = heuristic_scores(heuristic_planes, last_moves, int(round(points ** 0.5)),
                                 heuristic_encoder)
    counts = legal.sum(axis=1)
    return {
        "model": (expected_hits(policy, legal, moves, 1), expected_hits(policy, legal, moves, 5)),
        "uniform": (uniform_accuracy(counts, 1), uniform_accuracy(counts, 5)),
        "heuristic": (expected_hits(heuristic, legal, moves, 1),
                      expected_hits(heuristic, legal, moves, 5)),
    }


def _games(sources, keep, max_games, split=None):
    """GameRecords of the SGF files in ``sources`` (files, folders, archives),
    only those named in ``keep`` (source names) when given, and only those
    whose file name hashes to ``split`` (:func:`mockgo.data.dataset.split_of`)
    when given."""
    taken = 0
    for path in sources:
        for source, data in archives.sgf_sources(Path(path)):
            if keep is not None and source not in keep:
                continue
            if split is not None and split_of(source) != split:
                continue
            if isinstance(data, Exception):
                continue
            try:
                record = sgf_reader.read_sgf(data, source)
            except sgf_reader.SGFError:
                continue
            yield record
            taken += 1
            if max_games is not None and taken >= max_games:
                return


def evaluate_sgf(model, sources, encoder=None, batch_size=256, bucket_size=20,
                 keep=None, max_games=None, progress=True, split=None):
    """Score ``model`` (a policy network) and the baselines on every move of
    the SGF games in ``sources`` (files, folders or archives; one path or a
    list): replay each game, encode each position with ``encoder`` (the
    planes the model was trained on), predict in batches of ``batch_size``
    through a :class:`mockgo.nets.inference.Predictor`, mask illegal points, and
    compare with the move played. Games on another board size than the
    model's are skipped, as are files that do not parse.

    ``keep``: a set of source names (``archive:member`` as
    :func:`mockgo.data.archives.sgf_sources` names them) to score only those
    games; ``split``: score only the games a dataset would put in that split
    (``"test"``: games no network trained on these archives has seen, by
    the hash of their file name); ``max_games``: stop after that many.
    Returns an :class:`Evaluation`.
    """
    from mockgo.nets.inference import Predictor  # TensorFlow: imported only when a network is used

    if isinstance(sources, (str, Path)):
        sources = [sources]
    encoder = _model_encoder(model, encoder)
    size = encoder.size
    heuristic_encoder = encoder if encoder.name == ALPHAGO48 else get_encoder(ALPHAGO48, size)
    predictor = Predictor(model, batch_size=batch_size)
    points = size * size
    move_number_parts = []
    hits = {method: ([], []) for method in METHODS}
    buffer = {"planes": [], "heuristic": [], "legal": [], "move": [], "last": [], "number": []}

    def flush():
        if not buffer["move"]:
            return
        planes = np.stack(buffer["planes"])
        heuristic_planes = planes if heuristic_encoder is encoder else np.stack(buffer["heuristic"])
        result = evaluate_positions(predictor, planes, np.stack(buffer["legal"]),
                                    np.array(buffer["move"]), heuristic_planes, buffer["last"],
                                    heuristic_encoder)
        for method, (h1, h5) in result.items():
            hits[method][0].append(h1)
            hits[method][1].append(h5)
        move_number_parts.append(np.array(buffer["number"]))
        for values in buffer.values():
            values.clear()

    total = len(keep) if keep is not None else None
    if max_games is not None:
        total = max_games if total is None else min(total, max_games)
    bar = _progress(progress, total)
    games = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sgf_reader.SGFWarning)  # replay stops at illegal moves
        for record in _games(sources, keep, max_games, split):
            bar.update(1)
            if record.size != size:
                continue
            games += 1
            for board, color, move in sgf_reader.replay(record):
                if move == points or color != board.to_play:  # not scored (module docstring)
                    continue
                buffer["planes"].append(encoder.encode(board))
                if heuristic_encoder is not encoder:
                    buffer["heuristic"].append(heuristic_encoder.encode(board))
                buffer["legal"].append(board.legal_moves()[:points])
                buffer["move"].append(move)
                last = board.last_move
                buffer["last"].append(-1 if last is None else int(last))
                buffer["number"].append(board.move_number)
                if len(buffer["move"]) >= batch_size:
                    flush()
    flush()
    bar.close()
    move_numbers = np.concatenate(move_number_parts) if move_number_parts else np.zeros(0, int)
    scores = {}
    for method, (h1, h5) in hits.items():
        h1 = np.concatenate(h1) if h1 else np.zeros(0)
        h5 = np.concatenate(h5) if h5 else np.zeros(0)
        scores[method] = _scores(method, h1, h5, move_numbers, bucket_size)
    return Evaluation(games=games, scores=scores)


def split_sources(dataset_dir, split="test"):
    """The games of one split of a dataset: ``(paths to read, source names
    to keep)``, from its ``games.tsv`` and ``dataset.json``."""

    manifest = read_manifest(dataset_dir)
    keep = set()
    for line in (Path(dataset_dir) / "games.tsv").read_text(encoding="utf-8").splitlines():
        _, game_split, source = line.split("\t", 2)
        if game_split == split:
            keep.add(source)
    return manifest["sources"], keep


def evaluate_split(model, dataset_dir, split="test", encoder=None, **options):
    """:func:`evaluate_sgf` on the games of one split of a dataset (by
    default the test split: games the model never trained on), replayed from
    the SGF sources the dataset was built from. ``encoder`` defaults to the
    dataset's. Other options as for :func:`evaluate_sgf`."""

    paths, keep = split_sources(dataset_dir, split)
    if not keep:
        raise ValueError(f"the {split} split of {dataset_dir} has no games")
    encoder = encoder or read_manifest(dataset_dir)["spec"]["encoder"]
    return evaluate_sgf(model, paths, encoder=encoder, keep=keep, **options)


def _progress(enabled, total):
    return tqdm(total=total, unit="game", desc="evaluating", disable=not enabled)


# ------------------------------------------------------- one position


def position_at(record, move_number):
    """The position before move ``move_number`` (0-based: that many moves
    played) of a game record, and the move the player then played:
    ``(board, move)``, the board a copy the caller may keep."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sgf_reader.SGFWarning)
        for board, _, move in sgf_reader.replay(record):
            if board.move_number == move_number:
                return board.copy(), move
    raise ValueError(f"{record.source} has no move {move_number} (it has {len(record.moves)})")


def move_probabilities(model, board, encoder=None):
    """The model's probabilities of the legal moves of ``board`` (N*N + 1,
    pass last, renormalised after masking the illegal ones)."""
    from mockgo.nets.inference import (  # TensorFlow: imported only when a network is used
        Predictor, masked_policy)

    encoder = _model_encoder(model, encoder)
    probabilities = Predictor(model, batch_size=1).predict(encoder.encode(board))
    return masked_policy(probabilities, board.legal_moves())


def near_miss(model, games, first_move=30, top=5, encoder=None):
    """The first position, from move ``first_move`` on, of the first of
    ``games`` (GameRecords) where the network's most probable legal move is
    *not* the move the player chose, but that move is among the network's
    ``top`` most probable: the kind of position that makes top-1 and top-5
    accuracy differ, and shows what else the network considered.

    Returns ``(board, played, probabilities)`` (the board a copy, the move
    played as a point index, the masked probabilities as
    :func:`move_probabilities` gives them). ValueError when no position of
    the games is such a near miss. Each game's positions are evaluated in
    one batch."""
    from mockgo.nets.inference import (  # TensorFlow: imported only when a network is used
        Predictor, masked_policy)

    encoder = _model_encoder(model, encoder)
    predictor = Predictor(model)
    for game in games:
        boards, played, planes = [], [], []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sgf_reader.SGFWarning)
            for board, _, move in sgf_reader.replay(game):
                if board.move_number >= first_move and move != board.pass_index:
                    boards.append(board.copy())
                    played.append(move)
                    planes.append(encoder.encode(board))
        if not boards:
            continue
        legal = np.stack([board.legal_moves() for board in boards])
        p = masked_policy(predictor.predict(np.stack(planes)), legal)
        for board, move, row in zip(boards, played, p):
            ranked = np.argsort(-row, kind="stable")
            if ranked[0] != move and move in ranked[:top]:
                return board, move, row
    raise ValueError(f"no position from move {first_move} on, in these games, has the move "
                     f"played among the network's top {top} but not first")


def split_games(dataset_dir, split="test"):
    """The GameRecords of one split of a dataset, read from its sources."""
    paths, keep = split_sources(dataset_dir, split)
    yield from _games(paths, keep, None)


# -------------------------------------------------------------- a picture


def plot_accuracy_by_move(evaluation, k=1, ax=None, methods=METHODS, title=None):
    """Top-``k`` accuracy (k = 1 or 5) by move number, one line per method,
    with the number of positions per bucket as grey bars behind."""
    import matplotlib.pyplot as plt  # matplotlib: imported only for a plot

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3.5))
    reference = evaluation.scores[methods[0]].by_move
    x = np.arange(len(reference))
    counts = ax.twinx()
    counts.bar(x, [b.positions for b in reference], color="0.85", zorder=0)
    counts.set_ylabel("positions", color="0.5")
    ax.set_zorder(counts.get_zorder() + 1)
    ax.patch.set_visible(False)
    for method in methods:
        buckets = evaluation.scores[method].by_move
        ax.plot(x, [getattr(b, f"top{k}") for b in buckets], "o-", label=method)
    ax.set_xticks(x, [b.label for b in reference], rotation=60, fontsize=7)
    ax.set_xlabel("move number")
    ax.set_ylabel(f"top-{k} accuracy")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title or f"top-{k} accuracy by move number")
    return ax


# ------------------------------------------------------ the command line


def policy_file(network):
    """The ``.keras`` file a command line names as ``network``: a file path,
    the name of a network that ships with mockgo (``sl-19``), or a policy
    player's spec (``policy:pretrained=sl-19``, ``policy:path=net.keras``;
    :mod:`mockgo.play.specs`). Only the file is taken from a spec: the
    network is scored on its probabilities, not on the moves a player would
    sample. FileNotFoundError or ValueError naming what was given."""
    if Path(network).is_file():
        return Path(network)
    if network in pretrained.names():
        return pretrained.checked_path(network)
    if ":" not in network:
        raise FileNotFoundError(f"{network} is neither a model file, nor a network that ships "
                                f"with mockgo ({', '.join(pretrained.names())}), nor a player "
                                f"spec such as policy:pretrained=sl-19")
    kind, options = parse_spec(network)
    file_options = {key: options[key] for key in ("path", "pretrained") if key in options}
    if kind != "policy" or len(file_options) != 1:
        raise ValueError(f"{network}: mockgo evaluate scores a policy network; give a file, a "
                         f"shipped name, or policy:path=FILE or policy:pretrained=NAME")
    if "pretrained" in file_options:
        return pretrained.checked_path(file_options["pretrained"])
    if not Path(file_options["path"]).is_file():
        raise FileNotFoundError(f"no model file {file_options['path']} (in {network})")
    return Path(file_options["path"])


def configure_parser(parser):
    """The options of ``mockgo evaluate``."""
    parser.description = (
        "Score a policy network on every move of SGF games (files, folders, .tar.gz or .zip "
        "archives): top-1 and top-5 accuracy beside the uniform and heuristic baselines.")
    parser.add_argument("model", help="a policy network: a .keras file (notebook 01 saves "
                                      "runs/01_supervised/{quick,full}/policy.keras), the name "
                                      "of one that ships (mockgo models), or a player spec "
                                      "such as policy:pretrained=sl-19")
    parser.add_argument("sources", nargs="+", help="SGF files, folders or archives")
    parser.add_argument("--encoder", choices=sorted(ENCODERS),
                        help="the feature planes the model was trained on (default: what the "
                             "file records; for a file saved before mockgo recorded it, the "
                             "encoder with as many planes as its input)")
    parser.add_argument("--max-games", type=int, help="stop after this many games")
    parser.add_argument("--batch-size", type=int, default=256,
                        help="positions per network call (default 256)")
    parser.add_argument("--by-move", type=int, metavar="N", default=0,
                        help="also print accuracy by move number, in buckets of N moves")
    parser.add_argument("--json", metavar="FILE",
                        help="also write the scores (with the buckets) to FILE as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def run_cli(args):
    """``mockgo evaluate``: score the network on the games the options name."""
    for source in args.sources:
        if not Path(source).exists():
            raise InputError(f"no such SGF file, folder or archive: {source}")
    try:
        model_path = policy_file(args.model)
    except (FileNotFoundError, ValueError) as error:
        raise InputError(str(error)) from None
    model = load_model(model_path, encoder=args.encoder)
    info = model_info(model)
    if info.kind == "value":
        raise ValueError(f"{model_path} is a value network: mockgo evaluate scores policies")
    encoder = get_encoder(info.encoder, info.board_size)
    result = evaluate_sgf(model, args.sources, encoder=encoder, batch_size=args.batch_size,
                          bucket_size=args.by_move or 20, max_games=args.max_games,
                          progress=not args.quiet)
    if result.games == 0:
        raise ValueError(f"no {encoder.size}x{encoder.size} game in {', '.join(args.sources)}")
    print(result)
    if args.by_move:
        print(f"\n{'moves':<10} {'positions':>10} " + " ".join(
            f"{method + ' top-1':>15}" for method in result.scores))
        buckets = zip(*(s.by_move for s in result.scores.values()))
        for row in buckets:
            print(f"{row[0].label:<10} {row[0].positions:>10,} " + " ".join(
                f"{b.top1:>15.1%}" for b in row))
    if args.json:
        atomic_write_text(args.json, json.dumps(result.to_json(), indent=1) + "\n")
    return 0
