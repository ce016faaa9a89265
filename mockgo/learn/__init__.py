"""Stage 6, AlphaGo's learning: the supervised policy network on expert games
(:mod:`~mockgo.learn.supervised`, notebook 01), the value network's data and
training (:mod:`~mockgo.learn.value`, notebook 02) and REINFORCE against a pool
of earlier policies (:mod:`~mockgo.learn.reinforce`, notebook 03)."""
