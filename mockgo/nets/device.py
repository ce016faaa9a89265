"""Which device computes the networks, and the precision that suits it.

Keras runs on one backend (``KERAS_BACKEND``: ``tensorflow``, the default,
or ``jax``), and each backend picks its device: a GPU when it sees one, else
the CPU. A network trains and plays fastest in mixed bfloat16 (Keras'
``mixed_bfloat16`` policy: bfloat16 arithmetic, float32 weights) where the
device computes bfloat16 natively, and slower, not faster, where it is
emulated. So ``precision="auto"`` asks this module:

- :func:`compute_device`: ``"GPU (NVIDIA H200)"`` or ``"CPU"``, the device
  the backend computes on (what notebooks and model cards print);
- :func:`auto_precision`: ``"mixed_bfloat16"`` on a GPU, or on a CPU with
  bfloat16 instructions (``avx512_bf16`` or ``amx_bf16``); else
  ``"float32"``;
- :func:`training_jit_compile`: whether a network's training step is
  compiled with XLA (Keras' ``jit_compile``), by its precision, the size
  of the fit and the CPU;
- :func:`computing_precision`: the precision a model's layers compute in.

Measured on the project's 2-core machine (AVX512_BF16): mixed bfloat16
trains the 6 x 64 policy network twice as fast as float32
(:mod:`mockgo.learn.supervised`), and evaluates AlphaGo's networks 1.4
times as fast (``benchmarks/precision.py``).
"""

import contextlib
import functools
import math
import random
from pathlib import Path

import numpy as np

__all__ = ["PRECISIONS", "XLA_MIN_MULTIPLY_ADDS", "auto_precision", "building_in", "compute_device",
           "computing_precision", "cpu_flags", "cpu_has_bf16", "multiply_adds",
           "resolve_precision", "set_random_seed", "training_jit_compile"]

PRECISIONS = ("float32", "mixed_bfloat16")  #: The Keras dtype policies a network trains in.


def computing_precision(model):
    """The dtype policy most of ``model``'s layers with weights compute in
    (``"float32"``, ``"mixed_bfloat16"``...)."""
    names = [layer.dtype_policy.name for layer in model.layers if layer.weights]
    return max(set(names), key=names.count) if names else "float32"


def cpu_flags(cpuinfo="/proc/cpuinfo"):
    """The CPU's instruction-set flags as ``cpuinfo`` lists them (a set of
    names such as ``"avx2"``); empty where that cannot be read."""
    try:
        text = Path(cpuinfo).read_text()
    except OSError:
        return set()
    flags = set()
    for line in text.splitlines():
        if line.startswith("flags"):
            flags.update(line.split(":", 1)[1].split())
    return flags


def cpu_has_bf16(cpuinfo="/proc/cpuinfo"):
    """Whether the CPU has bfloat16 instructions (``avx512_bf16`` or
    ``amx_bf16`` among its flags); False where that cannot be read."""
    return bool(cpu_flags(cpuinfo) & {"avx512_bf16", "amx_bf16"})


@functools.cache
def _accelerator():
    """The name of the GPU the Keras backend computes on, or None."""
    import keras  # the backend: imported only when a network is used

    backend = keras.backend.backend()
    if backend == "jax":
        import jax

        device = jax.devices()[0]
        return None if device.platform == "cpu" else device.device_kind
    if backend == "tensorflow":
        import tensorflow as tf

        gpus = tf.config.list_physical_devices("GPU")
        if not gpus:
            return None
        details = tf.config.experimental.get_device_details(gpus[0])
        return details.get("device_name", "GPU")
    if backend == "torch":
        import torch

        return torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    return None


def compute_device():
    """The device Keras computes on: ``"GPU (<name>)"`` or ``"CPU"``."""
    name = _accelerator()
    return f"GPU ({name})" if name else "CPU"


def auto_precision(cpuinfo="/proc/cpuinfo"):
    """``"mixed_bfloat16"`` where the device computes bfloat16 natively (a
    GPU, or a CPU with bfloat16 instructions as ``cpuinfo`` lists them),
    else ``"float32"`` (module docstring)."""
    if _accelerator() is not None:
        return "mixed_bfloat16"
    return "mixed_bfloat16" if cpu_has_bf16(cpuinfo) else "float32"


def resolve_precision(precision, cpuinfo="/proc/cpuinfo"):
    """``"auto"`` resolved by :func:`auto_precision`; ``"float32"`` and
    ``"mixed_bfloat16"`` as they are; anything else a ValueError."""
    if precision == "auto":
        return auto_precision(cpuinfo)
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be auto, float32 or mixed_bfloat16, got {precision!r}")
    return precision


