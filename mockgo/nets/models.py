"""Keras 3 builders for the networks of the tutorials.

Every builder returns an *uncompiled* functional :class:`keras.Model` (the
training code chooses optimiser and losses), with every size a parameter.
Inputs are channels-last planes of shape ``(N, N, planes)``, the arrays
:mod:`mockgo.go.features` makes. The input layer takes ``uint8`` (``input_dtype``
changes that) and the first layer, ``to_float`` (a ``keras.layers.Rescaling(1.0)``),
casts to float32 inside the model, so data sets of 0/1 planes can stay uint8
(a quarter of the memory of float32).

The networks
------------
:func:`policy_network`
    AlphaGo's supervised-learning (SL) policy network (Silver et al. 2016,
    "Mastering the game of Go with deep neural networks and tree search",
    Methods, "Neural network architecture"): a first convolution of ``k``
    filters of 5x5 (ReLU), then 3x3 convolutions of ``k`` filters (ReLU), all
    with zero padding so every layer stays N x N; then a 1x1 convolution with
    one filter and *a different bias for each point* (:class:`PointBias`,
    added after flattening), and a softmax over the N*N points. The paper's
    network is ``policy_network(layers=13, filters=192)`` (13 convolutions in
    all, 48 input planes: :mod:`mockgo.go.features` ``alphago48``); the default
    here is a smaller 6 x 64. AlphaGo's policy never passes; with
    ``include_pass=True`` a pass logit is added (see the function).
:func:`value_network`
    AlphaGo's value network (same paper): the same convolutional trunk on the
    49 planes (``alphago49``: the 48 plus the colour to play), a 1x1
    convolution with one filter (ReLU), then a dense layer of 256 ReLU units
    and one tanh unit: the expected outcome for the player to move, in [-1, 1].
:func:`dual_network`
    AlphaGo Zero's residual "dual" network (Silver et al. 2017, "Mastering the
    game of Go without human knowledge", Methods, "Neural network
    architecture"), as MiniGo's ``DualNet`` builds it: a 3x3 convolution with
    batch normalisation and ReLU, B residual blocks, a policy head giving
    N*N+1 move probabilities (pass last, as ``Board.legal_moves()`` orders
    moves) and a value head giving one tanh value. The paper's nets are
    ``blocks=19`` or ``39`` with ``filters=256`` on the 17 ``agz17`` planes.
:func:`imago_dense_network`, :func:`imago_conv_network`
    The two small 9x9 move predictors of the Imago design, the first networks
    a learner trains: a dense net and a little convolutional net on two
    planes, own stones and opponent stones (:mod:`mockgo.go.features`
    ``simple2``), predicting one of the 82 moves (81 points + pass). The
    design fixes the layer types and the dense widths (81 = one unit per
    point); the convolution widths, 32 then 64, are this module's choice.

Output names and logits
-----------------------
Policies end in a softmax layer named ``"policy"`` fed by a layer named
``"logits"`` (``"policy_logits"`` in the dual net); :func:`logits_model`
gives a model that outputs the logits (for masking illegal moves before the
softmax, or a from-logits loss). The dual net's outputs are the list
``[policy, value]`` and its output layers are named ``"policy"`` and
``"value"``, so ``compile(loss={"policy": ..., "value": ...})`` works; with
KataGo's auxiliary heads (``ownership_head``, ``score_head``) the outputs
``"ownership"`` and ``"score"`` follow, in that order, and
:func:`ownership_loss` is the ownership head's loss.

Saving
------
``model.save("net.keras")`` and ``keras.models.load_model("net.keras")``: the
one custom layer, :class:`PointBias`, is registered with Keras under the
package ``"mockgo"``, which happens when this module is imported; so
``import mockgo.nets.models`` before loading a policy network.
"""

import numbers

import keras

__all__ = [
    "PointBias",
    "dual_network",
    "ownership_loss",
    "imago_conv_network",
    "imago_dense_network",
    "logits_model",
    "minigo_tower",
    "policy_network",
    "value_network",
]


