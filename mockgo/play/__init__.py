"""Stage 5, playing: players behind one interface (:mod:`~mockgo.play.players`
gathers them: the protocol in :mod:`~mockgo.play.player`, one module a kind
of player, player specs in :mod:`~mockgo.play.specs`), move sampling with a
temperature (:mod:`~mockgo.play.sampling`), many games in lockstep
(:mod:`~mockgo.play.runner`) and external GTP engines such as GnuGo
(:mod:`mockgo.gtp.client`)."""
