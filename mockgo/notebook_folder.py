"""The notebooks outside a clone of the repository: ``mockgo notebooks DIR``.

An installed mockgo (``pip install mockgo-0.1.0-py3-none-any.whl``) carries
the five notebooks inside the package. This command copies them into a
folder of your own, laid out as the repository lays them out, so that they
run there as they run in a clone::

    mockgo notebooks ~/mockgo-series
    cd ~/mockgo-series && jupyter lab notebooks/

    ~/mockgo-series/
        mockgo-notebooks.txt   marks the folder: the notebooks' root (below)
        notebooks/             01_supervised.ipynb ... 05_arena.ipynb
        data/download.sh       fetches the KGS games into data/kgs/, as in a clone
        runs/                  made by the notebooks: their networks and games

A notebook finds its root as the nearest folder above it that holds
``pyproject.toml`` (a clone) or :data:`MARK`
(:func:`mockgo.notebook.repo_root`); notebook 01's 9x9 GnuGo games, which a
clone keeps in ``data/gnugo9/``, come from the installed package
(:func:`mockgo.notebook.gnugo9_archive`). A notebook already in the folder
is left as it is (your edits stay), unless ``--force`` is given.
"""

import shlex
import shutil
import sys
from pathlib import Path

__all__ = ["MARK", "configure_parser", "copy_notebooks", "run_cli", "shipped_notebooks"]

#: The file that marks a folder made by ``mockgo notebooks`` as the
#: notebooks' root, where a clone has ``pyproject.toml``.
MARK = "mockgo-notebooks.txt"

_PACKAGE = Path(__file__).resolve().parent


def shipped_notebooks():
    """The folder the notebooks are copied from: ``mockgo/notebooks/`` in an
    installed wheel, else the ``notebooks/`` folder of the clone that this
    mockgo runs from. FileNotFoundError when neither holds them."""
    for folder in (_PACKAGE / "notebooks", _PACKAGE.parent / "notebooks"):
        if any(folder.glob("*.ipynb")):
            return folder
    raise FileNotFoundError(f"no notebooks in {_PACKAGE / 'notebooks'} or "
                            f"{_PACKAGE.parent / 'notebooks'}: reinstall mockgo")


def _download_script(python):
    """``data/download.sh`` of a notebooks folder: the clone's script runs the
    clone's downloader; this one runs the installed mockgo's, with the
    Python that has it, from the folder's root (so data/kgs/ is the folder's)."""
    return ("#!/usr/bin/env bash\n"
            "# Download the KGS game archives into data/kgs/ beside the notebooks; written by\n"
            "# `mockgo notebooks`. Options: bash data/download.sh --help\n"
            'cd "$(dirname "${BASH_SOURCE[0]}")/.."\n'
            f"exec {shlex.quote(python)} -m mockgo.data.download \"$@\"\n")


def copy_notebooks(dest, force=False, python=None):
    """Copy the notebooks into ``dest/notebooks/`` and write ``dest``'s
    :data:`MARK` and ``data/download.sh`` (which runs ``python``, default
    this one, on the installed downloader). A notebook already there is
    kept unless ``force``. Returns ``(copied, kept)``, lists of paths."""
    dest = Path(dest).expanduser().resolve()
    (dest / "notebooks").mkdir(parents=True, exist_ok=True)
    (dest / "data").mkdir(exist_ok=True)
    copied, kept = [], []
    for source in sorted(shipped_notebooks().glob("*.ipynb")):
        target = dest / "notebooks" / source.name
        if target.exists() and not force:
            kept.append(target)
            continue
        shutil.copyfile(source, target)
        copied.append(target)
    (dest / MARK).write_text(
        "mockgo's notebooks, copied here by `mockgo notebooks`. This file marks the folder as\n"
        "their root: they keep their work in runs/ and read their data from data/ beside it.\n"
        "Open them with: jupyter lab notebooks/\n", encoding="utf-8")
    script = dest / "data" / "download.sh"
    script.write_text(_download_script(python or sys.executable), encoding="utf-8")
    script.chmod(0o755)
    return copied, kept


# ------------------------------------------------------------ command line


def configure_parser(parser):
    """The options of ``mockgo notebooks``."""
    parser.description = ("Copy the tutorial notebooks into DIR/notebooks/, to open in "
                          "JupyterLab (jupyter lab DIR/notebooks/); they keep their work in "
                          "DIR/runs/. Notebooks already there are kept unless --force.")
    parser.add_argument("dir", metavar="DIR", help="the folder to copy them into")
    parser.add_argument("--force", action="store_true",
                        help="replace notebooks already in DIR/notebooks/ (your edits are lost)")
    return parser


def run_cli(args):
    """``mockgo notebooks DIR``: copy them, and say what was copied and what kept."""
    copied, kept = copy_notebooks(args.dir, force=args.force)
    for path in copied:
        print(f"copied {path}")
    for path in kept:
        print(f"kept {path} (already there; --force replaces it)")
    print(f"open them with: jupyter lab {shlex.quote(str(Path(args.dir).expanduser() / 'notebooks'))}")
    return 0
