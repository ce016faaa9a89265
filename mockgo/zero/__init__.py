"""Stage 7, AlphaGo Zero: self-play with tree search, training on the search's
visit counts and the results, evaluation; MiniGo's loop in one resumable run
folder (notebook 04, ``mockgo zero``).

- :mod:`~mockgo.zero.config`: what defines a run, and the game it plays;
- :mod:`~mockgo.zero.layout`: where the run folder keeps everything;
- :mod:`~mockgo.zero.selfplay`: self-play games and their training examples;
- :mod:`~mockgo.zero.examples`: the examples file, written by self-play, read
  by training;
- :mod:`~mockgo.zero.train`: the run's network, gathering, augmenting, the
  dual network's losses;
- :mod:`~mockgo.zero.match`: the run's networks as players, its matches;
- :mod:`~mockgo.zero.run`: the loop, one resumable step at a time;
- :mod:`~mockgo.zero.report`: the line printed on each generation;
- :mod:`~mockgo.zero.cli`: ``mockgo zero`` and ``python -m mockgo.zero``.
"""
