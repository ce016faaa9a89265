"""Saving and loading networks, with what they were trained on.

A network is only usable with the feature planes it was trained on and on
the board size it was built for, so a saved network records both, and what
it predicts::

    save_model(model, "runs/sl.keras", encoder=features.ALPHAGO48)
    model = load_model("runs/sl.keras")
    info = model_info(model)        # NetworkInfo(kind='policy', encoder='alphago48', board_size=19)

The file is Keras's own ``.keras`` format, a zip archive (``config.json``,
``metadata.json``, ``model.weights.h5``), with one member more,
``mockgo.json``::

    {"format": 1, "kind": "policy", "encoder": "alphago48", "board_size": 19,
     "architecture": "policy_network"}

(``architecture``: the name of :data:`~mockgo.nets.architectures.ARCHITECTURES`
it was built by, for a network built by name; the kind is read from there,
and files without the name are read by their ``kind``.)

A network saved by the process that trained it also records where it
trained (:func:`trained_by`), so that its card can say so::

    "trained_by": {"device": "GPU (NVIDIA H200)", "precision": "mixed_bfloat16",
                   "backend": "jax"}

Keras ignores members it does not know, so any Keras 3 program loads these
files. :func:`load_model` reads the member back and attaches it to the
model (``model.mockgo_info``), so a model loaded from a file carries its
encoder wherever it is passed (players, ``mockgo evaluate``, a Predictor).

Files saved before mockgo recorded this (or by plain ``model.save``) still
load: :func:`model_info` then infers the encoder from the number of input
planes (the one encoder of :mod:`mockgo.go.features` that makes that many)
and warns, unless the caller names the encoder.

Every write is atomic: the model is saved to a temporary file beside the
target and renamed over it, so a crash leaves the old file or the new one.
"""

import dataclasses
import json
import warnings
import zipfile
from pathlib import Path

from mockgo.data.files import CorruptFileError, atomic_path
from mockgo.go.features import ENCODERS
from mockgo.nets.architectures import ARCHITECTURES
from mockgo.nets.device import compute_device, computing_precision

__all__ = ["INFO_MEMBER", "KINDS", "NetworkInfo", "as_float32",
           "infer_info", "kind_of", "load_model", "mark_trained_here", "model_info", "read_info",
           "read_trained_by", "save_for_play", "save_model", "trained_by"]

INFO_MEMBER = "mockgo.json"  #: The member of a .keras file that holds mockgo's record.
INFO_FORMAT = 1
KINDS = ("policy", "value", "dual")  #: The kinds of network, by their heads.


@dataclasses.dataclass(frozen=True)
class NetworkInfo:
    """What a network reads and predicts: ``kind`` (``"policy"``, ``"value"``
    or ``"dual"``: policy and value heads), ``encoder`` (a name of
    :data:`mockgo.go.features.ENCODERS`) and ``board_size``."""

    kind: str
    encoder: str
    board_size: int

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.encoder not in ENCODERS:
            raise ValueError(f"unknown encoder {self.encoder!r}; known: {', '.join(ENCODERS)}")

    def to_json(self):
        return {"format": INFO_FORMAT, **dataclasses.asdict(self)}


def kind_of(model):
    """The kind of ``model``: its architecture's
    (:data:`~mockgo.nets.architectures.ARCHITECTURES`) when it was built by
    name or loaded from a file that records the name; else guessed from its
    outputs: ``"dual"`` for two outputs (or outputs named policy and value,
    with the auxiliary heads of :func:`mockgo.nets.models.dual_network` after
    them), ``"value"`` for one output of one unit, else ``"policy"``."""
    architecture = ARCHITECTURES.get(getattr(model, "mockgo_architecture", None))
    if architecture is not None:
        return architecture.kind
    if len(model.outputs) == 2 or {"policy", "value"} <= set(model.output_names):
        return "dual"
    return "value" if model.outputs[0].shape[-1] == 1 else "policy"


def _input_shape(model):
    shape = model.inputs[0].shape
    rows, cols, planes = int(shape[1]), int(shape[2]), int(shape[3])
    if rows != cols:
        raise ValueError(f"the model's input {tuple(shape[1:])} is not square")
    return rows, planes


