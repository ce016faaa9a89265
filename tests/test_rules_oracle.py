"""mockgo's rules checked against GnuGo's, move by move.

Random games are played through mockgo and through GnuGo 3.8 (GTP mode,
``--chinese-rules --positional-superko``) side by side. Before every move
the legality of every point, for both colours, must agree; after every
move the stones and the capture counts must agree; at the end of a game
played out to single-point eyes the area scores must agree. Smaller tests
compare ``showboard`` with ``str(board)`` and ``fixed_handicap`` with
``fixed_handicap_points``.

A failure names the board size, the game's seed and the number of moves
played, and shows the board and the moves as GTP vertices (black first, the
colours alternate), so the game can be replayed in GnuGo by hand.

What GnuGo does differently, and how these tests allow for it:

- Superko. GnuGo checks positional superko in ``is_legal``, ``all_legal``
  and ``play`` (``is_allowed_move`` in its board.c) by comparing Zobrist
  hashes with a history of at most 500 moves (MAX_MOVE_HISTORY). When that
  history is full, ``play_move`` folds the oldest 51 moves into its initial
  position by replaying them, which leaves ``board_hash`` off by the hash
  of the stones those moves changed. From then on the hashes stored before the fold no
  longer match new ones, so after move 500, and again every 51 moves, GnuGo
  forgets every earlier position: a move that repeats only such a position
  is legal to GnuGo and illegal (SUPERKO) to mockgo.
  ``test_gnugo_forgets_positions_when_its_history_is_full`` shows this with
  500 passes. Only long 19x19 games get that far. Where the verdicts differ
  this way, the test checks mockgo's verdict on its own terms: the position
  after the move is worked out in plain Python and must be in the game's
  history. It also checks that GnuGo really has forgotten every earlier
  occurrence (``gnugo_superko_memory_start``) and counts these cases. Any
  other difference fails, and so does every SUPERKO verdict of mockgo's
  that the plain-Python replay does not confirm, whatever GnuGo says.
  Simple ko has to agree exactly.
- Dead stones. ``final_score`` takes off the stones GnuGo judges dead;
  Tromp-Taylor, and so ``Board.result``, counts every stone on the board.
  Games played out until neither player has a move left that does not fill
  one of its own eyes leave nothing for GnuGo to call dead: it lists no
  dead stones in any of the games here (nor in 1000 other random 9x9
  games tried while writing this). Dead stones did show up when a random pass was
  allowed while the opponent had no move left: the opponent passed too,
  and the game ended with groups still in atari, which GnuGo rightly
  judges dead; ``choose_move`` no longer passes then. The score is still
  checked so as to survive such a case: with no dead stones GnuGo's score
  must equal ``board.result()``; in every game it must equal
  ``board.area_score(dead=...)`` with GnuGo's list of dead stones; and
  games with no dead stones must be the large majority.
- ``fixed_handicap`` on 12x12: GnuGo uses the 4-4 points on boards larger
  than 11x11. The GTP specification, followed by mockgo (and by gomill's
  handicap_layout), uses the 3-3 points below 13x13. Every other size from
  2 to 19 agrees.
"""

import random

import numpy as np
import pytest

from mockgo.go import coords
from mockgo.go.board import BLACK, COLOR_NAMES, EMPTY, KO, SUPERKO, WHITE, Board
from mockgo.go.handicap import fixed_handicap_points
from mockgo.play.gtp_engine import GTPEngine, GTPError, gnugo_command

KOMI = 7.5


@pytest.fixture(scope="module")
def gnugo(gnugo_path):
    with GTPEngine(gnugo_command(level=0, binary=gnugo_path)) as engine:
        yield engine


def new_game(gnugo, size, komi=KOMI):
    gnugo.send_many([f"boardsize {size}", "clear_board", f"komi {komi}"])
    return Board(size, komi=komi)