@keras.saving.register_keras_serializable(package="mockgo")
class PointBias(keras.layers.Layer):
    """Add a learned bias to each of the last axis's entries.

    After a 1-filter 1x1 convolution and a flatten this is AlphaGo's "different
    bias for each position" (a convolution's bias is one number per filter,
    shared by every point). Initialised to zeros.
    """

    def build(self, input_shape):
        self.bias = self.add_weight(
            name="bias", shape=(input_shape[-1],), initializer="zeros", trainable=True
        )

    def call(self, inputs):
        return inputs + keras.ops.cast(self.bias, inputs.dtype)

    def compute_output_shape(self, input_shape):
        return input_shape


@keras.saving.register_keras_serializable(package="mockgo")
def ownership_loss(y_true, y_pred):
    """The ownership head's loss (KataGo's): for each point, the
    cross-entropy between the label (+1 the player to move owns it at the
    end, -1 the opponent, 0 no one) read as the probability (1 + t) / 2
    that the player owns it, and the prediction read the same way;
    averaged over the points. Registered with Keras, so a model compiled
    with it loads compiled."""
    t = (1.0 + keras.ops.cast(y_true, "float32")) / 2.0
    p = keras.ops.clip((1.0 + keras.ops.cast(y_pred, "float32")) / 2.0, 1e-6, 1.0 - 1e-6)
    return -keras.ops.mean(t * keras.ops.log(p) + (1.0 - t) * keras.ops.log(1.0 - p), axis=-1)


def _check(board_size, planes, **positive):
    if not isinstance(board_size, numbers.Integral) or not 2 <= board_size <= 25:
        raise ValueError(f"board_size must be an int from 2 to 25, got {board_size!r}")
    for name, value in dict(planes=planes, **positive).items():
        if not isinstance(value, numbers.Integral) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")


def _input(board_size, planes, input_dtype):
    """The planes input, and the same cast to float32 (the compute dtype)."""
    inputs = keras.Input(shape=(board_size, board_size, planes), dtype=input_dtype,
                         name="planes")
    return inputs, keras.layers.Rescaling(1.0, name="to_float")(inputs)


def _alphago_trunk(x, count, filters, first_kernel):
    """AlphaGo's convolutions: one of first_kernel x first_kernel, then 3x3 ones."""
    x = keras.layers.Conv2D(filters, first_kernel, padding="same", activation="relu",
                            name="conv_1")(x)
    for i in range(2, count):
        x = keras.layers.Conv2D(filters, 3, padding="same", activation="relu", name=f"conv_{i}")(x)
    return x


def policy_network(board_size=19, planes=48, layers=6, filters=64, first_kernel=5,
                   include_pass=False, input_dtype="uint8", name="policy_network"):
    """AlphaGo's SL policy network (see the module docstring).

    ``layers`` counts the convolutions: the first (``first_kernel``), the
    ``layers - 2`` 3x3 ones and the final 1x1 one; so ``layers >= 2``. The
    output is the move probabilities, shape ``(N*N,)``, or ``(N*N + 1,)``
    with ``include_pass`` (pass last).

    The pass logit (``include_pass=True``) is one dense unit (with bias) on
    the flattened output of the last ReLU convolution (N*N*k features), the
    features the point logits come from: whether to pass depends on the whole
    board (is anything left worth playing?), which the single-filter point
    logits summarise too narrowly. It is concatenated after the N*N point
    logits, and the softmax runs over all N*N + 1.
    """
    _check(board_size, planes, layers=layers, filters=filters, first_kernel=first_kernel)
    if layers < 2:
        raise ValueError(f"the policy network needs at least 2 layers, got {layers}")
    inputs, x = _input(board_size, planes, input_dtype)
    trunk = _alphago_trunk(x, layers, filters, first_kernel)
    x = keras.layers.Conv2D(1, 1, use_bias=False, name=f"conv_{layers}")(trunk)
    x = keras.layers.Flatten(name="flatten")(x)
    logits = PointBias(name="point_logits" if include_pass else "logits")(x)
    if include_pass:
        features = keras.layers.Flatten(name="trunk_flatten")(trunk)
        pass_logit = keras.layers.Dense(1, name="pass_logit")(features)
        logits = keras.layers.Concatenate(name="logits")([logits, pass_logit])
    # The softmax in float32 even under a mixed-precision policy, as Keras
    # wants a model's outputs: the loss and the top-k metric then see float32
    # probabilities.
    outputs = keras.layers.Activation("softmax", dtype="float32", name="policy")(logits)
    return keras.Model(inputs, outputs, name=name)


