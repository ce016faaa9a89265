"""REINFORCE's update of a policy network: one step of gradient ascent on
the advantage-weighted log-likelihood of the moves it played.

Silver et al. 2016, Methods, "Reinforcement learning of policy networks":
the step is

    (1/n) * sum_i sum_t (z_t^i - b(s_t^i)) * log p_rho(a_t^i | s_t^i)

over the n games of a mini-batch, with plain SGD. :class:`PolicyGradient`
computes it with the Keras backend's own gradient machinery (Keras 3 has no
backend-neutral gradient, so ``_objective_gradients`` is written once for
TensorFlow and once for JAX); :mod:`mockgo.learn.reinforce` plays the games
and calls it.
"""

import typing

import numpy as np

__all__ = ["PolicyGradient", "Update"]


class PolicyGradient:
    """The REINFORCE update of a policy network, plain SGD.

    ``update(planes, masks, moves, advantages, games)`` takes the
    positions a policy moved in, the sensible moves there (N*N + 1 masks,
    pass last, as the runner records them), the moves it chose and
    ``z - b`` for each, and does one step of gradient ascent on
    ``(1/games) * sum(advantages * log p(move | position))``, where p is the
    network's softmax (of its logits over ``temperature``) restricted to the
    sensible moves. Positions are processed ``chunk`` at a time, their
    gradients summed, then applied once. The gradient is computed by the
    Keras backend's own machinery (``_objective_gradients``: a
    ``tf.GradientTape`` in a ``tf.function`` on TensorFlow, ``jax.grad`` of
    the network's stateless call, jitted, on JAX), traced once.
    """

    def __init__(self, model, learning_rate, temperature=1.0, chunk=512):
        import keras  # the backend: imported only when a network is used

        from mockgo.nets.models import logits_model  # lazy, with Keras: see above

        if temperature <= 0:
            raise ValueError("REINFORCE needs a sampling temperature > 0")
        self.model = model
        self.logits = logits_model(model)
        self.temperature = float(temperature)
        self.chunk = int(chunk)
        self.variables = self.logits.trainable_variables
        self.optimizer = keras.optimizers.SGD(learning_rate)
        self.optimizer.build(self.variables)
        self.num_moves = self.logits.output_shape[-1]  # N*N, or N*N + 1 with a pass output
        self._gradients = _objective_gradients(self.logits, self.temperature, self.num_moves)

    @property
    def learning_rate(self):
        import keras

        return float(keras.ops.convert_to_numpy(self.optimizer.learning_rate))

    def update(self, planes, masks, moves, advantages, games, num_planes=None, halves=None):
        """One step (class docstring). ``planes`` may be bit-packed along the
        plane axis (as :class:`~mockgo.play.runner.PlayedGame` keeps them): then
        pass ``num_planes``. Returns an :class:`Update`.

        ``halves``: for each position, 0 or 1, the half of the ``games`` its
        game is in (two halves of independent games, alike in colours).
        The gradient is then summed over each half separately, g = g0 + g1
        (the same step, at the cost of one more partial chunk), and their
        difference measures the noise of the step: each half sums n/2
        games' gradients G_i, so E|g0 - g1|^2 = n tr Cov(G), and
        ``|g0 - g1|^2 / n`` estimates tr Cov(G), the variance of one game's
        gradient, without bias. That is what a baseline is for: it leaves
        the expected gradient as it is and makes this smaller."""
        import keras

        masks = np.asarray(masks, bool)[:, :self.num_moves]
        moves = np.asarray(moves, np.int32)
        weights = np.asarray(advantages, np.float32)
        if len(moves) == 0:
            return Update(0.0, 0.0, None)
        if moves.max() >= self.num_moves:
            raise ValueError("a move outside the policy's outputs (a pass, for a policy "
                             "without a pass output)")
        parts = [np.arange(len(moves))] if halves is None else \
            [np.flatnonzero(np.asarray(halves) == h) for h in (0, 1)]
        sums, objective = [], 0.0
        for rows in parts:
            total = None
            for start in range(0, len(rows), self.chunk):
                part = rows[start:start + self.chunk]
                chunk = planes[part]
                if num_planes is not None:
                    chunk = np.unpackbits(chunk, axis=-1, count=num_planes)
                grads, value = self._gradients(chunk, masks[part], moves[part], weights[part])
                total = list(grads) if total is None else \
                    [keras.ops.add(t, g) for t, g in zip(total, grads)]
                objective += float(value)
            if total is not None:
                sums.append(total)
        total = sums[0] if len(sums) == 1 else \
            [keras.ops.add(a, b) for a, b in zip(*sums)]
        norm = _global_norm(total) / games
        variance = None
        if len(sums) == 2:
            variance = _global_norm([keras.ops.subtract(a, b) for a, b in zip(*sums)]) ** 2 / games
        scale = -1.0 / games  # ascent: the optimiser descends
        self.optimizer.apply_gradients([(keras.ops.multiply(g, scale), v)
                                        for g, v in zip(total, self.variables)])
        return Update(objective / games, norm, variance)


