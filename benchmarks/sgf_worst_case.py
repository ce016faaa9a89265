"""The worst SGF files under the size limit: time and memory to read each.

Issue 36's target: any file under :data:`mockgo.data.sgf_reader.MAX_SGF_BYTES`
is read, or refused with an SGFError, in at most 2 s and 500 MB. Each case
below is a file built to cost as much as the format allows at that size
(point lists that expand, a property with a million values, a million
variations, variations nested a million deep...); each is read by
:func:`~mockgo.data.sgf_reader.read_sgf` (datasets, matches, ``mockgo
evaluate``) and :func:`~mockgo.data.gametree.read_tree` (the board widget's
reviews) in a process of its own, so that its peak memory is its own.
One JSON line per case and reader::

    {"case": "rectangles", "reader": "read_sgf", "bytes": 3500011,
     "outcome": "refused: bad set-up stones", "seconds": 0.41, "cpu_seconds": 0.4,
     "peak_mb": 95}

``peak_mb`` is the process's peak resident memory (``ru_maxrss``), the
interpreter and mockgo's imports (some 110 MB) included. ``cpu_seconds``
is the processor time the read took: on a machine shared with other jobs,
``seconds`` (the wall clock) grows with their load, and ``cpu_seconds``
much less.

    python benchmarks/sgf_worst_case.py [--case NAME] [--timeout 120]

Measured on the development machine (2 shared cores), every case and
reader: at most 1.46 s (1.56 s of processor time, read_sgf of
``setup_variations_at_limit``) and 269 MB (GTP loadsgf of
``setup_nested``, the interpreter and GTP's imports some 130 MB of it),
with the ``sgf`` package parsing; mockgo's former parser, in the same
sitting, at most 1.37 s and 267 MB. Before the limits
(``MAX_NODES``, ``MAX_MOVES``, ``SETUP_BOARDS``) the worst took 31 s and
5.4 GB (``rectangles_full``), and three read_tree cases were stopped
after 40 s.
"""

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Every reader's module imported here, before any clock starts.
from mockgo.gtp.server import GTPServer
from mockgo.data.sgf_reader import MAX_MOVES, MAX_SGF_BYTES
from mockgo.data.sgf_syntax import MAX_NODES
from mockgo.play.random_player import RandomPlayer

LIMIT = MAX_SGF_BYTES - 100  # room for the head and the tail


def _fill(head, unit, tail=")", count=None):
    """``head``, ``unit`` as many times as fit under the limit (or ``count``), ``tail``."""
    count = (LIMIT - len(head) - len(tail)) // len(unit) if count is None else count
    return head + unit * count + tail


def _nested(unit, close=")"):
    """Variations nested as deep as fit: ``(;SZ[19]`` + n * ``(unit`` + n * ``)`` + ``)``."""
    n = (LIMIT - 20) // (len(unit) + len(close))
    return "(;SZ[19]" + unit * n + close * n + ")"


