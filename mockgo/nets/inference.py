"""Batched, compiled network evaluation for search, self-play and GTP players.

Calling a Keras model eagerly, ``model(x)``, runs every layer through Python
and TensorFlow's eager dispatcher: on a 2-core CPU a 6-block, 64-filter
residual net on 9x9 manages a few dozen positions a second that way, one at a
time, against thousands a second in batches through a compiled graph
(``benchmarks/inference.py`` measures both). ``model.predict`` compiles, but
builds a data pipeline on every call, which costs milliseconds. So players
evaluate through a :class:`Predictor`: one ``tf.function`` graph, traced
once, fed numpy arrays in batches::

    predictor = Predictor(model)                  # any model from mockgo.nets.models
    policy, value = predictor.predict(planes)     # planes: (batch, N, N, P) uint8
    policy, value = predictor.policy_and_value(planes, legal_masks)  # masked

and :func:`masked_policy` to keep only the legal moves of a policy.
:func:`network_input` sets up a network for playing: its Predictor and the
encoder of its planes, checked against each other.

mockgo runs Keras on TensorFlow. Under another Keras backend (JAX, say, on a
machine whose GPU TensorFlow does not reach; ``KERAS_BACKEND=jax``) a
Predictor calls the backend's own compiled prediction instead of the
``tf.function``, with the same outputs; TensorFlow is imported only where it
is the backend.
"""

import keras
import numpy as np

from mockgo.go.features import get_encoder
from mockgo.nets.device import auto_precision
from mockgo.nets.io import load_model, model_info

__all__ = ["PRECISIONS", "Predictor", "fastest_precision", "masked_policy", "network_input"]


