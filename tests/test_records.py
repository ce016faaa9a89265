"""Game records: reading messy SGF files, replaying them, writing them back.

The fixtures in tests/fixtures/sgf are small hand-written files, one per
kind of mess found in real game collections; the test on real KGS games
reads an archive from the shared mirror and is skipped without it.
"""

import datetime
import io
import os
import pickle
import re
import shutil
import subprocess
import tarfile
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

from mockgo import BLACK, EMPTY, WHITE, Board
from mockgo.data import archives, sgf_reader, sgf_writer
from mockgo.data.archives import LoadSummary, iter_sgf_files
from mockgo.data.charsets import decode_sgf_bytes
from mockgo.data.sgf_reader import (GameRecord, SGFError, SGFWarning, final_board, load_sgf,
                                    parse_komi, parse_result, read_sgf, replay, rules_use_superko)
from mockgo.data.sgf_writer import record_from_board, save_sgf, to_sgf
from mockgo.go import coords

FIXTURES = Path(__file__).parent / "fixtures" / "sgf"
REPO = Path(__file__).parent.parent
KGS_ARCHIVE = "KGS-2017_02-19-525-.tar.gz"

BAD_FILES = {
    "bad_both_b_and_w.sgf": "B and W in one node",
    "bad_empty_file.sgf": "does not parse",
    "bad_off_board.sgf": "move off the board",
    "bad_size.sgf": "bad board size",
    "bad_truncated.sgf": "does not parse",
    "bad_unparsable.sgf": "does not parse",
}
GOOD_FILES = sorted(p.name for p in FIXTURES.glob("*.sgf") if p.name not in BAD_FILES)

# The final position of kgs_9x9_game.sgf, checked against GnuGo below.
KGS_9X9_FINAL = """
    . O X X X X . . .
    . . O X O X . . .
    . . . O O X . . .
    . O . O X X . . .
    . . . O X . . . .
    . . O O X X X . .
    . . O O O O O X .
    O O . O X X O X .
    O . . O X . X . .
"""


def fixture(name):
    return load_sgf(FIXTURES / name)


def gtp(board, color):
    return sorted(coords.to_gtp(int(p), board.size) for p in np.flatnonzero(board.stones == color))


def diagram_stones(diagram):
    return Board.from_diagram(diagram).stones


# ------------------------------------------------------------ game info


def test_kgs_style_game_info():
    record = fixture("kgs_9x9_game.sgf")
    assert (record.size, record.komi, record.handicap) == (9, 6.5, 0)
    assert (record.black, record.black_rank, record.white, record.white_rank) == \
        ("tanuki", "4k", "kuroneko", "3k")
    assert (record.date, record.rules, record.result) == ("2017-02-14", "Chinese", "W+3.50")
    assert (record.winner, record.margin, record.result_reason) == (WHITE, 3.5, "score")
    assert record.source == str(FIXTURES / "kgs_9x9_game.sgf")
    assert len(record.moves) == 47 and len(record.comments) == 47
    assert record.moves[0] == (BLACK, coords.from_gtp("E5", 9))
    assert record.moves[-2:] == [(WHITE, 81), (BLACK, 81)]  # two passes end the game
    # Escaped "]" and "\" inside a comment come back as written.
    assert record.comments[39] == "takes three: B1, C1, C2 ] (a smiley \\o/)"
    assert record.comments[20] == "atari!" and record.comments[0] is None


def test_str_and_bytes_read_the_same():
    data = (FIXTURES / "kgs_9x9_game.sgf").read_bytes()
    assert read_sgf(data) == read_sgf(data.decode("utf-8"))
    assert read_sgf(data).source == "<string>"


@pytest.mark.parametrize("text, komi", [
    ("650", 6.5), ("750", 7.5), ("550", 5.5), ("50", 0.5), ("-650", -6.5),
    ("6.5", 6.5), ("7.50", 7.5), ("0.50", 0.5), ("0", 0.0), ("6", 6.0), ("6,5", 6.5),
    # Big komi that KGS really has, written with decimals: taken as written.
    ("75.50", 75.5), ("-100.00", -100.0), ("100.00", 100.0), ("375", 375.0), ("", None),
])
def test_parse_komi(text, komi):
    assert parse_komi(text) == komi


def test_komi_times_100_file():
    record = fixture("komi_times_100.sgf")
    assert record.komi == 6.5 and record.board().komi == 6.5


def test_bad_komi_names_the_property():
    with pytest.raises(SGFError, match=r"KM\[six\] is not a number"):
        read_sgf("(;GM[1]KM[six];B[aa])")


@pytest.mark.parametrize("text", ["nan", "NaN", "inf", "-inf", "Infinity", "1e999", "1_0",
                                  "\u0666", "\uff16.5", "6.5.5", "0x10", "6.5 7"])
def test_komi_that_is_not_a_finite_ascii_number_is_refused(text):
    # float() takes all but the last three: KM[nan] used to give final_score W+nan.
    with pytest.raises(ValueError):
        parse_komi(text)
    with pytest.raises(SGFError, match=r"game.sgf: bad property value: KM\[.*\] is not a number"):
        read_sgf(f"(;GM[1]KM[{text}];B[aa])", source="game.sgf")


@pytest.mark.parametrize("komi", [-100.0, 150.0, 650.0, 50.0, -50.0, 0.0, 6.5, 7.5, 0.5, 375.0,
                                  1000.0, -1000.0, 1e-300, -0.0, 0.1, 1 / 3])
