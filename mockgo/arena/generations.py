"""A Zero run's generations (notebook 04) rated on notebook 05's Elo scale: each plays the
same fixed players, and the recorded games of notebook 05's 9x9 ladder tie
those players to the random player at 0 Elo.

A chain of matches, each generation against the one before
(:func:`mockgo.zero.report.elo_chain`), inflates: a generation was trained on
the games of the one it then plays, so it beats that one in particular
better than it beats players in general, and every link's surplus (and
its noise) adds up along the chain. Against fixed players nothing adds
up: each generation's rating rests on its own games against opponents
that never change, and on notebook 05's scale it can be read beside every
other player of the series::

    result = anchored_ratings(run, [0, 20, 40, 60], ("random", "uct:playouts=1000"),
                              games=40, recorded_dir=root / "docs/matches/ladder-9x9")
    result.ratings[generation_spec(run, 60)]      # a Rating: elo, low, high

The matches are the ladder's (:func:`mockgo.arena.ladder.ladder`), kept in
the run's ``sgf/anchored/`` folder, so a run that is stopped resumes them.
"""

from pathlib import Path

from mockgo.arena.ladder import ladder
from mockgo.play.match_folder import MATCH_SETTINGS, read_match
from mockgo.play.specs import format_spec

__all__ = ["anchored_ratings", "generation_spec"]


def generation_spec(run, generation, readouts=None):
    """The player spec of one of ``run``'s generations for matches outside
    the run: its network searching ``readouts`` a move (default the run's
    ``match_readouts``) without noise, named ``genN``."""
    readouts = run.config.match_readouts if readouts is None else readouts
    return format_spec("mcts", path=run.model_path(generation), readouts=readouts,
                       name=f"gen{generation}")


def anchored_ratings(run, generations, anchors, games, recorded_dir, readouts=None, workers=None,
                     verbose=False):
    """Rate ``generations`` of ``run`` against ``anchors`` (specs of notebook
    05's 9x9 ladder, the first ``"random"``): each generation plays
    ``games`` games against each anchor; the finished matches in
    ``recorded_dir`` (the ladder's folders, one per pairing) join the fit, so
    that the anchors are rated by their notebook 05 record. Returns the
    ladder's :class:`~mockgo.arena.ladder.LadderResult`; its ratings are keyed
    by :func:`generation_spec`."""
    folders = sorted(p for p in Path(recorded_dir).iterdir() if (p / MATCH_SETTINGS).is_file())
    if not folders:
        raise FileNotFoundError(f"{recorded_dir} holds no recorded matches (folders with "
                                f"{MATCH_SETTINGS}): the 9x9 ladder's records are needed to "
                                f"place the anchors on its scale")
    recorded = [read_match(folder) for folder in folders]
    for match, folder in zip(recorded, folders):
        match.out_dir = f"{Path(recorded_dir).name}/{folder.name}"  # tables print no machine path
    players = [generation_spec(run, g, readouts) for g in generations]
    return ladder(players, anchors=anchors, games=games, anchor_games=0, size=run.config.board_size,
                  komi=run.config.komi, workers=workers, out_dir=run.base_dir / "sgf" / "anchored",
                  plot=None, verbose=verbose, recorded=recorded)
