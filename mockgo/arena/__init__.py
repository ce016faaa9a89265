"""Stage 8, the arena: matches between any two players with their statistics
(:mod:`~mockgo.arena.matches`: win rate, Wilson interval, Elo), Elo ratings
against fixed anchors (:mod:`~mockgo.arena.ladder`), move-prediction scores of a
policy (:mod:`~mockgo.arena.evaluation`) and mockgo as a GTP engine for Sabaki
and GoGui (:mod:`~mockgo.arena.gtp`)."""