def vertices(text, size):
    """A GTP vertex list (spaces or newlines between) as a set of points."""
    return {coords.from_gtp(vertex, size) for vertex in text.split()}


def points(mask):
    return set(np.flatnonzero(mask).tolist())


def parse_score(text):
    """GnuGo's ``W+7.5``, ``B+3.0`` or ``0`` as black's lead."""
    if text == "0":
        return 0.0
    return float(text[2:]) * (1 if text[0] == "B" else -1)


# ---------------------------------------------- rules in plain Python

def neighbour_lists(size):
    result = []
    for p in range(size * size):
        row, col = divmod(p, size)
        result.append([r * size + c for r, c in ((row - 1, col), (row + 1, col),
                                                 (row, col - 1), (row, col + 1))
                       if 0 <= r < size and 0 <= c < size])
    return result


def plain_play(stones, neighbours, p, color):
    """The stones after ``color`` plays on empty point ``p``, by the book:
    opponent groups left without liberties go, then the player's own group
    must have one. None for a suicide. ``stones`` is a tuple."""
    after = list(stones)
    after[p] = color

    def group_and_liberty(start):
        group, todo, free = {start}, [start], False
        while todo:
            for n in neighbours[todo.pop()]:
                if after[n] == EMPTY:
                    free = True
                elif after[n] == after[start] and n not in group:
                    group.add(n)
                    todo.append(n)
        return group, free

    for n in neighbours[p]:
        if after[n] == 3 - color:
            group, free = group_and_liberty(n)
            if not free:
                for q in group:
                    after[q] = EMPTY
    return tuple(after) if group_and_liberty(p)[1] else None


# GnuGo's move history (see the module docstring): full at 500 moves, and
# then 51 moves are folded into the initial position, which spoils the hash.
GNUGO_MAX_MOVE_HISTORY = 500
GNUGO_FOLDED_MOVES = 1 + GNUGO_MAX_MOVE_HISTORY // 10


def gnugo_superko_memory_start(moves_played):
    """The first position (numbered by the moves before it) that GnuGo's
    superko check can still match after ``moves_played`` moves: 0 until its
    move history first fills up, then the position before the last fold."""
    if moves_played <= GNUGO_MAX_MOVE_HISTORY:
        return 0
    folds = (moves_played - GNUGO_MAX_MOVE_HISTORY - 1) // GNUGO_FOLDED_MOVES
    return GNUGO_MAX_MOVE_HISTORY + folds * GNUGO_FOLDED_MOVES


# ---------------------------------------------------- a checked game