def test_komi_survives_a_round_trip(komi):
    # KM[-100.00] was written KM[-100] and read back as -1.0 by the x100
    # rule; KM[150.0] came back 1.5. The writer always writes a decimal point.
    text = to_sgf(GameRecord(size=9, komi=komi))
    assert re.search(r"KM\[-?[0-9]+[.e]", text)
    assert read_sgf(text).komi == komi
    assert parse_komi(sgf_writer.format_komi(komi)) == komi


def test_non_finite_komi_is_not_written():
    for komi in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="finite"):
            to_sgf(GameRecord(size=9, komi=komi))
    # Nor a komi that would not read back (KM[1e+16] was written and read).
    for komi in (1e16, 1e300, -1000.5):
        with pytest.raises(ValueError, match="is not a number from -1000 to 1000"):
            to_sgf(GameRecord(size=9, komi=komi))


@pytest.mark.parametrize("text, expected", [
    ("B+3.5", (BLACK, 3.5, "score")), ("W+0.50", (WHITE, 0.5, "score")),
    ("W+R", (WHITE, None, "resign")), ("B+Resign", (BLACK, None, "resign")),
    ("W+T", (WHITE, None, "time")), ("B+Time", (BLACK, None, "time")),
    ("W+Forfeit", (WHITE, None, "forfeit")), ("B+F", (BLACK, None, "forfeit")),
    ("0", (EMPTY, 0.0, "score")), ("Draw", (EMPTY, 0.0, "score")), ("jigo", (EMPTY, 0.0, "score")),
    ("B+", (BLACK, None, None)), ("Void", (None, None, None)), ("?", (None, None, None)),
    ("", (None, None, None)), (None, (None, None, None)),
])
def test_parse_result(text, expected):
    assert parse_result(text) == expected


def test_missing_re_km_sz_get_defaults():
    record = fixture("missing_re_km_sz.sgf")
    assert (record.size, record.komi, record.result, record.winner) == (19, 0.0, None, None)
    assert record.margin is None and record.result_reason is None
    assert record.moves[2] == (BLACK, 361)  # B[tt]: a pass, the FF[3] way


def test_small_board():
    record = fixture("board_13x13.sgf")
    assert record.size == 13 and record.moves[-1] == (WHITE, coords.from_gtp("N1", 13))
    assert final_board(record).size == 13 and record.problem is None


def test_empty_game():
    record = fixture("empty_game.sgf")
    assert record.moves == [] and record.comments == []
    assert (record.black, record.white, record.result, record.winner) == ("Alice", "Bob", "?", None)
    assert list(replay(record)) == []
    assert not final_board(record).stones.any() and record.problem is None


def test_variations_give_the_main_line():
    record = fixture("variations.sgf")
    main_line = ["E5", "C7", "G7", "G3", "C3", "D2"]
    assert [coords.to_gtp(move, 9) for _, move in record.moves] == main_line
    assert record.game_comment == "a reviewed game"
    assert record.comments[2] == "main line" and "not read" not in str(record.comments)


# -------------------------------------------------------------- encodings


@pytest.mark.parametrize("name, black, white, comment", [
    ("latin1_declared.sgf", "Müller", "Jérôme", "très bien"),
    ("latin1_undeclared.sgf", "Müller", "José", "ça va? à bientôt"),
    ("latin1_labelled_utf8.sgf", "Ångström", "Zoë", "déjà vu"),
    ("gb2312_declared.sgf", "古力", "柯洁", "好棋！"),
    ("gb2312_undeclared.sgf", "常昊", "聂卫平", "黑中盘胜"),
    ("euckr_declared.sgf", "이창호", "조훈현", "좋은 수"),
    ("euckr_undeclared.sgf", "이세돌", "박정환", "안녕하세요 ㅋㅋ"),
    ("utf8_with_bom.sgf", "Shin Jinseo 신진서", "Ke Jie 柯洁", "Ça"),
])
def test_encodings(name, black, white, comment):
    record = fixture(name)
    assert (record.black, record.white, record.comments[0]) == (black, white, comment)
    assert len(record.moves) == 2


def test_latin1_is_not_mistaken_for_gb18030():
    # b"Jos\xe9]" is valid GB18030, which would swallow the closing bracket.
    data = b"(;GM[1]PB[Jos\xe9]PW[M\xfcller];B[aa])"
    assert decode_sgf_bytes(data) == "(;GM[1]PB[José]PW[Müller];B[aa])"


def test_undecodable_bytes_never_fail():
    record = read_sgf(b"(;GM[1]CA[no-such-charset]PB[\xff\xfe\x80\x81]C[\x9d];B[aa])")
    assert isinstance(record.black, str) and len(record.moves) == 1


@pytest.mark.parametrize("charset", [
    "hex", "base64", "rot13", "zlib", "bz2", "uu", "quopri", "undefined", "punycode", "idna",
    "utf-16", "utf-32", "utf-7", "unicode_escape", "cp037",
])
def test_charsets_that_cannot_be_a_files_are_ignored(charset):
    # Python knows these, but as bytes-to-bytes codecs, or ones that do not
    # read ASCII as ASCII: decode_sgf_bytes raised LookupError or UnicodeError.
    data = f"(;GM[1]CA[{charset}]PB[Jos\xe9]PW[Stra\\\\e];B[aa])".encode("latin-1")
    assert decode_sgf_bytes(data) == data.decode("latin-1")
    record = read_sgf(data)
    assert (record.black, record.white, len(record.moves)) == ("José", "Stra\\e", 1)