def infer_info(model, encoder=None):
    """The :class:`NetworkInfo` of ``model`` from its shapes: the board size
    from its input, the kind from its outputs, and ``encoder``, or the one
    encoder with as many planes as its input (ValueError if there is none,
    or if ``encoder`` makes another number of planes)."""

    size, planes = _input_shape(model)
    matching = [name for name, cls in ENCODERS.items() if len(cls.plane_names) == planes]
    if encoder is None:
        if len(matching) != 1:
            raise ValueError(f"cannot tell the encoder of a model with {planes} planes "
                             f"(candidates: {matching or 'none'}); name it")
        encoder = matching[0]
    elif encoder not in ENCODERS:
        raise ValueError(f"unknown encoder {encoder!r}; known: {', '.join(ENCODERS)}")
    elif len(ENCODERS[encoder].plane_names) != planes:
        raise ValueError(f"encoder {encoder!r} makes {len(ENCODERS[encoder].plane_names)} "
                         f"planes but the model takes {planes}; "
                         f"try encoder={'/'.join(matching) or '?'}")
    return NetworkInfo(kind_of(model), encoder, size)


def model_info(model, encoder=None, source=None):
    """What ``model`` reads and predicts: the information it was saved with
    (attached by :func:`load_model`), or, for a model without any, inferred
    from its shapes (:func:`infer_info`) with a warning naming ``source``
    (its file) unless ``encoder`` is given. A given ``encoder`` that
    disagrees with the recorded one is an error."""
    recorded = getattr(model, "mockgo_info", None)
    if recorded is not None:
        if encoder is not None and encoder != recorded.encoder:
            where = f" ({source})" if source else ""
            raise ValueError(f"the network{where} was trained on {recorded.encoder} planes, "
                             f"not {encoder}")
        return recorded
    info = infer_info(model, encoder)
    if encoder is None and source is not None:
        warnings.warn(f"{source} records no encoder (saved before mockgo recorded it); "
                      f"assuming {info.encoder} from its {_input_shape(model)[1]} input planes",
                      stacklevel=3)
    return info


def trained_by(model):
    """Where ``model`` was trained, for its card: ``{"device", "precision",
    "backend"}``. A model loaded from a file carries what the file records
    (``model.mockgo_trained_by``; None for a file that records nothing), so
    saving it again on another machine does not claim that machine; a model
    made in this process was trained here, on this device and backend."""
    if hasattr(model, "mockgo_trained_by"):
        return model.mockgo_trained_by
    import keras  # the backend: imported only when a network is used

    return {"device": compute_device(), "precision": computing_precision(model),
            "backend": keras.backend.backend()}


def mark_trained_here(model):
    """Say that ``model`` (loaded from a file) is trained further in this
    process: saving it then records this process's device, precision and
    backend (:func:`trained_by`), not those the file recorded. A network
    trained over several sessions records the last one's. Returns ``model``."""
    if hasattr(model, "mockgo_trained_by"):
        del model.mockgo_trained_by
    return model