def _global_norm(tensors):
    """The Euclidean norm of a list of tensors taken as one vector."""
    import keras

    return float(np.sqrt(sum(float(np.sum(np.square(keras.ops.convert_to_numpy(t),
                                                     dtype=np.float64)))
                             for t in tensors)))


def _objective_gradients(logits_net, temperature, num_moves):
    """A compiled function ``(planes, masks, moves, weights) -> (gradients,
    objective)``: the gradients, with respect to ``logits_net``'s trainable
    variables, of ``sum(weights * log p(move))``, p the softmax of the
    logits over ``temperature`` with the moves outside ``masks`` left out.
    Written once for each backend: Keras 3 has no backend-neutral gradient."""
    import keras

    backend = keras.backend.backend()
    input_shape = tuple(logits_net.inputs[0].shape[1:])
    if backend == "tensorflow":
        import tensorflow as tf

        variables = logits_net.trainable_variables

        def gradients(planes, masks, moves, weights):
            with tf.GradientTape() as tape:
                logits = tf.cast(logits_net(planes, training=True), tf.float32) / temperature
                logits = tf.where(masks, logits, tf.constant(-1e9, logits.dtype))
                log_p = tf.nn.log_softmax(logits)
                chosen = tf.gather(log_p, moves, batch_dims=1)
                objective = tf.reduce_sum(weights * chosen)
            return tape.gradient(objective, variables), objective

        # autograph=False: straight-line code, nothing for AutoGraph to convert.
        return tf.function(gradients, autograph=False, input_signature=[
            tf.TensorSpec((None, *input_shape), tf.as_dtype(logits_net.inputs[0].dtype)),
            tf.TensorSpec((None, num_moves), tf.bool),
            tf.TensorSpec((None,), tf.int32),
            tf.TensorSpec((None,), tf.float32),
        ])
    if backend == "jax":
        import jax
        import jax.numpy as jnp

        def objective(trainable, non_trainable, planes, masks, moves, weights):
            logits, _ = logits_net.stateless_call(trainable, non_trainable, planes, training=True)
            logits = logits.astype(jnp.float32) / temperature
            log_p = jax.nn.log_softmax(jnp.where(masks, logits, -1e9))
            chosen = jnp.take_along_axis(log_p, moves[:, None], axis=1)[:, 0]
            return jnp.sum(weights * chosen)

        value_and_grad = jax.jit(jax.value_and_grad(objective))

        def gradients(planes, masks, moves, weights):
            # jit compiles once per input shape, and every update's last
            # chunk has another length: padded to the next power of two (as
            # mockgo.nets.inference.Predictor pads), a run compiles at most
            # log2(chunk) + 1 times instead of once per update. A padded row
            # weighs 0 (its mask all False: a finite, uniform log p), so it
            # adds nothing to the objective or the gradients.
            count = len(moves)
            pad = (1 << (count - 1).bit_length()) - count
            if pad:
                planes = np.concatenate([planes, np.zeros((pad, *planes.shape[1:]),
                                                          planes.dtype)])
                masks = np.concatenate([masks, np.zeros((pad, masks.shape[1]), bool)])
                moves = np.concatenate([moves, np.zeros(pad, moves.dtype)])
                weights = np.concatenate([weights, np.zeros(pad, weights.dtype)])
            value, grads = value_and_grad(
                [v.value for v in logits_net.trainable_variables],
                [v.value for v in logits_net.non_trainable_variables],
                planes, masks, moves, weights)
            return grads, value

        return gradients
    raise NotImplementedError(f"REINFORCE's update runs on the tensorflow or jax backend, "
                              f"not {backend}")


class Update(typing.NamedTuple):
    """What one :meth:`PolicyGradient.update` did: the ``objective`` before
    the step, the norm of the step's gradient (the objective's, per game:
    the step is the learning rate times it), and ``gradient_variance``, the
    variance of one game's gradient, tr Cov(G) (None unless the games were
    split into halves): the step's own variance is that over n."""

    objective: float
    gradient_norm: float
    gradient_variance: float | None