class CheckedGame:
    """One random game, played in mockgo and GnuGo at once and compared
    after every move. ``stats`` counts what was seen, over many games."""

    def __init__(self, gnugo, size, seed, stats):
        self.gnugo, self.size, self.seed, self.stats = gnugo, size, seed, stats
        self.rng = random.Random(size * 1_000_003 + seed)
        self.board = new_game(gnugo, size)
        self.neighbours = neighbour_lists(size)
        # Every position so far, as plain tuples: positions[k] is the one
        # after k moves (passes included).
        self.positions = [tuple(self.board.stones.tolist())]
        self.retake = {}  # colour -> a ko point it was not allowed to retake

    def fail(self, message):
        moves = " ".join(coords.to_gtp(move, self.size) for _, move in self.board.history)
        pytest.fail(f"{self.size}x{self.size} game seed {self.seed}, after "
                    f"{self.board.move_number} moves: {message}\n{self.board}\n"
                    f"the moves (black first): {moves}", pytrace=False)

    def gtp(self, p):
        return coords.to_gtp(p, self.size)

    def play(self):
        """Play the game out; return True if it ended with two passes."""
        size, board = self.size, self.board
        answers = self.gnugo.send_many(["all_legal black", "all_legal white"])
        while board.passes < 2 and board.move_number < 3 * size * size:
            self.check_legality(answers[0], answers[1])
            if board.move_number % 40 == 0:
                self.check_all_legal_is_is_legal(answers[0])
            color, move = board.to_play, self.choose_move()
            board.play(move)
            self.positions.append(tuple(board.stones.tolist()))
            answers = self.gnugo.send_many([
                f"play {COLOR_NAMES[color]} {self.gtp(move)}",
                "list_stones black", "list_stones white", "captures black", "captures white",
                "all_legal black", "all_legal white"])
            if isinstance(answers[0], GTPError):
                self.fail(f"GnuGo refuses {COLOR_NAMES[color]} {self.gtp(move)}: {answers[0]}")
            for color_name, color, text in (("black", BLACK, answers[1]),
                                             ("white", WHITE, answers[2])):
                if vertices(text, size) != points(board.stones == color):
                    self.fail(f"{color_name} stones differ; GnuGo has {text}")
            ours = (board.captures[BLACK], board.captures[WHITE])
            if (int(answers[3]), int(answers[4])) != ours:
                self.fail(f"captures (by black, by white) differ: GnuGo {answers[3]}, "
                          f"{answers[4]}; mockgo {ours[0]}, {ours[1]}")
            answers = answers[5:]
        self.stats["games"] += 1
        self.stats["moves"] += board.move_number
        return board.passes >= 2

    def check_legality(self, gnugo_black, gnugo_white):
        board = self.board
        for color, text in ((BLACK, gnugo_black), (WHITE, gnugo_white)):
            strict = board.legal_moves(color)[:-1]
            board.superko = False
            loose = board.legal_moves(color)[:-1]
            board.superko = True
            for p in points(loose & ~strict):  # what superko alone forbids
                self.stats["superko verdicts"] += 1
                if plain_play(self.positions[-1], self.neighbours, p, color) not in self.positions:
                    self.fail(f"mockgo says {COLOR_NAMES[color]} {self.gtp(p)} repeats a "
                              f"position (superko), but replaying the game says it does not")
            gnugo_legal = vertices(text, self.size)
            for p in sorted(points(strict) ^ gnugo_legal):
                self.explain_difference(p, color, p in gnugo_legal)

    def explain_difference(self, p, color, gnugo_says_legal):
        """Accept a difference only if GnuGo has forgotten the position a
        superko move repeats (see the module docstring); otherwise fail."""
        board, move = self.board, f"{COLOR_NAMES[color]} {self.gtp(p)}"
        reason = board.illegal_reason(p, color)
        after = plain_play(self.positions[-1], self.neighbours, p, color)
        seen_at = [k for k, position in enumerate(self.positions) if position == after]
        detail = (f"mockgo's reason {reason}, the plain-Python replay says "
                  f"{'suicide' if after is None else f'it repeats positions {seen_at}'}")
        if not gnugo_says_legal:
            self.fail(f"{move}: mockgo says legal, GnuGo illegal ({detail})")
        if reason != SUPERKO:
            self.fail(f"{move}: mockgo says illegal, GnuGo legal ({detail})")
        start = gnugo_superko_memory_start(board.move_number)
        if max(seen_at) >= start:
            self.fail(f"{move}: GnuGo allows a move that repeats position {max(seen_at)}, "
                      f"which it should still remember (from {start} on)")
        self.stats["superko moves GnuGo allows"] += 1

    def check_all_legal_is_is_legal(self, gnugo_black):
        empty = sorted(points(self.board.stones == EMPTY))
        answers = self.gnugo.send_many([f"is_legal black {self.gtp(p)}" for p in empty])
        by_is_legal = {p for p, answer in zip(empty, answers) if answer == "1"}
        if by_is_legal != vertices(gnugo_black, self.size):
            self.fail("GnuGo's all_legal and is_legal disagree")

    def choose_move(self):
        """Mostly a uniform choice among the moves that do not fill one's own
        eye, with a bias towards captures, ko retakes and self-atari; now and
        then a pass (never one that would end the game)."""
        board, rng, color = self.board, self.rng, self.board.to_play
        ko_point = self.retake.pop(color, None)  # one it could not retake before
        if board.ko >= 0:
            self.retake[color] = board.ko  # cannot retake now, perhaps later
        sensible = sorted(points(board.sensible_moves()[:-1]))
        if not sensible:
            return board.pass_index
        opponent_can_move = board.sensible_moves(3 - color)[:-1].any()
        if board.passes == 0 and opponent_can_move and rng.random() < 0.02:
            return board.pass_index
        if ko_point in sensible and rng.random() < 0.7:
            self.stats["ko retakes"] += 1
            return ko_point
        roll = rng.random()
        if roll < 0.35:
            liberties = board.liberty_map()
            captures = [p for p in sensible
                        if any(board.stones[n] == 3 - color and liberties[n] == 1
                               for n in self.neighbours[p])]
            if captures:
                self.stats["captures chosen"] += 1
                return rng.choice(captures)
        elif roll < 0.45:
            for p in rng.sample(sensible, min(12, len(sensible))):
                trial = board.copy()
                trial.play(p)
                if trial.liberty_map()[p] == 1:
                    self.stats["self-ataris chosen"] += 1
                    return p
        return rng.choice(sensible)

    def check_score(self):
        answers = self.gnugo.send_many(["final_score", "final_status_list dead"])
        gnugo_score, dead = parse_score(answers[0]), vertices(answers[1], self.size)
        if dead:
            self.stats["games with dead stones"] += 1
        elif gnugo_score != parse_score(self.board.result()):
            self.fail(f"GnuGo scores {answers[0]} (no dead stones), mockgo {self.board.result()}")
        if gnugo_score != self.board.area_score(dead=sorted(dead)):
            self.fail(f"GnuGo scores {answers[0]} with dead stones {answers[1]!r}; mockgo "
                      f"scores {self.board.result(dead=sorted(dead))} without those stones")