def value_network(board_size=19, planes=49, layers=6, filters=64, first_kernel=5,
                  hidden=256, input_dtype="uint8", name="value_network"):
    """AlphaGo's value network (see the module docstring).

    The trunk is the policy network's (``layers - 1`` convolutions: the first
    and ``layers - 2`` 3x3 ones), then a 1x1 convolution of one filter (ReLU),
    flatten, a dense layer of ``hidden`` ReLU units and one tanh unit. Output
    shape ``(1,)``, in [-1, 1]; layer name ``"value"``. The paper's is
    ``value_network(layers=13, filters=192)``.
    """
    _check(board_size, planes, layers=layers, filters=filters, first_kernel=first_kernel,
           hidden=hidden)
    if layers < 2:
        raise ValueError(f"the value network needs at least 2 layers, got {layers}")
    inputs, x = _input(board_size, planes, input_dtype)
    x = _alphago_trunk(x, layers, filters, first_kernel)
    x = keras.layers.Conv2D(1, 1, activation="relu", name=f"conv_{layers}")(x)
    x = keras.layers.Flatten(name="flatten")(x)
    x = keras.layers.Dense(hidden, activation="relu", name="value_hidden")(x)
    outputs = keras.layers.Dense(1, activation="tanh", name="value")(x)
    return keras.Model(inputs, outputs, name=name)


def minigo_tower(board_size):
    """MiniGo's defaults for the dual network on a ``board_size`` board:
    ``(blocks, filters, value_hidden)``. Its ``dual_net.py`` takes as many
    residual blocks as the board has lines (``trunk_layers = go.N``: 19 on
    19x19, 9 on 9x9), 256 filters and a 256-unit value layer on 19x19 (the
    paper's widths) and 32 filters and 64 units on smaller boards."""
    if board_size == 19:
        return board_size, 256, 256
    return board_size, 32, 64