# The smallest fit worth compiling with XLA, in multiply-adds of its forward
# passes (a position's, times the positions the fit trains on). Measured by
# benchmarks/xla_fit.py on 2 cores, float32, nothing else running: XLA's
# compile added 2.6 s to a network's first epoch and then ran its epochs 2.14
# times as fast (notebook 02's quick value network: 2.38 s an epoch against
# 5.1 s, 10.7 billion multiply-adds an epoch), so a fit pays it back from
# 10 billion. Tests that train a network of a hundred thousand a position on
# tens of positions stay far below it; notebook 01's quick training (180
# billion) is far above.
#: The multiply-adds of a fit's forward passes from which XLA pays for its compile.
XLA_MIN_MULTIPLY_ADDS = 10e9


def multiply_adds(model):
    """The multiply-adds of one position's forward pass through ``model``'s
    convolutions and dense layers (networks nested in it included): what a
    training step's cost grows with."""
    import keras  # the backend: imported only when a network is used

    total = 0
    for layer in model.layers:
        if isinstance(layer, keras.Model):
            total += multiply_adds(layer)
        elif isinstance(layer, keras.layers.Conv2D):
            height, width = layer.output.shape[1:3]
            total += height * width * math.prod(layer.kernel.shape)
        elif isinstance(layer, keras.layers.Dense):
            total += math.prod(layer.kernel.shape)
    return total


def training_jit_compile(model, positions=None, cpuinfo="/proc/cpuinfo"):
    """Keras' ``jit_compile`` for training ``model`` on ``positions``
    positions in all (epochs included; None: many): True in float32 for a
    fit of at least :data:`XLA_MIN_MULTIPLY_ADDS`, where Keras' ``"auto"``
    leaves XLA off on a machine whose TensorFlow sees only a CPU and where
    XLA trained faster on 2 cores without AVX-512: the 6 x 64 policy 1.36
    times (``benchmarks/train.py --against-graph``), notebook 02's quick
    value network 2.14 times (``benchmarks/xla_fit.py``; docs/benchmarks.md).
    Else ``"auto"``, Keras' choice: for a smaller fit, whose compile would
    cost more than it saves; under mixed precision (bfloat16 on a device
    that computes it), where XLA was not measured; and on a CPU with
    AVX-512 (``avx512f`` among the flags ``cpuinfo`` lists) and no GPU,
    where TensorFlow's plain graph trained faster than XLA: on the
    project's 2-core AMD EPYC with AVX-512, alone, the same quick value
    network at 0.58 times the graph's speed with XLA, a 3 x 16 one on 9x9
    at 0.49 (``benchmarks/xla_fit.py``); shared with other jobs, notebook
    01's small 9x9 networks at 0.34 (convolutional) and 0.73 (dense). JAX compiles with XLA
    whatever this says. The supervised and value learners ask it, and so
    does the step the recipe times alone
    (:func:`mockgo.learn.trainers.step_rate`, with no positions: the step a
    long fit trains, as a real recipe's are); the Zero trainer does not
    (:func:`mockgo.zero.train.compile_dual` says why)."""
    if computing_precision(model).startswith("mixed"):
        return "auto"
    if positions is not None and positions * multiply_adds(model) < XLA_MIN_MULTIPLY_ADDS:
        return "auto"
    if _accelerator() is None and "avx512f" in cpu_flags(cpuinfo):
        return "auto"
    return True


@contextlib.contextmanager
def building_in(precision):
    """Layers made inside this block compute in ``precision`` (``"float32"``
    or ``"mixed_bfloat16"``: Keras' dtype policy); the policy before it is
    put back after, so that only the network built here takes it."""
    import keras

    previous = keras.config.dtype_policy()
    keras.config.set_dtype_policy(precision)
    try:
        yield
    finally:
        keras.config.set_dtype_policy(previous)


def set_random_seed(seed):
    """``keras.utils.set_random_seed(seed)`` (Python's, NumPy's and Keras'
    global generators, so new weights are drawn alike) without importing
    TensorFlow under another backend: Keras' own function seeds TensorFlow
    wherever it is installed, which costs seconds and TensorFlow's start-up
    lines in a JAX process."""
    import keras

    if keras.backend.backend() == "tensorflow":
        keras.utils.set_random_seed(seed)
        return
    # What keras.utils.set_random_seed does for the other backends (Keras 3's
    # rng_utils): record the seed, drop the global SeedGenerator so that it
    # is made again from it, seed Python and NumPy.
    from keras.src.backend.common import global_state
    from keras.src.random import seed_generator
    from keras.src.utils import rng_utils

    global_state.set_global_attribute(rng_utils.GLOBAL_RANDOM_SEED, int(seed))
    global_state.set_global_attribute(seed_generator.GLOBAL_SEED_GENERATOR, None)
    random.seed(seed)
    np.random.seed(seed)
    if keras.backend.backend() == "torch":
        import torch

        torch.manual_seed(seed)