def test_mostly_utf8_is_read_as_utf8():
    # A Fox server record: UTF-8 with a few broken bytes (a name cut in the
    # middle of a character). It used to be read as Latin-1: "9æ®µ".
    data = ("(;GM[1]FF[4]SZ[19]PB[星阵]BR[9段]PW[绝艺]WR[9段]KM[375]RU[Chinese]"
            "C[野狐围棋 对局]GN[").encode() + "柯洁".encode()[:-1] + b"];B[pd];W[dp])"
    record = read_sgf(data)
    assert (record.black, record.black_rank, record.white, record.white_rank) == \
        ("星阵", "9段", "绝艺", "9段")
    assert "\ufffd" not in record.black + record.white
    assert decode_sgf_bytes(data).endswith("GN[柯\ufffd];B[pd];W[dp])")
    # A short header, two names cut: 15 of 18 non-ASCII bytes are valid.
    data = ("(;GM[1]FF[4]SZ[19]DT[2017-05-07]PB[藤泽里".encode()[:-1] + b"]PW[" +
            "유진".encode()[:-2] + "]BR[P3段]WR[P1段]KM[0]AP[foxwq];B[pd])".encode())
    record = read_sgf(data)
    assert (record.black, record.white, record.black_rank, record.white_rank) == \
        ("藤泽\ufffd", "유\ufffd", "P3段", "P1段")
    # Each value is read on its own: the UTF-8 ones as UTF-8, the Latin-1
    # ones as Latin-1. (Read whole, the first was UTF-8 with "Jos\ufffd\ufffd",
    # the second Latin-1 with "MÃ¼ller".)
    assert decode_sgf_bytes("PB[Müller Ångström 柯洁]".encode() + b"PW[Jos\xe9\xe8]") == \
        "PB[Müller Ångström 柯洁]PW[Joséè]"
    assert decode_sgf_bytes(b"(;PB[M\xc3\xbcller]PW[Jos\xe9])") == "(;PB[Müller]PW[José])"


def test_a_gb2312_name_that_is_valid_utf8_by_chance_is_read_as_chinese():
    """Each value by what it holds: a GB2312 name among UTF-8 values whose
    byte pairs happen to be valid UTF-8 reads as letters of scripts that no
    word mixes ("群壮" as "Ⱥ׳", Latin and Hebrew); in GB18030 it reads as
    Chinese. Names in one script stay UTF-8."""
    for name in ("群壮", "师枚", "失施", "未垄"):
        data = (b"(;GM[1]FF[4]SZ[19]PB[" + name.encode("gb18030") + "]PW[柯洁]BR[9段]"
                "KM[7.5]AP[foxwq];B[pd])".encode())
        assert name.encode("gb18030").decode("utf-8")  # valid UTF-8, as the whole file is
        record = read_sgf(data)
        assert (record.black, record.white, record.black_rank) == (name, "柯洁", "9段")
    for name in ("Иван Петров", "Ελένη", "Müller", "José", "Łukasz", "Dvořák", "שלום"):
        data = f"(;GM[1]PB[{name}]PW[柯洁]C[{name}, 9段];B[pd])".encode()
        assert decode_sgf_bytes(data) == data.decode()


def _mixed(*parts):
    """SGF bytes from ``(text, encoding)`` parts: one file, several charsets."""
    return b"".join(text.encode(encoding) for text, encoding in parts)


def test_each_value_is_decoded_by_its_own_charset():
    # UTF-8 names and ranks with a comment pasted from a GB18030 page: the
    # file as a whole is neither UTF-8 nor GB18030, nor mostly UTF-8 (the
    # comment outweighs the names). Read whole as Latin-1, "9段" was "9æ®µ".
    data = _mixed(("(;GM[1]FF[4]SZ[19]PB[张三]BR[9段]PW[李四]WR[9段]", "utf-8"),
                  ("C[黑中盘胜，这盘棋下得很好，双方都有机会。]", "gb18030"), (";B[pd];W[dp])", "ascii"))
    record = read_sgf(data)
    assert (record.black, record.black_rank, record.white, record.white_rank) == \
        ("张三", "9段", "李四", "9段")
    assert record.game_comment == "黑中盘胜，这盘棋下得很好，双方都有机会。"
    assert [coords.to_gtp(move, 19) for _, move in record.moves] == ["Q16", "D4"]


def test_a_lone_bad_byte_spoils_only_its_own_value():
    # One invalid byte in a comment: the names stay right, and the comment
    # is UTF-8 with U+FFFD for the bad byte (most of its bytes are UTF-8).
    data = "(;GM[1]PB[张三]BR[9段]PW[李四]WR[9段]C[好".encode() + b"\xff" + "棋]".encode() + \
        b";B[pd])"
    record = read_sgf(data)
    assert (record.black, record.black_rank, record.white, record.white_rank) == \
        ("张三", "9段", "李四", "9段")
    assert record.game_comment == "好\ufffd棋"


def test_euc_kr_and_shift_jis_values_next_to_utf8_ones():
    data = _mixed(("(;GM[1]PB[이세돌]BR[9段]PW[柯洁]WR[9段]", "utf-8"), ("C[좋은 수 ㅋㅋ]", "euc-kr"),
                  (";B[pd]", "ascii"), ("C[よろしくお願いします]", "shift_jis"), (";W[dp])", "ascii"))
    record = read_sgf(data)
    assert (record.black, record.black_rank, record.white, record.white_rank) == \
        ("이세돌", "9段", "柯洁", "9段")
    assert record.game_comment == "좋은 수 ㅋㅋ"
    assert record.comments == ["よろしくお願いします", None]


