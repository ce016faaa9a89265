"""Game records: reading, replaying and writing SGF files.

The supervised-learning notebooks learn from tens of thousands of KGS games,
and the self-play notebooks save the games they play; both go through this
module, the one import for game records::

    from mockgo.data.records import read_sgf, load_sgf, replay, save_sgf

A game is a :class:`GameRecord`: the game information (size, komi,
players, result...), the set-up stones and the moves of the main line as flat
indices (see :mod:`mockgo.go.coords`). The SGF syntax itself is parsed by
:mod:`mockgo.data.sgf_syntax` (the whole tree, variations included, is kept by
:mod:`mockgo.data.gametree`). Each part lives in a module of its own, and
every name is importable from here as it always was:

- :mod:`mockgo.data.charsets`: text from the bytes of a file, whatever its
  encoding (:func:`decode_sgf_bytes`), mixed charsets included;
- :mod:`mockgo.data.sgf_reader`: making sense of real files, which are
  messy: :class:`GameRecord`, :func:`read_sgf` and :func:`load_sgf`, what
  the properties mean (:func:`parse_komi`, :func:`parse_result`, set-up
  stones, moves), the limits that keep a bad file from taking gigabytes or
  minutes, :class:`SGFError` and :class:`SGFWarning`; :func:`replay` and
  :func:`final_board`;
- :mod:`mockgo.data.archives`: many files at a time, from folders and
  archives (:func:`sgf_sources`, :func:`iter_sgf_files`,
  :class:`LoadSummary`, :class:`BrokenArchiveError`);
- :mod:`mockgo.data.sgf_writer`: the other way, :func:`record_from_board`
  makes a record of a game played on a Board, :func:`to_sgf` and
  :func:`save_sgf` write it.
"""

# The old single module's contents, now in their own modules.
from mockgo.data.archives import (ARCHIVE_SUFFIXES, BrokenArchiveError, LoadSummary,
                                  iter_sgf_files, sgf_sources)
from mockgo.data.charsets import decode_sgf_bytes
from mockgo.data.sgf_reader import (COLOR_LETTERS, MAX_MOVES, MAX_SGF_BYTES, SETUP_BOARDS,
                                    SGF_COLORS, GameRecord, OutOfRange, SGFError, SGFWarning,
                                    count_setup_points, final_board, load_sgf, node_move,
                                    parse_first_game, parse_komi, parse_result, read_sgf,
                                    record_from_nodes, replay, rules_use_superko, setup_points)
from mockgo.data.sgf_writer import (format_komi, format_result, record_from_board, save_sgf,
                                    sgf_escape, to_sgf)

__all__ = ["ARCHIVE_SUFFIXES", "COLOR_LETTERS", "MAX_MOVES", "MAX_SGF_BYTES", "SETUP_BOARDS",
           "SGF_COLORS", "BrokenArchiveError", "GameRecord", "LoadSummary", "OutOfRange",
           "SGFError", "SGFWarning", "count_setup_points", "decode_sgf_bytes", "final_board",
           "format_komi", "format_result", "iter_sgf_files", "load_sgf", "node_move",
           "parse_first_game", "parse_komi", "parse_result", "read_sgf", "record_from_board",
           "record_from_nodes", "replay", "rules_use_superko", "save_sgf", "setup_points",
           "sgf_escape", "sgf_sources", "to_sgf"]