class Predictor:
    """Evaluate a Keras model on numpy arrays through one compiled graph.

    The graph is a ``tf.function`` with an input signature whose batch
    dimension is ``None``, so it is traced once, on the first call, whatever
    the batch sizes that follow (``tracing_count`` stays 1). Inputs longer
    than ``batch_size`` are evaluated in chunks of ``batch_size`` (the last
    one shorter). The last chunk is *not* padded to a fixed size: with the
    signature there is no retracing to avoid, and on the CPU an odd batch
    size costs no more than the padded one would (measured: after the first
    call at a size, a batch of 37 takes about as long as 37/64 of a batch
    of 64).

    The model runs with ``training=False`` (batch norm uses its moving
    statistics). The graph captures the model's variables, not their values,
    so it sees weights changed later by training or ``load_weights``; a
    *different* model needs a new Predictor.

    Two ways to make the graph faster, both off by default (the Keras model
    stays the source of truth; ``benchmarks/mcts.py`` measures both against
    the plain graph, in one run, on the self-play evaluator):

    - ``jit_compile=True``: XLA compiles the graph (once per batch size).
    - ``precision="bfloat16"``: the model is evaluated by a copy whose layers
      compute in bfloat16 (Keras's ``mixed_bfloat16`` policy; weights stay
      float32; outputs are float32 again). Fast only on CPUs with bfloat16
      instructions (AVX512_BF16, AMX); elsewhere emulated, and slow. The copy
      has its own variables: after the model's weights change,
      :meth:`sync_weights`. ``precision="auto"``: :func:`fastest_precision`.

    Measured with ``benchmarks/mcts.py`` on the project's 2-core machine
    (AVX512_BF16, shared with other jobs), self-play of 32 games in lockstep
    with 8 leaves each: bfloat16 made 1.12x (4x32 network, 64 readouts:
    5,394 against 4,811 evaluations/s) to 1.22x (6x64, 200 readouts: 1,547
    against 1,269) the plain graph's evaluations per second; XLA ran the
    network at 0.5x to 0.6x the plain graph's speed (no gain from fusing
    on a CPU, and a compilation for each new batch size).
    """

    def __init__(self, model, batch_size=256, jit_compile=False, precision="float32"):
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
        if precision == "auto":
            precision = fastest_precision()
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be auto or one of {', '.join(PRECISIONS)}, "
                             f"not {precision!r}")
        if len(model.inputs) != 1:
            raise ValueError(f"a Predictor takes models with one input, {model.name} has "
                             f"{len(model.inputs)}")
        self.model = model
        self.batch_size = batch_size
        self.jit_compile = bool(jit_compile)
        self.precision = precision
        runner = model if precision == "float32" else _with_policy(model, PRECISIONS[precision])
        self._runner = runner
        spec = model.inputs[0]
        self.input_shape = tuple(spec.shape[1:])
        if None in self.input_shape:
            raise ValueError(f"the model's input shape {spec.shape} must be fixed "
                             "but for the batch")
        self.input_dtype = np.dtype(keras.backend.standardize_dtype(spec.dtype))
        self.backend = keras.backend.backend()
        names = list(model.output_names)
        # A dual network with auxiliary heads (ownership, score: training
        # targets) is evaluated for its policy and value only; the graph
        # leaves the other heads out.
        keep = list(range(len(names)))
        if len(names) > 2 and {"policy", "value"} <= set(names):
            keep = [names.index("policy"), names.index("value")]
        self.num_outputs = len(keep)
        self.output_names = [names[k] for k in keep]
        self._names = names
        self._keep = keep
        self.traces = 0  # Python-side count: the body below runs once per trace
        if self.backend != "tensorflow":
            self._other_backend_sizes = set()
            return
        import tensorflow as tf

        def forward(x):
            self.traces += 1
            outputs = self._kept(runner(x, training=False))
            if precision != "float32":  # bfloat16 outputs, as float32 for numpy and the search
                outputs = [tf.cast(out, tf.float32) for out in outputs]
            return tuple(outputs)

        self._forward = tf.function(
            forward,
            input_signature=[tf.TensorSpec((None, *self.input_shape), self.input_dtype)],
            jit_compile=self.jit_compile,
            reduce_retracing=True,
        )

    def _kept(self, outputs):
        """The kept outputs of a call of the model (a dict by name, a list,
        or one output), in the order of ``output_names``."""
        if isinstance(outputs, dict):
            outputs = [outputs[name] for name in self._names]
        elif not isinstance(outputs, (list, tuple)):
            outputs = [outputs]
        return [outputs[k] for k in self._keep]

    def _run(self, planes):
        """The kept outputs for one chunk of planes, as numpy arrays."""
        if self.backend == "tensorflow":
            return [out.numpy() for out in self._forward(planes)]
        # Other backends compile once per input shape (JAX's jit), so a chunk
        # is padded with empty positions to the next power of two: at most
        # log2(batch_size) + 1 compilations. Batch norm runs on its moving
        # statistics, so the padding changes no real position's outputs.
        count = len(planes)
        size = min(1 << (count - 1).bit_length(), self.batch_size)
        if size > count:
            planes = np.concatenate([planes, np.zeros((size - count, *self.input_shape),
                                                      planes.dtype)])
        if size not in self._other_backend_sizes:
            self._other_backend_sizes.add(size)
            self.traces += 1
        return [np.asarray(out, np.float32)[:count]
                for out in self._kept(self._runner.predict_on_batch(planes))]

    def sync_weights(self):
        """Copy the model's weights into the bfloat16 copy (after training);
        nothing to do in float32, where the graph reads the model's own."""
        if self._runner is not self.model:
            self._runner.set_weights(self.model.get_weights())

    @property
    def tracing_count(self):
        """How many times the graph has been traced (1 after any number of
        calls); under another backend, the batch sizes compiled for."""
        if self.backend != "tensorflow":
            return len(self._other_backend_sizes)
        return self._forward.experimental_get_tracing_count()

    @property
    def is_dual(self):
        """True for a policy-and-value model (two outputs)."""
        return self.num_outputs == 2

    def predict(self, planes):
        """The model's outputs for ``planes``, as numpy arrays.

        ``planes``: ``(batch, N, N, P)``, or one position ``(N, N, P)`` (the
        outputs then have no batch axis either); cast to the model's input
        dtype (uint8 for mockgo's models: pass 0/1 planes). Returns for a
        one-output model its output (a policy's probabilities, a value net's
        ``(batch, 1)`` values); for a dual network ``(policy, value)`` with
        value of shape ``(batch,)``; for other models a tuple of outputs.
        """
        planes = np.asarray(planes)
        single = planes.ndim == len(self.input_shape)
        if single:
            planes = planes[np.newaxis]
        if planes.shape[1:] != self.input_shape:
            raise ValueError(f"planes of shape {planes.shape} do not fit the model's input "
                             f"(batch, {', '.join(map(str, self.input_shape))})")
        planes = np.ascontiguousarray(planes, dtype=self.input_dtype)
        if len(planes) == 0:
            # oneDNN's batch norm fails on an empty batch, so do not run the graph.
            outputs = [np.zeros((0, *out.shape[1:]), np.dtype(out.dtype))
                       for out in (self.model.outputs[k] for k in self._keep)]
        else:
            chunks = [self._run(planes[i:i + self.batch_size])
                      for i in range(0, len(planes), self.batch_size)]
            outputs = [np.concatenate(parts) if len(parts) > 1 else parts[0]
                       for parts in zip(*chunks)]
        if self.is_dual:
            outputs[1] = outputs[1].reshape(len(planes))
        if single:
            outputs = [out[0] for out in outputs]
        return outputs[0] if self.num_outputs == 1 else tuple(outputs)

    __call__ = predict

    def policy_and_value(self, planes, legal_masks):
        """A dual network's policy restricted to the legal moves and
        renormalised (:func:`masked_policy`), and its value: ``(policy of
        shape (batch, N*N+1) float64, value of shape (batch,))``; without the
        batch axes for one position."""
        if not self.is_dual:
            raise ValueError(f"{self.model.name} is not a policy-and-value network "
                             f"({self.num_outputs} output(s))")
        policy, value = self.predict(planes)
        return masked_policy(policy, legal_masks), value


