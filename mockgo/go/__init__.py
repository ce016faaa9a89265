"""Stage 1, the game: the rules engine (:mod:`~mockgo.go.board`, its compiled
kernels in :mod:`~mockgo.go.kernels`, handicap and star points in
:mod:`~mockgo.go.handicap`), random playouts (:mod:`~mockgo.go.playout`),
dead stones and final owners (:mod:`~mockgo.go.ownership`), coordinates
(:mod:`~mockgo.go.coords`), the 8 symmetries of the board
(:mod:`~mockgo.go.symmetries`) and the feature planes a network sees
(:mod:`~mockgo.go.features`, the ladder reader in :mod:`~mockgo.go.ladders`)."""