def test_declared_charset_comes_first_value_by_value():
    # CA[GB2312] and GB2312 values throughout: read whole, as before.
    data = "(;GM[1]CA[GB2312]PB[张三]BR[9段]PW[李四]C[好棋！];B[pd])".encode("gb2312")
    record = read_sgf(data)
    assert (record.black, record.black_rank, record.white, record.game_comment) == \
        ("张三", "9段", "李四", "好棋！")
    # One value that is not GB18030 (a UTF-8 name with a stray \xff, which
    # no GB18030 character has): the file does not decode whole, the other
    # values are still read as declared, and that one alone falls through
    # to UTF-8 with U+FFFD.
    data = "(;GM[1]CA[GB2312]PB[张三]BR[9段]C[好棋！]".encode("gb2312") + b"PW[" + \
        "柯洁".encode() + b"\xff];B[pd])"
    record = read_sgf(data)
    assert (record.black, record.black_rank, record.game_comment, record.white) == \
        ("张三", "9段", "好棋！", "柯洁\ufffd")


def test_a_charset_that_would_move_a_value_end_is_not_taken():
    # Shift-JIS "ソ" is b"\x83\\": its second byte is SGF's escape. On the
    # bytes, "\\]" is an escaped bracket and the value goes on; a charset
    # that ate the backslash would end it there and change the tree.
    data = b"(;GM[1]PB[\xe5\xbc\xa0]C[\x83\\];B[pd])"
    assert read_sgf(data).game_comment == "\x83];B[pd"


# ------------------------------------------------------------ bad input


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_files_raise_sgf_error_naming_source_and_reason(name):
    with pytest.raises(SGFError) as caught:
        fixture(name)
    assert isinstance(caught.value, ValueError)
    assert caught.value.reason == BAD_FILES[name]
    assert str(caught.value).startswith(f"{FIXTURES / name}: {BAD_FILES[name]}")
    copy = pickle.loads(pickle.dumps(caught.value))  # e.g. from a worker process
    assert (str(copy), copy.reason) == (str(caught.value), caught.value.reason)


@pytest.mark.parametrize("text, reason, detail", [
    ("(;GM[1]SZ[1];B[aa])", "bad board size", "SZ[1] is not in 2..25"),
    ("(;GM[1]SZ[52])", "bad board size", "SZ[52]"),
    ("(;GM[1]SZ[19:13])", "bad board size", "only square boards"),
    ("(;GM[1]SZ[nine])", "bad board size", "not a number"),
    ("(;GM[1]SZ[9];B[ee];W[ez])", "move off the board", "move 2 W[ez]"),
    ("(;GM[1]SZ[9];B[e5])", "bad move", "move 1 B[e5]"),
    ("(;GM[1]SZ[9];B[ee]W[cc])", "B and W in one node", "at move 1"),
    ("(;GM[3]SZ[9])", "not a game of Go", "GM[3]"),
    ("(;GM[1]SZ[9]AB[ee]AW[ee])", "bad set-up stones", "occupied"),
    ("(;GM[1]SZ[9];B[ee];AB[cc])", "set-up stones mid-game", "node 2"),
    ("(;GM[1]SZ[9]\n;B[ee]\n;W[ez])", "move off the board", "move 2 W[ez]: SGF point 'ez' is off "
                                                              "a 9x9 board (line 3)"),
    ("(;GM[1]SZ[9]\n;B[ee]\n;W[cc]]\n)", "does not parse", "unexpected ']' where a property, "
                                                           "';', '(' or ')' should be (line 3, "
                                                           "column 7)"),
    ("(;GM[1]SZ[9];B[ee]", "does not parse", "ends in the middle"),
    ("(;GM[1]SZ[9];B[ee]]", "does not parse", "unexpected ']'"),
    ("", "does not parse", "no game tree"),
])
def test_bad_strings(text, reason, detail):
    with pytest.raises(SGFError) as caught:
        read_sgf(text, source="game.sgf")
    assert caught.value.reason == reason
    assert str(caught.value).startswith(f"game.sgf: {reason}: ")
    assert detail in str(caught.value)


def test_text_after_the_game_is_ignored():
    assert len(read_sgf("(;GM[1]SZ[9];B[ee])\n\x00\x00\x1a-- signature").moves) == 1
    assert len(read_sgf("(;GM[1]SZ[9];B[ee])\n-- signature :)").moves) == 1