def dual_network(board_size=19, planes=17, blocks=None, filters=None, value_hidden=None,
                 l2=0.0, input_dtype="uint8", name="dual_network", ownership_head=False,
                 score_head=False, global_pooling=0):
    """AlphaGo Zero's residual policy-and-value network (MiniGo's DualNet).

    - convolutional block: 3x3 convolution of F filters, batch norm, ReLU;
    - ``blocks`` residual blocks: conv 3x3, BN, ReLU, conv 3x3, BN, add the
      block's input, ReLU;
    - policy head: 1x1 convolution of 2 filters, BN, ReLU, flatten, dense to
      N*N + 1 logits (layer ``"policy_logits"``), softmax (``"policy"``);
    - value head: 1x1 convolution of 1 filter, BN, ReLU, flatten, dense of
      ``value_hidden`` ReLU units, dense 1 tanh (``"value"``).

    ``blocks``, ``filters`` and ``value_hidden`` left None take MiniGo's
    defaults for the board size (:func:`minigo_tower`: 19 blocks of 256
    filters and 256 value units on 19x19, 9 blocks of 32 filters and 64
    units on 9x9; a GPU's sizes: the Zero loop's CPU runs set smaller ones,
    :class:`mockgo.zero.config.ZeroConfig`). Convolutions
    have no bias (the batch norm after each has one, its beta). ``l2 > 0``
    puts an L2 kernel regulariser of that factor on every convolution and
    dense layer (the paper's weight decay; ``model.losses`` then holds the
    penalties and ``fit`` adds them to the loss); batch-norm parameters are
    not decayed. Outputs: ``[policy (N*N+1,), value (1,)]``.

    KataGo's additions (Wu 2019, "Accelerating Self-Play Learning in Go"),
    each an option, all off by default (a network built without them is
    MiniGo's, layer for layer, so models saved before they existed load
    and play unchanged):

    - ``ownership_head``: a 1x1 convolution of 1 filter (with bias) on the
      tower, tanh: for each point, who will own it at the end of the game,
      +1 the player to move, -1 the opponent (output ``"ownership"``,
      shape ``(N*N,)``). 81 labels a position on 9x9 instead of one: the
      auxiliary target that KataGo found to speed learning most.
    - ``score_head``: one linear unit on the value head's hidden layer: the
      final margin (area minus the opponent's, with komi) for the player to
      move, as a share of the board's N*N points (output ``"score"``).
    - ``global_pooling``: the number of channels of each *global pooling
      block* (``_global_pooling_block``); blocks 2, 5, 8, ... (every
      third, from the second, as KataGo spaces them) are such blocks, the
      others plain. 0: none.

    Outputs in this order: policy, value, then ownership and score if asked.
    """
    default_blocks, default_filters, default_hidden = minigo_tower(board_size)
    blocks = default_blocks if blocks is None else blocks
    filters = default_filters if filters is None else filters
    value_hidden = default_hidden if value_hidden is None else value_hidden
    if not isinstance(blocks, int) or blocks < 0:
        raise ValueError(f"blocks must be an int >= 0, got {blocks!r}")
    _check(board_size, planes, filters=filters)
    if l2 < 0:
        raise ValueError(f"l2 must be >= 0, got {l2!r}")
    regularizer = keras.regularizers.L2(l2) if l2 > 0 else None

    def conv(x, width, kernel, layer_name):
        return keras.layers.Conv2D(width, kernel, padding="same", use_bias=False,
                                    kernel_regularizer=regularizer, name=layer_name)(x)

    def norm(x, layer_name):
        return keras.layers.BatchNormalization(name=layer_name)(x)

    def relu(x, layer_name):
        return keras.layers.Activation("relu", name=layer_name)(x)

    def dense(x, units, activation, layer_name):
        return keras.layers.Dense(units, activation=activation, kernel_regularizer=regularizer,
                                   name=layer_name)(x)

    if not isinstance(global_pooling, int) or not 0 <= global_pooling < filters:
        raise ValueError(f"global_pooling must be an int from 0 to filters - 1 ({filters - 1}), "
                         f"got {global_pooling!r}")
    inputs, x = _input(board_size, planes, input_dtype)
    x = relu(norm(conv(x, filters, 3, "init_conv"), "init_bn"), "init_relu")
    for b in range(1, blocks + 1):
        shortcut = x
        if global_pooling and b % 3 == 2:
            x = _global_pooling_block(x, filters, global_pooling, f"res{b}", conv, norm, relu,
                                      regularizer)
        else:
            x = conv(x, filters, 3, f"res{b}_conv1")
        x = relu(norm(x, f"res{b}_bn1"), f"res{b}_relu1")
        x = norm(conv(x, filters, 3, f"res{b}_conv2"), f"res{b}_bn2")
        x = keras.layers.Add(name=f"res{b}_add")([x, shortcut])
        x = relu(x, f"res{b}_relu2")
    trunk = x

    p = relu(norm(conv(trunk, 2, 1, "policy_conv"), "policy_bn"), "policy_relu")
    p = keras.layers.Flatten(name="policy_flatten")(p)
    p = dense(p, board_size * board_size + 1, None, "policy_logits")
    policy = keras.layers.Activation("softmax", name="policy")(p)

    v = relu(norm(conv(trunk, 1, 1, "value_conv"), "value_bn"), "value_relu")
    v = keras.layers.Flatten(name="value_flatten")(v)
    v = dense(v, value_hidden, "relu", "value_hidden")
    value = dense(v, 1, "tanh", "value")
    outputs = [policy, value]
    if ownership_head:
        o = keras.layers.Conv2D(1, 1, kernel_regularizer=regularizer, name="ownership_conv")(trunk)
        o = keras.layers.Flatten(name="ownership_flatten")(o)
        outputs.append(keras.layers.Activation("tanh", dtype="float32", name="ownership")(o))
    if score_head:
        outputs.append(keras.layers.Dense(1, kernel_regularizer=regularizer, dtype="float32",
                                          name="score")(v))
    return keras.Model(inputs, outputs, name=name)


