"""Stage 4, search: the small Game protocol a search knows
(:mod:`~mockgo.search.games`, with tic-tac-toe and Go), PUCT Monte Carlo tree
search (:mod:`~mockgo.search.mcts`) and the evaluators that judge its leaves
(:mod:`~mockgo.search.evaluators`: uniform, random rollouts, a network)."""