def test_only_the_first_game_is_parsed():
    first = "(;GM[1]SZ[9]C[a comment with ( and \\] in it];B[ee](;W[cc])(;W[gg]))"
    # The second game is broken: it is not even parsed.
    assert read_sgf(first + "\n(;GM[1]SZ[9];B[zz]").moves == [(BLACK, 40), (WHITE, 20)]
    # A large collection costs the time of its first game.
    collection = "".join(to_sgf(fixture("kgs_9x9_game.sgf")) for _ in range(3000))
    assert len(collection) > 1_000_000
    started = time.perf_counter()
    assert read_sgf(collection) == fixture("kgs_9x9_game.sgf")
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize("text, detail", [
    ("(;GM[1]SZ[\u00b2])", "SZ[\u00b2] is not a number"),  # int() took it, str.isdigit() too
    ("(;GM[1]SZ[\u0661\u0669])", "is not a number"),  # Arabic-Indic 19
    ("(;GM[1]SZ[1_9])", "SZ[1_9] is not a number"),
    ("(;GM[1]SZ[9:\u00b9])", "is not a number"),
    ("(;GM[1]SZ[" + "1" * 4301 + "])", "(4301 characters)] is not in 2..25"),
    ("(;GM[1]HA[\u00b2])", "HA[\u00b2] is not a number"),
    ("(;GM[1]HA[1_0])", "HA[1_0] is not a number"),
    ("(;GM[1]HA[" + "9" * 5000 + "])", "(5000 characters)] is not a number"),
])
def test_numbers_are_ascii_digits(text, detail):
    with pytest.raises(SGFError) as caught:
        read_sgf(text, source="game.sgf")
    assert str(caught.value).startswith("game.sgf: bad ") and detail in str(caught.value)


def test_sizes_with_leading_zeros_and_spaces():
    assert read_sgf("(;GM[1]SZ[ 09 ])").size == 9
    assert read_sgf("(;GM[1]SZ[13 : 13])").size == 13
    assert read_sgf("(;GM[1]SZ[" + "0" * 5000 + "19])").size == 19


# ----------------------------------------------------- the starting board


def test_handicap_game_starts_with_white_and_plays_black_twice():
    record = fixture("handicap_19x19.sgf")
    assert record.handicap == 2 and record.komi == 0.5
    board = record.board()
    assert gtp(board, BLACK) == ["D4", "Q16"] and board.to_play == WHITE
    assert board.move_number == 0 and not board.superko  # Japanese rules: simple ko
    assert record.moves[7:9] == [(BLACK, coords.from_gtp("F17", 19)),
                                 (BLACK, coords.from_gtp("C14", 19))]
    final = final_board(record)
    assert record.problem is None and final.move_number == 12
    assert gtp(final, BLACK) == ["C14", "D15", "D4", "F17", "P3", "Q16", "Q3", "R3"]


def test_pl_is_honoured():
    record = read_sgf("(;GM[1]SZ[9]AB[cc][gg]PL[B];B[ee])")
    assert record.to_play == BLACK and record.board().to_play == BLACK


def test_white_set_up_stones_too_mean_black_first():
    record = read_sgf("(;GM[1]SZ[9]AB[cc]AW[gg])")
    assert record.board().to_play == BLACK


def test_handicap_without_set_up_stones_places_nothing():
    # Old KGS free-handicap games: HA[2], and black's stones come as moves.
    record = read_sgf("(;GM[1]SZ[19]HA[2]KM[0.50];B[pd];B[dp];W[dd])")
    board = record.board()
    assert record.handicap == 2 and not board.stones.any() and board.to_play == BLACK
    assert final_board(record).move_number == 3 and record.problem is None


def test_set_up_rectangles_and_removals():
    record = read_sgf("(;GM[1]SZ[5]AB[aa:bb]AW[ee];AE[bb];W[cc])")
    assert record.setup_black == [0, 1, 5] and record.setup_white == [24]
    assert record.moves == [(WHITE, 12)]


def test_superko_follows_the_rules():
    assert not rules_use_superko("Japanese") and not rules_use_superko("korean")
    assert all(rules_use_superko(rules) for rules in ("Chinese", "AGA", "NZ", None))
    assert GameRecord(rules="Japanese").board().superko is False
    assert GameRecord(rules="Japanese").board(superko=True).superko is True


# --------------------------------------------------------------- replay


def test_replay_yields_the_position_before_each_move():
    record = fixture("kgs_9x9_game.sgf")
    seen = []
    for board, color, move in replay(record):
        assert board.move_number == len(seen) and board.to_play == color
        seen.append((color, move, board.copy()))
    assert [(color, move) for color, move, _ in seen] == record.moves
    assert not seen[0][2].stones.any()  # before the first move: the empty board
    assert seen[1][2].stones[coords.from_gtp("E5", 9)] == BLACK


def test_replay_final_position():
    record = fixture("kgs_9x9_game.sgf")
    board = final_board(record)
    assert record.problem is None and board.is_over
    assert (board.stones == diagram_stones(KGS_9X9_FINAL)).all()
    assert board.captures == {BLACK: 1, WHITE: 4}
    # Area scoring agrees with the result the record gives.
    assert board.result() == "W+3.5" and board.winner() == record.winner


def test_replay_stops_at_an_illegal_move():
    record = fixture("illegal_suicide.sgf")
    expected = r"illegal_suicide.sgf: move 6 \(W A9\) is illegal: suicide"
    with pytest.warns(SGFWarning, match=expected):
        positions = [(color, move) for _, color, move in replay(record)]
    assert positions == record.moves[:5]  # the positions before it are kept
    assert record.problem == "move 6 (W A9) is illegal: suicide"
    with pytest.warns(SGFWarning):
        board = final_board(record)
    assert board.move_number == 5


def test_a_clean_replay_clears_an_old_problem():
    record = fixture("illegal_suicide.sgf")
    with pytest.warns(SGFWarning):
        final_board(record)
    record.moves = record.moves[:5]
    record.comments = record.comments[:5]
    final_board(record)
    assert record.problem is None


# -------------------------------------------------------------- writing


