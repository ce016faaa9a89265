"""Stage 8, the arena: ``mockgo match`` (:mod:`~mockgo.arena.matches`, the
command line of :func:`mockgo.play.match.match`), Elo ratings against fixed
anchors (:mod:`~mockgo.arena.ladder`), move-prediction scores of a policy
(:mod:`~mockgo.arena.evaluation`) and notebook 05's showcase game
(:mod:`~mockgo.arena.showcase`). The GTP engine for Sabaki and GoGui is
:mod:`mockgo.gtp`."""
