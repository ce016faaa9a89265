"""Scoring a finished game as a match does: the dead stones, then area
scoring with komi (Chinese rules), and the game saved as SGF with a comment
saying how it was scored.

Dead stones: a GnuGo started for the purpose loads the game's SGF
(``loadsgf``) and answers ``final_status_list dead`` (:class:`GnuGoScorer`).
Without GnuGo every stone counts as alive (:class:`TrompTaylorScorer`):
Tromp-Taylor scoring, exact when the game was played out to the end (as
random players do), and favouring the side whose dead stones are left on
the board otherwise. Games that ended by resignation or forfeit are not
scored.
"""

import re
import tempfile
from pathlib import Path

from mockgo.data.sgf_writer import save_sgf
from mockgo.go import coords
from mockgo.play.gtp_engine import GTPEngine, find_gnugo, gnugo_command


class GnuGoScorer:
    """Dead stones by GnuGo: ``loadsgf`` the finished game, then
    ``final_status_list dead``. One GnuGo process, reused game after game."""

    name = "gnugo"
    needs_file = True  # it reads the game from an SGF file

    def __init__(self, binary=None, level=10):
        binary = binary or find_gnugo()
        if binary is None:
            raise RuntimeError("GnuGo is not installed (apt-get install gnugo); "
                               "use scorer='tromp-taylor' to count every stone alive")
        self.engine = GTPEngine(gnugo_command(level=level, binary=binary), name="gnugo-scorer")

    def dead_stones(self, board, sgf_path):
        if re.search(r"\s", str(sgf_path)):  # GTP arguments cannot hold spaces
            with tempfile.TemporaryDirectory() as folder:
                copy = Path(folder) / "game.sgf"
                copy.write_bytes(Path(sgf_path).read_bytes())
                return self.dead_stones(board, copy)
        self.engine.send(f"loadsgf {sgf_path}")
        answer = self.engine.send("final_status_list dead")
        return sorted(coords.from_gtp(word, board.size) for word in answer.split())

    def close(self):
        self.engine.close()


class TrompTaylorScorer:
    """Every stone alive."""

    name = "tromp-taylor"
    needs_file = False

    def dead_stones(self, board, sgf_path):
        return []

    def close(self):
        pass


def make_scorer(kind="auto"):
    """The scorer of finished games ``kind`` names: ``"gnugo"``,
    ``"tromp-taylor"``, or ``"auto"`` (GnuGo when it is installed)."""
    if kind == "auto":
        kind = "gnugo" if find_gnugo() else "tromp-taylor"
    if kind == "gnugo":
        return GnuGoScorer()
    if kind in ("tromp-taylor", "none", "area"):
        return TrompTaylorScorer()
    raise ValueError(f"unknown scorer {kind!r}: gnugo, tromp-taylor or auto")


def score_and_save(game, scorer=None, sgf_path=None, comment=None):
    """Finish a played game as a match does: unless it ended by resignation
    or forfeit, ``scorer`` (``dead_stones(board, sgf_path)``; default every
    stone alive) marks the dead stones (``game.dead``); with ``sgf_path``
    the game is saved there, with a comment saying how it was scored. GnuGo
    reads the game from a file: without a path a temporary one is used."""

    scoring = score_game(game, scorer or TrompTaylorScorer())
    return save_game(game, sgf_path, (comment or "") + scoring)


def score_game(game, scorer):
    """Mark ``game``'s dead stones by ``scorer`` (games that ended by two
    passes or the move cap); returns the sentences saying how it was
    scored, for the SGF comment."""
    info = ""
    if game.reason in ("score", "move cap"):
        if scorer.needs_file:
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "game.sgf"
                save_sgf(game.record(result="?"), path)
                game.dead = list(scorer.dead_stones(game.board, path))
        info += (f"\nScored by area (komi {game.board.komi:g}) after removing {len(game.dead)} "
                 f"dead stones ({scorer.name})"
                 + (f": {' '.join(coords.to_gtp(p, game.size) for p in game.dead)}"
                    if game.dead else "") + ".")
        if game.reason == "move cap":
            info += f"\nThe game was stopped at the move cap ({game.board.move_number} moves)."
    return info


def save_game(game, sgf_path, comment):
    """Save a scored game as SGF at ``sgf_path`` (None: nowhere), with
    ``comment`` and the game's note as its root comment."""
    info = comment
    if game.note:
        info += "\n" + game.note
    if sgf_path is not None:
        record = game.record()
        record.game_comment = info.strip() or None
        save_sgf(record, sgf_path)
        game.path = str(sgf_path)
    return game