def test_to_sgf_writes_the_expected_header_and_escapes():
    record = fixture("kgs_9x9_game.sgf")
    record.comments[0] = "a ] b \\ c"
    text = to_sgf(record)
    assert text.startswith("(;GM[1]FF[4]CA[UTF-8]AP[mockgo]SZ[9]KM[6.5]RU[Chinese]"
                           "PB[tanuki]PW[kuroneko]")
    assert ";B[ee]C[a \\] b \\\\ c];W[cf]" in text
    assert ";W[];B[]C[thanks for the game])" in text and text.endswith(")\n")
    assert read_sgf(text).comments[0] == "a ] b \\ c"


def test_to_sgf_keeps_moves_appended_without_comments():
    record = read_sgf("(;GM[1]SZ[9];B[ee]C[first])")
    record.moves.append((WHITE, 81))
    assert read_sgf(to_sgf(record)).moves == [(BLACK, 40), (WHITE, 81)]


def test_handicap_header():
    text = to_sgf(fixture("handicap_19x19.sgf"))
    assert "RE[W+Resign]HA[2]AB[dp][pd]\n;W[qp]" in text


@pytest.mark.parametrize("name", GOOD_FILES)
def test_round_trip(name):
    record = fixture(name)
    again = read_sgf(to_sgf(record))
    assert again == record
    assert to_sgf(again) == to_sgf(record)


def test_save_sgf_writes_atomically(tmp_path, monkeypatch):
    record = fixture("kgs_9x9_game.sgf")
    path = tmp_path / "game.sgf"
    save_sgf(record, path)
    assert load_sgf(path) == record
    assert [p.name for p in tmp_path.iterdir()] == ["game.sgf"]
    assert path.stat().st_mode & 0o777 == 0o644  # not mkstemp's private 0600

    def broken(record):
        raise RuntimeError("disk on fire")
    monkeypatch.setattr(sgf_writer, "to_sgf", broken)  # where save_sgf finds it
    with pytest.raises(RuntimeError):
        save_sgf(GameRecord(size=9), path)
    assert load_sgf(path) == record  # the old file is intact, no temp file left
    assert [p.name for p in tmp_path.iterdir()] == ["game.sgf"]


def test_load_sgf_refuses_what_is_not_a_regular_file(tmp_path):
    # /dev/zero grew until MemoryError; a FIFO blocked forever.
    fifo = tmp_path / "game.sgf"
    os.mkfifo(fifo)
    for path, kind in [(fifo, "a FIFO (named pipe)"), ("/dev/zero", "a character device"),
                       (tmp_path, "a folder")]:
        with pytest.raises(SGFError) as caught:
            load_sgf(path)
        assert str(caught.value) == f"{path}: not a regular file: {kind}"
    with pytest.raises(FileNotFoundError):
        load_sgf(tmp_path / "no-such.sgf")


def test_load_sgf_refuses_a_file_over_the_limit(tmp_path, monkeypatch):
    assert sgf_reader.MAX_SGF_BYTES == 4 * 2**20
    path = tmp_path / "big.sgf"
    record = fixture("kgs_9x9_game.sgf")
    text = to_sgf(record)
    monkeypatch.setattr(sgf_reader, "MAX_SGF_BYTES", len(text))  # where load_sgf finds it
    path.write_text(text)
    assert load_sgf(path) == record  # at the limit: read
    path.write_text(text + "\n")
    with pytest.raises(SGFError) as caught:
        load_sgf(path)
    assert str(caught.value).startswith(f"{path}: file too large: more than {len(text):,} bytes")


def random_game(size, seed, board=None):
    rng = np.random.default_rng(seed)
    board = board or Board(size, komi=7.5)
    while not board.is_over and board.move_number < 3 * size * size:
        moves = np.flatnonzero(board.sensible_moves())
        board.play(int(rng.choice(moves)) if len(moves) > 1 or rng.random() < 0.1
                   else board.pass_index)
    return board


def test_record_from_board_round_trip():
    board = random_game(9, seed=3)
    record = record_from_board(board, black="net-0001", white="net-0002", date="2024-01-02",
                               comments=["opening"])
    assert record.result == board.result() and record.winner == board.winner()
    assert (record.rules, record.date, record.komi, record.handicap) == \
        ("Chinese", "2024-01-02", 7.5, 0)
    assert record.moves == board.history and record.comments[0] == "opening"
    again = read_sgf(to_sgf(record))
    assert again == record
    assert (final_board(again).stones == board.stones).all()


def test_record_from_board_dates_a_game_today_or_not_at_all():
    board = random_game(9, seed=3)
    assert record_from_board(board).date == datetime.date.today().isoformat()
    undated = record_from_board(board, date="")
    assert undated.date is None and "DT[" not in to_sgf(undated)
    assert read_sgf(to_sgf(undated)) == undated


def test_record_from_board_with_handicap_and_resignation():
    board = Board(9, komi=0.5)
    board.place_handicap(2)
    for vertex in ["E5", "C5", "pass"]:
        board.play(coords.from_gtp(vertex, 9))
    board.resign()  # black, who was to play
    record = record_from_board(board)
    assert record.handicap == 2 and record.to_play is None and record.result == "W+R"
    assert record.board().to_play == WHITE and record.winner == WHITE
    assert "HA[2]AB[" in to_sgf(record)