def play_checked_games(gnugo, size, seeds):
    stats = {key: 0 for key in (
        "games", "moves", "finished", "games with dead stones", "captures chosen",
        "self-ataris chosen", "ko retakes", "superko verdicts", "superko moves GnuGo allows")}
    for seed in seeds:
        game = CheckedGame(gnugo, size, seed, stats)
        if game.play():
            stats["finished"] += 1
            game.check_score()
    print(f"\n{size}x{size}: {stats}")
    return stats


@pytest.mark.slow
@pytest.mark.parametrize("size, games", [(9, 200), (19, 20), (5, 100), (7, 100)])
def test_random_games_agree_with_gnugo(gnugo, size, games):
    stats = play_checked_games(gnugo, size, range(games))
    # The games must exercise what they are meant to test...
    assert stats["captures chosen"] > games
    assert stats["self-ataris chosen"] > games
    assert stats["ko retakes"] > 0
    # ...and almost all must be played out, to be scored.
    assert stats["finished"] >= 0.95 * games
    assert stats["games with dead stones"] <= 0.15 * stats["finished"]


def test_gnugo_forgets_positions_when_its_history_is_full(gnugo):
    """The GnuGo behaviour the superko checks allow for, in isolation: black
    D3 repeats the position after black's first D3. mockgo forbids it
    however long ago that was; GnuGo does only if it has not folded its
    move history since (after move 500, and every 51 moves after that)."""
    setup = ["B3", "D4", "C4", "D2", "C2", "E3", "D3"]  # a ko: white C3 takes D3
    for passes, gnugo_allows in ((245, False), (246, True), (247, False)):
        board = new_game(gnugo, 5)
        moves = setup + ["pass"] * (2 * passes) + ["C3", "pass"]
        colors = [BLACK, WHITE] * len(moves)
        commands = [f"play {COLOR_NAMES[c]} {m}" for c, m in zip(colors, moves)]
        assert not any(isinstance(a, GTPError) for a in gnugo.send_many(commands))
        # mockgo gets the moves without the passes, which change no position
        # (and two in a row would end its game); white is to play, so black
        # is asked about D3 out of turn, where simple ko does not apply.
        for color, move in zip(colors, setup + ["C3", "pass"]):
            board.play(coords.from_gtp(move, 5), color)
        d3 = coords.from_gtp("D3", 5)
        assert board.illegal_reason(d3, BLACK) == SUPERKO
        assert gnugo.send("is_legal black D3") == ("1" if gnugo_allows else "0")
        assert ("D3" in gnugo.send("all_legal black").split()) == gnugo_allows
        # the plain-Python model of GnuGo's memory: the position repeated
        # stood on the board from move 7 until white took at C3
        last_seen = 7 + 2 * passes
        assert (last_seen < gnugo_superko_memory_start(len(moves))) == gnugo_allows


