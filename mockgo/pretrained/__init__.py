"""Trained networks that ship with mockgo, loaded by name.

A full-mode notebook takes hours on a laptop; the networks those runs
produced ship in this folder, each a ``.keras`` file (which records its
encoder and board size, :mod:`mockgo.nets.io`) and a *model card*, a JSON
file of the same name: the architecture, the data it was trained on, how
long it took and on what, what it measured, the command that reproduces it,
the date and the file's sha256::

    from mockgo import pretrained
    pretrained.names()                 # ['sl-19', ...]
    pretrained.card("sl-19")["results"]
    model = pretrained.load("sl-19")   # checks the sha256 first

As a player: ``policy:pretrained=sl-19`` (``mockgo gtp --player
policy:pretrained=sl-19`` in Sabaki); ``mockgo models`` lists them.
"""

import hashlib
import json
from pathlib import Path

from mockgo.data.files import atomic_write_text
from mockgo.nets.io import load_model, model_info, save_for_play, trained_by

__all__ = ["FOLDER", "card", "checked_path", "file_sha256", "headline", "load", "names", "path",
           "ship", "stand_in_note", "table"]

FOLDER = Path(__file__).resolve().parent  #: The folder of the shipped networks and cards.


def names():
    """The shipped networks' names, sorted."""
    return sorted(p.stem for p in FOLDER.glob("*.json"))


def card(name):
    """The model card of ``name`` as a dict. ValueError naming the known
    networks for an unknown name."""
    path = FOLDER / f"{name}.json"
    if not path.is_file():
        raise ValueError(f"no pretrained network {name!r}; shipped: {', '.join(names()) or 'none'}")
    return json.loads(path.read_text(encoding="utf-8"))


def path(name):
    """The ``.keras`` file of ``name``."""
    return FOLDER / card(name)["file"]


def file_sha256(file):
    """The sha256 of ``file``'s bytes, in hexadecimal."""
    digest = hashlib.sha256()
    with open(file, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def checked_path(name):
    """The ``.keras`` file of ``name``, after checking that it is the one its
    card describes (ValueError naming the file otherwise)."""
    file = path(name)
    if file_sha256(file) != card(name)["sha256"]:
        raise ValueError(f"{file} is not the file its card describes (sha256 differs): "
                         f"reinstall mockgo")
    return file


def load(name):
    """The network ``name`` (uncompiled, its record attached), after checking
    that the file is the one its card describes."""
    return load_model(checked_path(name))


TABLE_COLUMNS = ("name", "kind", "board", "planes", "headline")


def headline(name):
    """One line on a shipped network: what it is and its headline figure."""
    return "  ".join(_row(name))


def stand_in_note(name, what, notebook):
    """How a note names the shipped network ``name`` when it stands in for
    one of this machine's runs (a notebook's loaded network, a ladder's
    player): what it is first (notebook ``notebook``'s full run's ``what``,
    its card's headline); the note says why it stands in after."""
    return (f"{name}, the {what} that notebook {notebook}'s full run trained, as it ships with "
            f"mockgo ({card(name)['headline']}; its card: mockgo models {name})")


def _row(name):
    info = card(name)
    size = info["board_size"]
    return (name, info["kind"], f"{size}x{size}", info["encoder"], info["headline"])


def table(shipped=None):
    """The shipped networks as a text table with a header, one row each
    (``mockgo models``): name, kind (policy, value or dual), board, the
    encoder of its input planes, and its headline figure."""
    rows = [TABLE_COLUMNS] + [_row(name) for name in (names() if shipped is None else shipped)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(TABLE_COLUMNS) - 1)]
    return "\n".join("  ".join([*(cell.ljust(w) for cell, w in zip(row, widths)), row[-1]])
                     for row in rows)


def ship(name, source, encoder=None, **fields):
    """Put a trained network into this folder (for the maintainers: the
    files are then committed): ``source`` (a ``.keras`` file that records its
    encoder, or whose ``encoder`` is given) is saved for play as
    ``<name>.keras``, float32 and without optimiser state, and its card
    ``<name>.json`` gets ``fields`` (the
    architecture's description, training, results, headline, command,
    date) and what is read off the file (kind, encoder, board size,
    parameters, bytes, sha256, and the device, precision and Keras backend
    that trained it where the file records them). Both written atomically.
    Returns the card."""
    model = load_model(source, encoder=encoder)
    info = model_info(model)
    file = FOLDER / f"{name}.keras"
    save_for_play(model, file)
    architecture = dict(fields.pop("architecture", {}), parameters=int(model.count_params()))
    record = {"name": name, "file": file.name, "kind": info.kind, "encoder": info.encoder,
              "board_size": info.board_size, "architecture": architecture, **fields,
              "bytes": file.stat().st_size, "sha256": file_sha256(file)}
    if trained_by(model) is not None:
        record["trained_by"] = trained_by(model)
    atomic_write_text(FOLDER / f"{name}.json", json.dumps(record, indent=1) + "\n")
    return record


# ------------------------------------------------------------ command line


def configure_parser(parser):
    """The options of ``mockgo models``."""
    parser.description = ("List the trained networks that ship with mockgo, with their "
                          "headline figures; play one with --player policy:pretrained=NAME.")
    parser.add_argument("name", nargs="?", help="print this network's whole model card")
    return parser


def run_cli(args):
    if args.name:
        print(json.dumps(card(args.name), indent=1))
        return 0
    shipped = names()
    if not shipped:
        print("no pretrained network ships with this copy of mockgo")
        return 0
    print(table(shipped))
    print("\nmockgo models NAME prints a network's whole card. As players: "
          "policy:pretrained=NAME (a policy), mcts:pretrained=NAME (a dual network),\n"
          "alphago:policy_pretrained=NAME,value_pretrained=NAME (a policy and a value network).")
    return 0
