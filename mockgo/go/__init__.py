"""Stage 1, the game: the rules engine (:mod:`~mockgo.go.board`), coordinates
(:mod:`~mockgo.go.coords`), the 8 symmetries of the board
(:mod:`~mockgo.go.symmetries`) and the feature planes a network sees
(:mod:`~mockgo.go.features`, ladders included)."""
