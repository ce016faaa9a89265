"""mockgo's container image (``make image``, Containerfile): a GTP game is
played in it, mockgo's engine against the image's GnuGo, and notebook 01
runs in it in quick mode from the notebooks that the installed package
copies out.

Long (minutes: run by ``make test-long``, not ``make test``), and skipped
without podman or without the image (``make image`` builds it: see the
Makefile). The containers run as ``make image``
runs them (Debian's runc, the limits given explicitly), without a network;
the KGS archive the notebook reads is the checkout's ``data/kgs``, mounted
read-only.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

from mockgo.go import coords
from mockgo.play.gtp_engine import GTPEngine

ROOT = Path(__file__).resolve().parent.parent
PODMAN = ["podman", "--runtime", "runc"]
LIMITS = ["--ulimit", "nofile=16384:16384", "--ulimit", "nproc=16384:16384"]
IMAGE = "localhost/mockgo:latest"

pytestmark = pytest.mark.long


@pytest.fixture(scope="module")
def image():
    if shutil.which("podman") is None:
        pytest.skip("no podman (make image installs it and builds the image)")
    if subprocess.run([*PODMAN, "image", "exists", IMAGE], timeout=60).returncode != 0:
        pytest.skip(f"no image {IMAGE}: make image builds it")
    return IMAGE


def container(image, *command, volumes=()):
    """The command line that runs ``command`` in a fresh container of ``image``."""
    return [*PODMAN, "run", "--rm", "-i", "--network", "none", *LIMITS,
            *(f"--volume={v}" for v in volumes), image, *command]


def test_a_gtp_game_in_the_container(image, bounded):
    """The image's mockgo (zero-9 with 16 readouts a move) plays black
    against the image's GnuGo at level 1 on 9x9, both over GTP, until two
    passes or 160 moves; GnuGo scores the game."""
    mockgo = GTPEngine(container(image, "mockgo", "gtp", "--player",
                                 "mcts:pretrained=zero-9,readouts=16"), name="mockgo")
    gnugo = GTPEngine(container(image, "gnugo", "--mode", "gtp", "--level", "1",
                                "--chinese-rules"), name="gnugo")
    with mockgo, gnugo:
        for engine in (mockgo, gnugo):
            engine.send_many(["boardsize 9", "komi 7.5", "clear_board"])
        moves, passes = [], 0
        while passes < 2 and len(moves) < 160:
            player, other = (mockgo, gnugo) if len(moves) % 2 == 0 else (gnugo, mockgo)
            color = "black" if player is mockgo else "white"
            move = player.send(f"genmove {color}").strip().upper()
            if move == "RESIGN":
                break
            other.send(f"play {color} {move}")
            passes = passes + 1 if move == "PASS" else 0
            moves.append(move)
        score = gnugo.send("final_score").strip()
    print(f"{len(moves)} moves, GnuGo's score {score}")
    played = [m for m in moves if m not in ("PASS", "RESIGN")]
    assert len(played) >= 10, moves
    assert all(0 <= coords.from_gtp(m, 9) < 81 for m in played)
    assert score[:2] in ("B+", "W+") or score == "0", score


def test_notebook_01_runs_in_quick_mode_in_the_container(image, bounded):
    archives = sorted((ROOT / "data" / "kgs").glob("KGS-*.tar.gz"))
    if not archives:
        pytest.skip("no KGS archive in data/kgs (bash data/download.sh --archives 1)")
    script = (
        "set -e; mockgo notebooks /tmp/series; mkdir -p /tmp/series/data/kgs; "
        f"cp /kgs/{archives[0].name} /tmp/series/data/kgs/; cd /tmp/series/notebooks; "
        "MOCKGO_QUICK=1 MOCKGO_KGS_MIRROR=/kgs python -m nbconvert --to notebook --execute "
        "--ExecutePreprocessor.timeout=1200 --output /tmp/executed.ipynb 01_supervised.ipynb; "
        "test -f /tmp/series/runs/01_supervised/quick/policy.keras; echo notebook-ran")
    done = subprocess.run(container(image, "bash", "-c", script,
                                    volumes=[f"{ROOT / 'data' / 'kgs'}:/kgs:ro"]),
                          capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0 and "notebook-ran" in done.stdout, \
        done.stdout[-3000:] + done.stderr[-3000:]
