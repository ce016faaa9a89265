"""The networks mockgo builds, by name, each with its kind.

:data:`ARCHITECTURES` maps a name to an :class:`Architecture`: the builder
of :mod:`mockgo.nets.models` that makes it and what it predicts (``"policy"``,
``"value"`` or ``"dual"``: a policy and a value head), as
:data:`mockgo.go.features.ENCODERS` names the feature planes and
:data:`mockgo.play.specs.PLAYER_KINDS` the players::

    net = build_network("policy_network", board_size=9, planes=48, layers=3, filters=16)
    ARCHITECTURES["dual_network"].kind      # "dual"

A network built here carries its name (``model.mockgo_architecture``), a file
saved from it records it (:func:`mockgo.nets.io.save_model`), and its kind is
then read from this table (:func:`mockgo.nets.io.kind_of`) instead of being
guessed from its outputs, which is what is left for a file saved before
mockgo recorded the name, or a network built some other way.

This module imports no Keras: the builders are looked up in
:mod:`mockgo.nets.models` only when a network is built.
"""

import dataclasses
import importlib

__all__ = ["ARCHITECTURES", "Architecture", "build_network"]

MODELS = "mockgo.nets.models"  # the module of every builder


@dataclasses.dataclass(frozen=True)
class Architecture:
    """One network mockgo builds: its ``name`` (that of its builder in
    :mod:`mockgo.nets.models`), its ``kind`` and a one-line ``description``."""

    name: str
    kind: str
    description: str

    @property
    def builder(self):
        """The builder's full name, as a network's card records it."""
        return f"{MODELS}.{self.name}"

    def build(self, **sizes):
        """A new, uncompiled network of this architecture (the builder's
        arguments: board size, planes, layers...), carrying its name."""
        # Keras: imported only when a network is built (module docstring).
        model = getattr(importlib.import_module(MODELS), self.name)(**sizes)
        model.mockgo_architecture = self.name
        return model


#: The architectures by name (:class:`Architecture`).
ARCHITECTURES = {architecture.name: architecture for architecture in (
    Architecture("policy_network", "policy", "AlphaGo's SL policy network: a softmax over the "
                 "points"),
    Architecture("value_network", "value", "AlphaGo's value network: one tanh unit"),
    Architecture("dual_network", "dual", "AlphaGo Zero's residual network, a policy and a "
                 "value head"),
    Architecture("imago_dense_network", "policy", "the Imago design's dense 9x9 move "
                 "predictor"),
    Architecture("imago_conv_network", "policy", "the Imago design's small convolutional 9x9 "
                 "move predictor"),
)}


def build_network(architecture, /, **sizes):
    """A new network of the architecture called ``architecture``
    (:data:`ARCHITECTURES`), built with ``sizes`` (the builder's arguments,
    ``name`` included: the Keras model's name); ValueError naming the known
    ones for an unknown architecture."""
    if architecture not in ARCHITECTURES:
        raise ValueError(f"unknown architecture {architecture!r}; known: "
                         f"{', '.join(ARCHITECTURES)}")
    return ARCHITECTURES[architecture].build(**sizes)
