"""Training on bit-packed planes: the unpacking runs inside the compiled step.

A dataset keeps its planes bit-packed (``np.packbits`` along the plane axis:
a 48-plane 19x19 position is 2.2 kB instead of 17 kB; :mod:`mockgo.data.dataset`).
Unpacking them in Python feeds about 11,000 positions a second per core,
far less than a GPU trains on (hundreds of thousands). So the batches travel
packed, with the symmetry each position is to be turned by, and the model
that is trained unpacks and turns them as its first layer,
:class:`UnpackPlanes`, compiled with the rest of the step (XLA on JAX, a
graph on TensorFlow), on whatever device computes::

    net = policy_network(...)                     # takes planes, as players do
    trainer = packed_input_model(net)             # takes (packed, symmetries)
    trainer.compile(...); trainer.fit(PackedBatches(...))   # trains net's weights

The network keeps its own input of whole planes: ``trainer`` shares its
layers and weights, so training it trains ``net``, which is what is saved
and played. The labels (moves) are turned on the host, with the same
symmetry (:mod:`mockgo.data.pipeline`): an index lookup, cheap.
"""

import keras
import numpy as np

from mockgo.go.symmetries import symmetry_tables

__all__ = ["UnpackPlanes", "packed_input_model"]


@keras.saving.register_keras_serializable(package="mockgo")
class UnpackPlanes(keras.layers.Layer):
    """``(packed, symmetries)`` to planes: the bits of ``packed`` (uint8,
    ``(n, N, N, ceil(planes / 8))``, ``np.packbits``' big-endian order: the
    first plane is the top bit of byte 0) as ``planes`` uint8 planes of 0
    and 1, each position turned by its symmetry (int32, ``(n,)``, 0 the
    identity). The same as ``np.unpackbits`` and then
    :func:`mockgo.go.symmetries.apply_to_planes`, in the compiled step."""

    def __init__(self, planes, size, **kwargs):
        super().__init__(**kwargs)
        # The inputs are bits and indices: never cast to the float dtype
        # Keras gives numpy inputs of a layer called eagerly.
        self._convert_input_args = False
        self.planes, self.size = int(planes), int(size)
        self._gather = symmetry_tables(self.size)[0].astype("int32")

    def call(self, packed, syms):
        packed = keras.ops.convert_to_tensor(packed, "uint8")
        n = keras.ops.shape(packed)[0]
        points = self.size * self.size
        shifts = keras.ops.convert_to_tensor(np.arange(7, -1, -1, dtype=np.uint8))
        one = keras.ops.convert_to_tensor(np.uint8(1))  # a Python 1 would widen to int32
        bits = keras.ops.bitwise_and(
            keras.ops.right_shift(keras.ops.expand_dims(packed, -1), shifts), one)
        x = keras.ops.reshape(bits, (n, points, -1))[:, :, :self.planes]
        where = keras.ops.take(keras.ops.convert_to_tensor(self._gather),
                               keras.ops.cast(syms, "int32"), axis=0)
        x = keras.ops.take_along_axis(x, keras.ops.expand_dims(where, -1), axis=1)
        return keras.ops.reshape(x, (n, self.size, self.size, self.planes))

    def compute_output_spec(self, packed, syms):
        return keras.KerasTensor((packed.shape[0], self.size, self.size, self.planes), "uint8")

    def get_config(self):
        return {**super().get_config(), "planes": self.planes, "size": self.size}


def packed_input_model(net):
    """A model that takes ``(packed planes, symmetries)`` and runs ``net``
    (a one-input network of :mod:`mockgo.nets.models`) on them, unpacked
    and turned by :class:`UnpackPlanes`; it shares ``net``'s layers and
    weights. Its outputs keep ``net``'s output names, so losses and metrics
    are named as ``net``'s would be."""
    size, _, planes = net.inputs[0].shape[1:]
    packed = keras.Input((size, size, (planes + 7) // 8), dtype="uint8", name="packed_planes")
    syms = keras.Input((), dtype="int32", name="symmetries")
    planes_in = UnpackPlanes(planes, size, name="unpack_planes")(packed, syms)
    outputs = net(planes_in)
    if isinstance(outputs, (list, tuple)):
        outputs = [keras.layers.Identity(name=name)(out)
                   for name, out in zip(net.output_names, outputs)]
    else:
        outputs = keras.layers.Identity(name=net.output_names[0])(outputs)
    return keras.Model([packed, syms], outputs, name=f"{net.name}_on_packed_planes")
