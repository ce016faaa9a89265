"""``mockgo dataset``: a training dataset built from SGF files, folders and
archives on the command line (:func:`mockgo.data.dataset.build_dataset`)::

    mockgo dataset data/kgs --out runs/kgs                   # every archive in data/kgs
    mockgo dataset games/ more.tar.gz --out runs/small --encoder simple2 --size 9

Run again, the same command finishes an interrupted build (or leaves a
finished one as it is). Bad input (a missing archive, an unknown encoder,
impossible split shares) is one line naming it, exit status 2.
"""

import os
from pathlib import Path

from mockgo.data.archives import ARCHIVE_SUFFIXES
from mockgo.data.dataset import DatasetSpec, build_dataset, rank_value, summary_line
from mockgo.errors import InputError
from mockgo.go.features import ALPHAGO48, ENCODERS, encoder_names

__all__ = ["configure_parser", "dataset_sources", "run_cli"]


def dataset_sources(paths):
    """The sources a command line names: SGF files, archives, and folders; a
    folder that holds archives (``data/kgs``) stands for those archives,
    sorted, and any other folder for the SGF files below it.
    FileNotFoundError naming a path that does not exist."""
    sources = []
    for path in map(Path, paths):
        if not path.exists():
            raise FileNotFoundError(f"no such SGF file, folder or archive: {path}")
        archives = sorted(p for p in path.iterdir() if p.name.lower().endswith(ARCHIVE_SUFFIXES)
                          and p.is_file()) if path.is_dir() else []
        sources.extend(archives or [path])
    return [str(source) for source in sources]


def configure_parser(parser):
    """The options of ``mockgo dataset``."""
    parser.description = (
        "Build a training dataset from SGF files, folders and archives (.tar.gz, .zip): every "
        "position of every kept game encoded as feature planes, in shards of the train, "
        "validation and test splits (a game's split comes from a hash of its name). "
        "Resumable: run the same command again to finish an interrupted build.")
    parser.add_argument("sources", nargs="+", metavar="ARCHIVE_OR_FOLDER",
                        help="SGF files, folders of them, archives, or a folder of archives")
    parser.add_argument("--out", required=True, help="the dataset's folder")
    parser.add_argument("--encoder", default=ALPHAGO48,
                        help=f"feature planes, one of {', '.join(encoder_names())} "
                             f"(default {ALPHAGO48})")
    parser.add_argument("--size", type=int, default=19, help="board size of the games kept")
    parser.add_argument("--splits", type=float, nargs=2, metavar=("VALIDATION", "TEST"),
                        default=(0.05, 0.05), help="shares of the games in the validation and "
                                                   "test splits (default 0.05 0.05)")
    parser.add_argument("--min-rank", help="keep games whose players are both at least this "
                                           "strong, e.g. 6d")
    parser.add_argument("--max-games", type=int, help="stop after this many SGF files")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="processes replaying and encoding games (default: one per core)")
    parser.add_argument("--keep-going", action="store_true",
                        help="build from what a broken archive holds, with a warning")
    parser.add_argument("--restart", action="store_true",
                        help="delete what the folder holds of a build and build anew")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def run_cli(args):
    """``mockgo dataset``: build the dataset the options describe (module docstring)."""
    if args.encoder not in ENCODERS:
        raise InputError(f"unknown encoder {args.encoder!r}; the encoders are "
                         f"{', '.join(encoder_names())}")
    validation, test = args.splits
    if not (0 <= validation and 0 <= test and validation + test < 1):
        raise InputError(f"--splits {validation} {test}: each share at least 0 and together "
                         f"less than 1")
    if args.min_rank is not None and rank_value(args.min_rank) is None:
        raise InputError(f"--min-rank {args.min_rank!r} is not a rank such as 6d or 1k")
    try:
        sources = dataset_sources(args.sources)
    except FileNotFoundError as error:
        raise InputError(str(error)) from None
    spec = DatasetSpec(encoder=args.encoder, board_size=args.size, min_rank=args.min_rank,
                       validation_share=validation, test_share=test)
    manifest = build_dataset(sources, args.out, spec, workers=max(1, args.workers),
                             max_games=args.max_games, progress=not args.quiet,
                             restart=args.restart, keep_going=args.keep_going)
    print(f"{args.out}: {summary_line(manifest)}")
    return 0