def _global_pooling_block(x, filters, pooled, prefix, conv, norm, relu, regularizer):
    """The first convolution of KataGo's global pooling residual block: a
    3x3 convolution of ``filters - pooled`` channels, and beside it one of
    ``pooled`` channels that are batch-normalised, ReLU'd and pooled over the
    whole board (mean and max: 2 x ``pooled`` numbers); a dense layer turns
    those into one bias per channel, added at every point of the first. So
    every point sees the whole board within a block: how much territory
    each side has, whether a ko threat exists somewhere (a plain 3x3 tower
    sees 2 points further per convolution). Returns the biased
    ``filters - pooled`` channels; the block's second convolution reads
    them and gives ``filters`` again, for the residual sum."""
    regular = conv(x, filters - pooled, 3, f"{prefix}_conv1")
    g = relu(norm(conv(x, pooled, 3, f"{prefix}_gpool_conv"), f"{prefix}_gpool_bn"),
             f"{prefix}_gpool_relu")
    mean = keras.layers.GlobalAveragePooling2D(name=f"{prefix}_gpool_mean")(g)
    peak = keras.layers.GlobalMaxPooling2D(name=f"{prefix}_gpool_max")(g)
    pooled_features = keras.layers.Concatenate(name=f"{prefix}_gpool_concat")([mean, peak])
    bias = keras.layers.Dense(filters - pooled, use_bias=False,
                              kernel_regularizer=regularizer,
                              name=f"{prefix}_gpool_bias")(pooled_features)
    bias = keras.layers.Reshape((1, 1, filters - pooled), name=f"{prefix}_gpool_reshape")(bias)
    return keras.layers.Add(name=f"{prefix}_gpool_add")([regular, bias])


def imago_dense_network(board_size=9, planes=2, hidden=81, input_dtype="uint8",
                        name="imago_dense_network"):
    """Imago's small dense move predictor: two dense layers of ``hidden`` (81)
    ReLU units applied at every point (a Keras ``Dense`` on an ``(N, N,
    planes)`` input acts on the last axis: the same weights read each
    point's planes, like a 1x1 convolution), then flatten, dense to N*N + 1
    logits (``"logits"``), softmax (``"policy"``). Only the last layer sees
    the whole board, so it is where the network learns where moves go.
    Output ``(N*N + 1,)``, pass last."""
    _check(board_size, planes, hidden=hidden)
    inputs, x = _input(board_size, planes, input_dtype)
    x = keras.layers.Dense(hidden, activation="relu", name="dense_1")(x)
    x = keras.layers.Dense(hidden, activation="relu", name="dense_2")(x)
    x = keras.layers.Flatten(name="flatten")(x)
    logits = keras.layers.Dense(board_size * board_size + 1, name="logits")(x)
    outputs = keras.layers.Activation("softmax", name="policy")(logits)
    return keras.Model(inputs, outputs, name=name)


def imago_conv_network(board_size=9, planes=2, filters=(32, 64), kernel=3,
                       input_dtype="uint8", name="imago_conv_network"):
    """The small convolutional move predictor: for each entry of ``filters``
    (32 then 64 by default, doubling as the board shrinks, the usual choice
    for a first CNN) a ``kernel`` x ``kernel`` convolution (ReLU, same
    padding) and a 2x2 max-pooling with same padding (9x9 -> 5x5 -> 3x3);
    then flatten, dense to N*N + 1 logits (``"logits"``), softmax
    (``"policy"``). Output ``(N*N + 1,)``, pass last."""
    filters = tuple(filters)
    widths = {f"filters[{i}]": width for i, width in enumerate(filters)}
    _check(board_size, planes, kernel=kernel, **widths)
    inputs, x = _input(board_size, planes, input_dtype)
    for i, width in enumerate(filters, start=1):
        x = keras.layers.Conv2D(width, kernel, padding="same", activation="relu",
                                 name=f"conv_{i}")(x)
        x = keras.layers.MaxPooling2D(2, padding="same", name=f"pool_{i}")(x)
    x = keras.layers.Flatten(name="flatten")(x)
    logits = keras.layers.Dense(board_size * board_size + 1, name="logits")(x)
    outputs = keras.layers.Activation("softmax", name="policy")(logits)
    return keras.Model(inputs, outputs, name=name)


def logits_model(model):
    """A model sharing ``model``'s weights whose output is its policy logits
    (the input of the ``"policy"`` softmax): the layer named ``"logits"``, or
    ``"policy_logits"`` in a dual network."""
    names = {layer.name for layer in model.layers}
    for candidate in ("logits", "policy_logits"):
        if candidate in names:
            # One input as a tensor, not a one-element list (save_policy's
            # copies have one): a list would make the new model expect a list
            # and warn when called on an array.
            inputs = model.inputs[0] if len(model.inputs) == 1 else model.inputs
            return keras.Model(inputs, model.get_layer(candidate).output,
                               name=f"{model.name}_logits")
    raise ValueError(f"{model.name} has no layer named 'logits' or 'policy_logits'")