#: Predictor precisions: the Keras dtype policy each computes in.
PRECISIONS = {"float32": "float32", "bfloat16": "mixed_bfloat16"}


def fastest_precision(cpuinfo="/proc/cpuinfo"):
    """The faster Predictor precision on the device that runs the network
    (:func:`mockgo.nets.device.auto_precision`): ``"bfloat16"`` on a GPU or on
    a CPU with bfloat16 instructions (AVX512_BF16 or AMX, as ``cpuinfo``
    lists the flags), else ``"float32"`` (emulated bfloat16 is slow)."""
    return "bfloat16" if auto_precision(cpuinfo) == "mixed_bfloat16" else "float32"


def _with_policy(model, policy):
    """A copy of ``model`` whose float32 layers compute under ``policy``
    (a mixed one: float32 weights), with the same weights."""
    def convert(config):
        if isinstance(config, dict):
            if config.get("class_name") == "DTypePolicy" and \
                    config.get("config", {}).get("name") == "float32":
                return {**config, "config": {**config["config"], "name": policy}}
            return {key: convert(value) for key, value in config.items()}
        if isinstance(config, list):
            return [convert(value) for value in config]
        return config

    copy = model.__class__.from_config(convert(model.get_config()))
    copy.set_weights(model.get_weights())
    return copy


def network_input(model, encoder=None, batch_size=256, **options):
    """``(predictor, encoder)`` for a network that reads one board.

    ``model``: a Keras model, the path of a ``.keras`` file
    (:func:`mockgo.nets.io.load_model`), or a :class:`Predictor` to share.
    ``options``: the Predictor's (``jit_compile``, ``precision``).
    ``encoder``: the name of the feature planes it was trained on
    (:func:`mockgo.go.features.get_encoder`), or None (or ``"auto"``): the
    encoder the network records (:func:`mockgo.nets.io.model_info`; for a
    network that records none, the one encoder with as many planes as its
    input, with a warning when it came from a file). ValueError for a model
    whose input is not square, or whose planes are not the encoder's.
    """

    encoder = None if encoder == "auto" else encoder
    if isinstance(model, Predictor):
        predictor = model
    else:
        if isinstance(model, (str, bytes)) or hasattr(model, "__fspath__"):
            model = load_model(str(model), encoder=encoder)
        predictor = Predictor(model, batch_size=batch_size, **options)
    info = model_info(predictor.model, encoder)
    return predictor, get_encoder(info.encoder, info.board_size)


def masked_policy(probabilities, legal_masks):
    """Zero the illegal moves of each policy row and renormalise.

    ``probabilities``: ``(batch, moves)`` or one row ``(moves,)``;
    ``legal_masks``: booleans of the same shape, such as
    ``board.legal_moves()`` (N*N + 1, pass last). A policy with no pass
    output (N*N columns, AlphaGo's policy network) may be masked with
    N*N + 1-move masks: the result then has N*N + 1 columns and the pass
    entry is 0, unless pass is the only legal move, when it gets 1.

    A row whose legal moves all have probability 0 (after float32 underflow,
    say) becomes uniform over its legal moves (the legal points only, for a
    policy without pass, as above). A row with no legal move at all is an
    error (``Board.legal_moves()`` always allows the pass).

    Returns float64 rows that sum to 1: float32 rows can be off by 1e-7,
    more than ``numpy.random.Generator.choice`` accepts.
    """
    p = np.asarray(probabilities, dtype=np.float64)
    legal = np.asarray(legal_masks, dtype=bool)
    single = p.ndim == 1
    p, legal = np.atleast_2d(p), np.atleast_2d(legal)
    if p.ndim != 2 or legal.ndim != 2 or len(p) != len(legal):
        raise ValueError(f"probabilities {np.shape(probabilities)} and legal masks "
                         f"{np.shape(legal_masks)} do not match")
    moves = legal.shape[1]
    has_pass = p.shape[1] == moves
    if not has_pass:
        if p.shape[1] != moves - 1:
            raise ValueError(f"a policy of {p.shape[1]} moves cannot be masked with masks of "
                             f"{moves} (expected {p.shape[1]} or {p.shape[1] + 1})")
        p = np.concatenate([p, np.zeros((len(p), 1))], axis=1)
    if not legal.any(axis=1).all():
        rows = np.flatnonzero(~legal.any(axis=1))
        raise ValueError(f"rows {rows.tolist()} have no legal move")
    out = np.where(legal, np.maximum(p, 0.0), 0.0)
    mass = out.sum(axis=1, keepdims=True)
    empty = ~(mass[:, 0] > 0)  # NaN too
    if empty.any():
        fallback = legal[empty].astype(np.float64)
        if not has_pass:
            # Pass only when no point is legal.
            fallback[fallback[:, :-1].any(axis=1), -1] = 0.0
        out[empty] = fallback
        mass[empty] = fallback.sum(axis=1, keepdims=True)
    out /= mass
    return out[0] if single else out
