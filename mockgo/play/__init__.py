"""Stage 5, playing: players behind one interface (:mod:`~mockgo.play.players`),
move sampling with a temperature (:mod:`~mockgo.play.sampling`), many games in
lockstep (:mod:`~mockgo.play.runner`) and external GTP engines such as GnuGo
(:mod:`~mockgo.play.gtp_client`)."""