def test_record_from_board_needs_start_when_set_up_stones_were_captured():
    start = Board.from_diagram("""
        . . . . .
        . . X . .
        . X O . .
        . . X . .
        . . . . .
    """)
    board = start.copy()
    board.play(coords.from_gtp("D3", 5), BLACK)  # captures the white set-up stone
    with pytest.raises(ValueError, match="start="):
        record_from_board(board)
    record = record_from_board(board, start=start)
    assert record.setup_white == [coords.from_gtp("C3", 5)] and record.to_play is None
    assert (final_board(read_sgf(to_sgf(record))).stones == board.stones).all()


def test_record_from_board_writes_pl_when_the_default_is_wrong():
    board = Board.from_diagram(". . .\n. X .\n. . .", to_play=BLACK)  # black stones, black first
    board.play(0)
    record = record_from_board(board)
    assert record.to_play == BLACK and "PL[B]" in to_sgf(record)
    assert read_sgf(to_sgf(record)).board().to_play == BLACK


# ------------------------------------------------------------------ GnuGo


def find_gnugo(request):
    """GnuGo's path: the conftest fixture if the project has one, else here."""
    try:
        return request.getfixturevalue("gnugo_path")
    except pytest.FixtureLookupError:
        pass
    path = shutil.which("gnugo")
    if path is None and os.path.exists("/usr/games/gnugo"):  # not on PATH on Debian
        path = "/usr/games/gnugo"
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("GnuGo is required on CI (apt-get install gnugo)")
        pytest.skip("GnuGo is not installed (apt-get install gnugo)")
    return path


@pytest.mark.parametrize("name", ["kgs_9x9_game.sgf", "handicap_19x19.sgf"])
def test_gnugo_loads_our_file_to_the_same_position(name, tmp_path, request):
    gnugo = find_gnugo(request)
    record = fixture(name)
    path = tmp_path / "game.sgf"
    save_sgf(record, path)
    commands = f"loadsgf {path}\nlist_stones black\nlist_stones white\nget_komi\nquit\n"
    reply = subprocess.run([gnugo, "--mode", "gtp"], input=commands, capture_output=True,
                           text=True, timeout=30, check=True).stdout
    answers = [block.removeprefix("= ").split() for block in reply.strip().split("\n\n")]
    to_play, black, white, komi = answers[:4]
    board = final_board(record)
    assert sorted(black) == gtp(board, BLACK) and sorted(white) == gtp(board, WHITE)
    assert to_play == ["black" if board.to_play == BLACK else "white"]
    assert float(komi[0]) == record.komi


# ------------------------------------------------------- many files at once


def test_iter_folder_skips_bad_files_with_warnings():
    summary = LoadSummary()
    with pytest.warns(SGFWarning) as caught:
        games = list(iter_sgf_files(FIXTURES, summary))
    assert [Path(game.source).name for game in games] == GOOD_FILES
    assert summary.games == len(GOOD_FILES)
    assert summary.skipped == {"does not parse": 3, "B and W in one node": 1,
                               "move off the board": 1, "bad board size": 1}
    messages = sorted(str(warning.message) for warning in caught)
    assert messages[0].startswith(f"{FIXTURES / 'bad_both_b_and_w.sgf'}: skipped: ")
    assert len(messages) == len(BAD_FILES)
    assert str(summary) == (f"{len(GOOD_FILES)} games read, 6 skipped (3 does not parse, "
                            "1 B and W in one node, 1 bad board size, 1 move off the board)")


def make_archives(folder):
    """The fixtures packed as .tar.gz, .tar.bz2 and .zip, built in memory."""
    files = sorted(FIXTURES.glob("*.sgf"))
    paths = []
    for suffix, mode in ((".tar.gz", "w:gz"), (".tar.bz2", "w:bz2")):
        path = folder / f"games{suffix}"
        with tarfile.open(path, mode) as archive:
            for file in files:
                data = file.read_bytes()
                info = tarfile.TarInfo(f"games/{file.name}")
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
        paths.append(path)
    path = folder / "games.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for file in files:
            archive.writestr(f"games/{file.name}", file.read_bytes())
    return paths + [path]


def test_iter_archives(tmp_path):
    archives = make_archives(tmp_path)
    summary = LoadSummary()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        games = list(iter_sgf_files(archives + [FIXTURES / "kgs_9x9_game.sgf"], summary))
    expected = [f"{archive}:games/{name}" for archive in archives for name in GOOD_FILES]
    assert [game.source for game in games] == expected + [str(FIXTURES / "kgs_9x9_game.sgf")]
    assert games[0] == fixture(GOOD_FILES[0])
    assert summary.games == 3 * len(GOOD_FILES) + 1
    assert sum(summary.skipped.values()) == 3 * len(BAD_FILES) == len(caught)
    assert f"{archives[0]}:games/bad_size.sgf: skipped: bad board size" in \
        [str(warning.message) for warning in caught][3]
    assert not list(tmp_path.glob("games/*"))  # nothing was extracted to disk


