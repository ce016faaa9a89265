"""Stage 5, playing: players behind one interface (the protocol in
:mod:`~mockgo.play.player`, one module a kind of player, player specs in
:mod:`~mockgo.play.specs`), move sampling with a
temperature (:mod:`~mockgo.play.sampling`), many games in lockstep
(:mod:`~mockgo.play.runner`), and matches between two players
(:mod:`~mockgo.play.match`: the match engine; :mod:`~mockgo.play.results`:
the result, win rate, Wilson interval and Elo; :mod:`~mockgo.play.scoring`:
dead stones and SGF; :mod:`~mockgo.play.match_folder`: the resumable
folder). External GTP engines such as GnuGo are driven through
:mod:`mockgo.play.gtp_engine`, on this stage's floor."""