def _read_member(path):
    """The ``mockgo.json`` record of a ``.keras`` file as a dict, or None."""
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as archive:
            if INFO_MEMBER not in archive.namelist():
                return None
            return json.loads(archive.read(INFO_MEMBER))
    except (zipfile.BadZipFile, EOFError) as error:
        # Keras itself would say "File not found" of a file cut short (it
        # checks zipfile.is_zipfile), which sends one looking in the wrong place.
        raise CorruptFileError(f"{path} is not a Keras model: not a readable .keras archive "
                               f"(a zip file; this one is damaged or cut short, e.g. by a full "
                               f"disk or an interrupted copy: {error})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise CorruptFileError(f"{path}: its {INFO_MEMBER} is damaged: {error}") from None


def read_trained_by(path):
    """Where the network in ``path`` was trained (:func:`trained_by`), or
    None for a file that does not record it."""
    record = _read_member(path)
    trained = None if record is None else record.get("trained_by")
    return trained if isinstance(trained, dict) else None


def read_info(path):
    """The :class:`NetworkInfo` recorded in a ``.keras`` file, or None for a
    file without it. :class:`~mockgo.data.files.CorruptFileError` (a
    ValueError) naming the file for one that is not a whole zip archive or
    whose record is damaged."""
    path = Path(path)
    record = _read_member(path)
    if record is None:
        return None
    # The kind is the recorded architecture's where the file names one
    # mockgo knows; a file saved before mockgo recorded it says its kind.
    architecture = ARCHITECTURES.get(record.get("architecture"))
    try:
        kind = architecture.kind if architecture is not None else record["kind"]
        return NetworkInfo(kind, record["encoder"], int(record["board_size"]))
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{path}: its {INFO_MEMBER} is not a network record: {error}") from None


def save_model(model, path, encoder=None):
    """Save ``model`` (with its optimiser state, if compiled) to ``path``,
    atomically, recording its kind, encoder and board size
    (:func:`model_info`: what it carries, else ``encoder``, else the one
    encoder with as many planes) and where it was trained (:func:`trained_by`,
    when known). Returns the path."""
    info = model_info(model, encoder)
    record = info.to_json()
    trained = trained_by(model)
    if trained is not None:
        record["trained_by"] = trained
    architecture = getattr(model, "mockgo_architecture", None)
    if architecture is not None:
        record["architecture"] = architecture
    with atomic_path(path, suffix=".tmp.keras") as temporary:
        model.save(temporary)
        with zipfile.ZipFile(temporary, "a") as archive:
            archive.writestr(INFO_MEMBER, json.dumps(record))
    return Path(path)


def load_model(path, compile=False, encoder=None):
    """A network saved as ``.keras`` (policy, value or dual; mockgo's custom
    layers registered first), uncompiled unless ``compile``, with its
    :class:`NetworkInfo` attached as ``model.mockgo_info`` (inferred with a
    warning for a file that records none, unless ``encoder`` names it).
    FileNotFoundError or ValueError naming the file when it is missing or
    not a Keras model (:class:`~mockgo.data.files.CorruptFileError` for a
    file that is not a readable archive, e.g. one cut short)."""
    import keras  # TensorFlow: imported only when a network is used

    import mockgo.nets.models  # noqa: F401  (registers PointBias)

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no model file {path}")
    recorded = read_info(path)
    trained = read_trained_by(path)
    try:
        model = keras.models.load_model(path, compile=compile)
    except Exception as error:  # Keras raises several kinds for a damaged file
        raise ValueError(f"{path} is not a Keras model that loads: {error}") from error
    if recorded is not None:
        model.mockgo_info = recorded
    architecture = (_read_member(path) or {}).get("architecture")
    if architecture is not None:
        model.mockgo_architecture = architecture
    model.mockgo_trained_by = trained
    # The record, checked against ``encoder``; or, for an old file, inferred.
    model.mockgo_info = model_info(model, encoder, source=path)
    return model


# ------------------------------------------------------ networks for playing


def _float32_config(config):
    """A model config with every mixed-precision dtype policy made float32."""
    if isinstance(config, dict):
        if config.get("class_name") == "DTypePolicy":
            name = config.get("config", {}).get("name", "")
            if name.startswith("mixed_"):
                return {**config, "config": {**config["config"], "name": "float32"}}
        return {key: _float32_config(value) for key, value in config.items()}
    if isinstance(config, list):
        return [_float32_config(value) for value in config]
    if isinstance(config, str) and config.startswith("mixed_"):
        return "float32"
    return config


def as_float32(model):
    """``model`` itself if it computes in float32, else a float32 copy with
    the same weights (mixed-precision models keep float32 weights)."""
    import mockgo.nets.models  # noqa: F401  (PointBias)

    if all(layer.dtype_policy.name in ("float32", "uint8") or layer.dtype_policy.name.startswith("int")
           for layer in model.layers):
        return model
    copy = model.__class__.from_config(_float32_config(model.get_config()))
    copy.set_weights(model.get_weights())
    for name in ("mockgo_info", "mockgo_architecture"):
        if hasattr(model, name):
            setattr(copy, name, getattr(model, name))
    copy.mockgo_trained_by = trained_by(model)  # the original's precision, not float32
    return copy


def save_for_play(model, path, encoder=None):
    """Save a network for playing and predicting: float32, without optimiser
    state, atomically, with its record (:func:`save_model`). Returns the path."""
    import keras  # TensorFlow: imported only when a network is used

    info = model_info(model, encoder)
    trained = trained_by(model)  # before the float32 copy: the precision it trained in
    model = as_float32(model)
    # A new Model on the same layers: no optimiser state. model.input, not
    # model.inputs: a one-element list would make the saved model expect a
    # list and warn when called on an array.
    plain = keras.Model(model.input, model.output, name=model.name)
    plain.mockgo_info = info
    plain.mockgo_trained_by = trained
    if hasattr(model, "mockgo_architecture"):
        plain.mockgo_architecture = model.mockgo_architecture
    return save_model(plain, path)