@pytest.mark.parametrize("kind", [0, 1, 2])  # .tar.gz, .tar.bz2, .zip
def test_broken_archive_keeps_the_games_before_the_break(tmp_path, kind):
    good = make_archives(tmp_path)[kind]
    data = good.read_bytes()
    broken = tmp_path / good.name.replace("games", "broken")
    broken.write_bytes(data[: len(data) // 2])
    summary = LoadSummary()
    paths = [broken, tmp_path / "missing.zip", FIXTURES / "empty_game.sgf"]
    # By default a broken archive is an error naming it, after the games
    # before the break: it must not pass for a smaller whole archive.
    before = []
    with pytest.raises(archives.BrokenArchiveError, match=rf"^{broken} is cut short or damaged: "
                                                        r"it broke after \d+ SGF files \("), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", SGFWarning)  # the bad files before the break
        for game in iter_sgf_files(paths, LoadSummary()):
            before.append(game)
    # Asked to keep going, it is skipped with a warning.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        games = list(iter_sgf_files(paths, summary, keep_going=True))
    assert before == games[:-1]
    # gzip streams up to the break: the first games, in order, and not all
    # of them; a zip's index is at its end and a small bz2 is one block, so
    # half of either gives nothing.
    read = [Path(game.source.partition(":")[2]).name for game in games[:-1]]
    if kind == 0:
        assert 0 < len(read) < len(GOOD_FILES) and read == GOOD_FILES[:len(read)]
    else:
        assert read == []
    assert games[-1].black == "Alice"
    assert summary.skipped["unreadable file or archive"] == 2
    messages = [str(warning.message) for warning in caught]
    assert messages[-2].startswith(f"{broken}: skipped: ")
    assert messages[-1].startswith(f"{tmp_path / 'missing.zip'}: skipped: ")


def test_sgf_sources_raises_oserror_for_a_broken_archive(tmp_path):
    fake = tmp_path / "fake.tar.gz"
    fake.write_bytes(b"not an archive at all")
    with pytest.raises(OSError, match=rf"^{fake} is cut short or damaged: it broke after 0 "):
        list(archives.sgf_sources(fake))
    folder = tmp_path / "folder"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "b.SGF").write_bytes(b"(;GM[1];B[aa])")
    (folder / "a.sgf").write_bytes(b"(;GM[1];B[bb])")
    (folder / "notes.txt").write_text("not a game")
    sources = [source for source, _ in archives.sgf_sources(folder)]
    assert [Path(source).relative_to(folder).as_posix() for source in sources] == \
        ["a.sgf", "sub/b.SGF"]


# ---------------------------------------------------------- real KGS games


def kgs_mirror():
    mirror = Path(os.environ.get("MOCKGO_KGS_MIRROR", REPO.parent / "shared" / "data" / "kgs"))
    if not (mirror / KGS_ARCHIVE).exists():
        pytest.skip(f"the KGS mirror is absent ({mirror / KGS_ARCHIVE})")
    return mirror


def test_real_kgs_archive_replays(capsys):
    archive = kgs_mirror() / KGS_ARCHIVE
    summary = LoadSummary()
    clean = moves = 0
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for record in iter_sgf_files(archive, summary):
            for board, color, move in replay(record):
                moves += 1
            clean += record.problem is None
    seconds = time.perf_counter() - started
    assert summary.games == 525 and not summary.skipped
    assert clean >= 0.99 * summary.games
    assert len(caught) == summary.games - clean  # a warning per problem, nothing else
    assert capsys.readouterr() == ("", "")  # a long job's log stays quiet
    assert moves > 100_000 and seconds < 20


# ------------------------------------------------ komi and handicap bounds


@pytest.mark.parametrize("text, detail", [
    # Finite, but no komi: it was read, and GTP's final_score said W+1e+20.
    ("(;GM[1]KM[99999999999999999999])", "KM[99999999999999999999] is not a komi (at most 1000 "
                                         "either way)"),
    ("(;GM[1]KM[-1000.5])", "KM[-1000.5] is not a komi"),
    ("(;GM[1]KM[200000])", "KM[200000] is not a komi"),  # 2000 by the x100 rule
    # HA[100] was read on 19x19; 9 is the most a board of 9 and up takes.
    ("(;GM[1]SZ[19]HA[100])", "HA[100]: at most 9 handicap stones on a 19x19 board"),
    ("(;GM[1]SZ[19]HA[10])", "HA[10]: at most 9 handicap stones"),
    ("(;GM[1]SZ[8]HA[5])", "HA[5]: at most 4 handicap stones on a 8x8 board"),
    ("(;GM[1]SZ[5]HA[2])", "HA[2]: at most 0 handicap stones on a 5x5 board"),
])
def test_komi_and_handicap_out_of_range_are_refused(text, detail):
    with pytest.raises(SGFError) as caught:
        read_sgf(text, source="game.sgf")
    assert str(caught.value).startswith(f"game.sgf: bad property value: {detail}")
    assert caught.value.reason == "bad property value"


def test_komi_and_handicap_in_range_are_read():
    assert read_sgf("(;GM[1]KM[100000])").komi == 1000  # komi x100
    assert read_sgf("(;GM[1]KM[-1000.0])").komi == -1000  # with its point: no x100
    assert read_sgf("(;GM[1]SZ[19]HA[9])").handicap == 9
    assert read_sgf("(;GM[1]SZ[9]HA[9])").handicap == 9
    # 0 and 1 both mean no handicap stone; some servers write 1.
    assert [read_sgf(f"(;GM[1]SZ[5]HA[{n}])").handicap for n in (0, 1)] == [0, 1]


def test_more_black_set_up_stones_than_a_handicap_are_written_without_ha():
    board = Board(19)
    board.setup(black=list(range(12)))
    board.play(200, WHITE)
    record = record_from_board(board)
    assert record.handicap == 0 and len(record.setup_black) == 12
    assert read_sgf(to_sgf(record)).setup_black == record.setup_black
    board = Board(19)
    board.setup(black=[60, 300])
    assert record_from_board(board).handicap == 2
