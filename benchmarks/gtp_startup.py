"""How soon ``mockgo gtp`` answers: seconds from starting the engine's
process to its first answer (``name``) and to its first move (``genmove b``
after ``boardsize 19`` and ``clear_board``). Prints one JSON line.

A controller (Sabaki, GoGui, gogui-twogtp) starts the engine and asks
``name``, ``version``, ``protocol_version``, ``list_commands`` at once; an
engine that loads TensorFlow before its first answer keeps it waiting
seconds (and some controllers time out). The first ``genmove`` pays for
TensorFlow and the network, wherever they are loaded. Each of ``--repeat``
runs is a fresh process (the operating system's file cache warm after the
first); the medians and every run's numbers are printed, with the lines the
engine wrote to stderr counted (a quiet engine writes none).

    python benchmarks/gtp_startup.py --player policy:pretrained=sl-19 --player random
    python benchmarks/gtp_startup.py --checkout /work/main   # another copy of mockgo's code
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _answer(stdout, deadline):
    """One GTP answer's lines (up to the empty line that ends it)."""
    lines = []
    while True:
        if time.monotonic() > deadline:
            raise TimeoutError("no answer in time")
        line = stdout.readline()
        if not line:
            raise EOFError("the engine closed its output")
        line = line.rstrip("\n")
        if not line and lines:
            return lines
        if line:
            lines.append(line)


def one_run(spec, checkout, python, timeout):
    """Seconds to the first answer and to the first genmove's, the move, and
    the engine's stderr lines, for one fresh engine process."""
    command = [python, "-m", "mockgo.cli", "gtp", "--player", spec]
    # The checkout's own mockgo first on the path, whatever is installed.
    env = dict(os.environ, PYTHONPATH=str(checkout))
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=checkout, env=env, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    errors = []
    reader = threading.Thread(target=lambda: errors.extend(process.stderr), daemon=True)
    reader.start()
    deadline = time.monotonic() + timeout
    try:
        process.stdin.write("name\n")
        process.stdin.flush()
        _answer(process.stdout, deadline)
        first_answer = time.perf_counter() - started
        process.stdin.write("version\nprotocol_version\nlist_commands\nboardsize 19\n"
                            "clear_board\ngenmove b\n")
        process.stdin.flush()
        for _ in range(6):
            answer = _answer(process.stdout, deadline)
        first_move = time.perf_counter() - started
        process.stdin.write("quit\n")
        process.stdin.flush()
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        reader.join(timeout=5)
    return {"first_answer_s": round(first_answer, 3), "first_genmove_s": round(first_move, 3),
            "move": answer[0], "stderr_lines": len(errors)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", action="append", help="a player spec (repeatable; "
                        "default policy:pretrained=sl-19 and random)")
    parser.add_argument("--checkout", type=Path, default=REPO,
                        help="the copy of mockgo to run (default: this one)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter to run it with")
    parser.add_argument("--repeat", type=int, default=3,
                        help="fresh processes a player (default 3)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds a run may take")
    args = parser.parse_args(argv)

    result = {"checkout": str(args.checkout.resolve()), "players": {}}
    for spec in args.player or ["policy:pretrained=sl-19", "random"]:
        runs = [one_run(spec, args.checkout.resolve(), args.python, args.timeout)
                for _ in range(args.repeat)]
        result["players"][spec] = {
            "first_answer_s": statistics.median(r["first_answer_s"] for r in runs),
            "first_genmove_s": statistics.median(r["first_genmove_s"] for r in runs),
            "runs": runs}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
