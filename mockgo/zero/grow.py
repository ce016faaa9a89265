"""Growing the network: train a bigger dual network on a run's self-play
games, to go on with it in a new run.

A small network learns fast at first, then stops improving: the 4-block,
32-filter network of notebook 04's long run gained little after about 130
generations, its training and held-out losses flat and equal (no
overfitting: the network is too small for what the search shows it). KataGo
(Wu 2019, section 5) trained networks of several sizes on the same
self-play data and moved self-play to the bigger one once it was stronger;
MiniGo's larger runs did the same. Here::

    from mockgo.zero.grow import grow_network

    grow_network("runs/zero-long", "runs/grown-6x64.keras", blocks=6, filters=64,
                 generations=range(100, 160), epochs=2)

trains a new network (the run's settings, ``blocks`` x ``filters``) on the
self-play games of ``generations``, with the loop's own targets, symmetries
and loss (:mod:`mockgo.zero.train`), and saves it. Then a new run
starts from it (``--init``, which takes the tower's size from the file)::

    python -m mockgo.zero --base-dir runs/zero-6x64 --init runs/grown-6x64.keras \\
        --katago --no-evaluate

Play the grown network against the run's own before switching
(``mockgo match``): a bigger network is not stronger until it has learned.
"""

import dataclasses
import time
from pathlib import Path

import numpy as np

from mockgo.nets.device import set_random_seed
from mockgo.nets.io import save_model
from mockgo.zero.config import ENCODER, seed_of
from mockgo.zero.layout import RunLayout, read_config, read_state
from mockgo.zero.examples import load_targets
from mockgo.zero.train import compile_dual, fit_epoch, new_network

__all__ = ["grow_network", "played_examples"]


def played_examples(base_dir, generations):
    """The self-play example files (``data/selfplay``, not the held-out
    games) of ``generations`` of the run in ``base_dir``: each generation's
    own self-play job, as its record in ``state.json`` names it (the model
    that played it: the one before it, or the best so far when the run
    evaluates). ValueError naming the run when a generation has none."""
    layout = RunLayout(base_dir)
    state = read_state(layout.state)
    files = []
    for g in generations:
        played = state["generations"].get(str(g), {}).get("selfplay")
        found = [] if played is None else layout.examples(played["model"], played["job"])
        if not found:
            raise ValueError(f"{base_dir} has no self-play examples of generation {g}")
        files += found
    return files


def grow_network(base_dir, out_path, blocks, filters, generations, epochs=2, seed=0,
                 progress=True):
    """Train a ``blocks`` x ``filters`` dual network with the run's other
    settings (``base_dir/config.json``) on the self-play examples of
    ``generations`` (:func:`played_examples`) for ``epochs`` passes, each
    position turned by a random symmetry; save it to ``out_path`` (with its
    encoder) and return ``{"examples", "epochs", "history", "seconds",
    "cpu_seconds", "parameters"}``."""
    layout = RunLayout(base_dir)
    config = dataclasses.replace(read_config(layout.config), blocks=blocks, filters=filters)
    examples = load_targets(played_examples(base_dir, generations))
    set_random_seed(seed)
    model = compile_dual(new_network(config, Path(out_path).stem), config)
    history = {}
    start, cpu_start = time.perf_counter(), time.process_time()
    for epoch in range(epochs):
        rng = np.random.default_rng(seed_of(seed, "grow", epoch))
        fitted = fit_epoch(model, examples, config, epoch, rng, verbose=2 if progress else 0)
        for key, values in fitted.items():
            history.setdefault(key, []).extend(float(v) for v in values)
    Path(out_path).parent.mkdir(parents=True, exist_ok=True)
    save_model(model, out_path, encoder=ENCODER)
    return {"examples": int(len(examples["z"])), "epochs": epochs, "history": history,
            "seconds": time.perf_counter() - start,
            "cpu_seconds": time.process_time() - cpu_start,
            "parameters": int(model.count_params())}