CASES = {
    # The example: 500,000 rectangles of the whole board.
    "rectangles": lambda: "(;SZ[19]AB" + "[aa:ss]" * 500000 + ")",
    "rectangles_full": lambda: _fill("(;SZ[19]AB", "[aa:ss]"),
    "rectangles_ae": lambda: _fill("(;SZ[19]AE", "[aa:ss]"),
    "setup_points": lambda: _fill("(;SZ[19]AB", "[aa]"),
    "setup_nodes": lambda: _fill("(;SZ[19]", ";AB[aa:ss]"),
    "setup_nodes_small": lambda: _fill("(;SZ[19]", ";AE[aa]"),
    "setup_variations": lambda: _fill("(;SZ[19]", "(;AB[aa:ss])"),
    "setup_nested": lambda: _nested("(;AE[aa]"),
    "values": lambda: _fill("(;SZ[19]C", "[]"),
    "values_other": lambda: _fill("(;SZ[19]XX", "[]"),
    "properties": lambda: _fill("(;SZ[19]", "XX[]YY[]"),
    "passes": lambda: _fill("(;SZ[19]", ";B[]"),
    "moves": lambda: _fill("(;SZ[19]", ";B[aa];W[bb]"),
    "empty_nodes": lambda: _fill("(;SZ[19]", ";"),
    "variations": lambda: _fill("(;SZ[19]", "(;B[aa])"),
    "empty_variations": lambda: _fill("(;SZ[19]", "(;)"),
    "nested": lambda: _nested("(;B[aa]"),
    "nested_empty": lambda: _nested("(;"),
    "moves_in_variations": lambda: _fill("(;SZ[19];B[aa]", "(;W[bb];B[cc])"),
    "escapes": lambda: _fill("(;SZ[19]C[", "\\]", "])"),
    # The parser's slowest character: white space after a value.
    "spaces": lambda: _fill("(;SZ[19]C[]", " "),
    "games": lambda: _fill("", "(;SZ[19])", ""),
    # The largest files that are read: as many nodes, moves and set-up
    # points as the limits allow.
    "nodes_at_limit": lambda: _fill("(;SZ[19]", ";C[x]", count=MAX_NODES - 1),
    "moves_at_limit": lambda: _fill("(;SZ[19]", ";B[tt];W[tt]", count=MAX_MOVES // 2),
    "variations_at_limit": lambda: _fill("(;SZ[19]", "(;B[aa])", count=MAX_NODES - 1),
    "nested_at_limit": lambda: _fill("(;SZ[19]", "(;B[tt];W[tt]", count=MAX_MOVES // 2)
    + "(;C[x]" * (MAX_NODES - MAX_MOVES - 1) + ")" * (MAX_NODES - MAX_MOVES - 1 + MAX_MOVES // 2),
    "setup_variations_at_limit": lambda: _fill("(;SZ[19]", "(;AB[aa:ss];AW[aa:ss])",
                                               count=MAX_NODES // 2 - 1),
    # Text that is not UTF-8: each guess of decode_sgf_bytes tried in turn.
    "korean": lambda: _fill("(;SZ[19]C[", "\uac00", "])", (LIMIT - 20) // 2).encode("cp949"),
    "chinese": lambda: _fill("(;SZ[19]C[", "\u4f60", "])", (LIMIT - 20) // 2).encode("gb18030"),
    "latin1": lambda: _fill("(;SZ[19]C[", "\u00e9", "])").encode("latin-1"),
    "latin1_in_korean": lambda: _fill("(;SZ[19]C[", "\uac00\u00e9", "])",
                                      (LIMIT - 20) // 3).encode("cp949", errors="ignore")
    + b"\xe9" * ((LIMIT - 20) // 3),
}

READERS = ("read_sgf", "read_tree", "gtp_loadsgf")


def _run_one(case, reader):
    """In the child: read ``case`` with ``reader``; print the JSON line."""
    from mockgo.data import gametree, sgf_reader

    text = CASES[case]()
    text = text if isinstance(text, bytes) else text.encode()
    read = {"read_sgf": sgf_reader.read_sgf, "read_tree": gametree.read_tree,
            "gtp_loadsgf": _loadsgf}[reader]
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        answer = read(text, source=f"<{case}>")
        outcome = answer if isinstance(answer, str) else "read"
    except sgf_reader.SGFError as error:
        outcome = f"refused: {error.reason}: {str(error)[:120]}"
    except Exception as error:  # what the target forbids, reported as such
        outcome = f"CRASHED: {error!r}"[:160]
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    print(json.dumps({"case": case, "reader": reader, "bytes": len(text), "outcome": outcome,
                      "seconds": round(seconds, 3),
                      "cpu_seconds": round(cpu_seconds, 3), "peak_mb": round(peak_mb)}))


def _loadsgf(text, source):
    """GTP ``loadsgf`` of ``text`` (a file in a temporary folder), to a
    player that answers nothing: what the engine does with the game (load,
    replay every move). The answer, as the outcome."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.sgf"
        path.write_bytes(text)
        server = GTPServer(RandomPlayer(), size=19)
        return "answered " + server.handle(f"loadsgf {path}\n").strip()[:100]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=sorted(CASES), action="append")
    parser.add_argument("--reader", choices=READERS, action="append")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _run_one(*args.child)
        return
    worst = {"seconds": 0.0, "cpu_seconds": 0.0, "peak_mb": 0}
    for case in args.case or CASES:
        for reader in args.reader or READERS:
            try:
                done = subprocess.run([sys.executable, __file__, "--child", case, reader],
                                      capture_output=True, text=True, timeout=args.timeout)
                line = done.stdout.strip() or json.dumps(
                    {"case": case, "reader": reader, "outcome": f"CRASHED: {done.stderr[-200:]}"})
            except subprocess.TimeoutExpired:
                line = json.dumps({"case": case, "reader": reader,
                                   "outcome": f"TIMED OUT after {args.timeout:g} s"})
            print(line, flush=True)
            result = json.loads(line)
            for key in worst:
                worst[key] = max(worst[key], result.get(key, float("inf")))
    print(json.dumps({"case": "worst", **worst}))


if __name__ == "__main__":
    main()