def test_simple_ko_agrees(gnugo):
    board = new_game(gnugo, 5)
    moves = ["B3", "D4", "C4", "D2", "C2", "E3", "D3", "C3"]  # white C3 takes D3
    for k, move in enumerate(moves):
        board.play(coords.from_gtp(move, 5))
        gnugo.send(f"play {'black' if k % 2 == 0 else 'white'} {move}")
    d3 = coords.from_gtp("D3", 5)
    assert board.illegal_reason(d3) == KO
    assert gnugo.send("is_legal black D3") == "0"
    # after a ko threat and its answer the ko may be retaken
    for color, move in ((BLACK, "A1"), (WHITE, "A2")):
        board.play(coords.from_gtp(move, 5))
        gnugo.send(f"play {COLOR_NAMES[color]} {move}")
    assert board.is_legal(d3)
    assert gnugo.send("is_legal black D3") == "1"


@pytest.mark.parametrize("size", range(2, 20))
def test_str_matches_showboard(gnugo, size):
    board = new_game(gnugo, size)
    rng = random.Random(size)
    for _ in range(min(3 * size, 25)):
        legal = sorted(points(board.legal_moves()[:-1]))
        if legal and (board.passes or rng.random() > 0.1):
            move = rng.choice(legal)
        elif board.passes == 0:
            move = board.pass_index
        else:
            break  # not a second pass in a row: that would end the game
        gnugo.send(f"play {COLOR_NAMES[board.to_play]} {coords.to_gtp(move, size)}")
        board.play(move)
        # mockgo puts the last move in parentheses, GnuGo does not mark it
        width = 2 * size + 3  # the row label and the stones
        ours = "\n".join(line[:width].replace("(", " ").replace(")", " ") + line[width:]
                         for line in str(board).splitlines())
        theirs = gnugo.send("showboard")
        assert ours == theirs, f"after {[coords.to_gtp(m, size) for _, m in board.history]}"


@pytest.mark.parametrize("size", range(2, 20))
def test_fixed_handicap_matches_gnugo(gnugo, size):
    for stones in range(0, 11):
        answer = gnugo.send_many([f"boardsize {size}", "clear_board",
                                  f"fixed_handicap {stones}"])[2]
        try:
            ours = set(fixed_handicap_points(size, stones))
        except ValueError:
            ours = None
        if ours is None:
            assert isinstance(answer, GTPError), (size, stones, answer)
            assert answer.message == "invalid handicap"
            continue
        assert not isinstance(answer, GTPError), (size, stones, answer)
        theirs = vertices(answer, size)
        if size == 12:  # GnuGo's 4-4 points against GTP's 3-3 (see the docstring)
            inward = {2: 3, 9: 8}
            assert theirs == {inward[row] * 12 + inward[col]
                              for row, col in (divmod(p, 12) for p in ours)}
            continue
        assert theirs == ours, (size, stones)
        board = Board(size)
        board.place_handicap(stones)
        assert vertices(gnugo.send("list_stones black"), size) == points(board.stones == BLACK)
        assert board.to_play == WHITE
