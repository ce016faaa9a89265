"""The SGF reader's promises, tested on inputs nobody wrote by hand.

Two promises (see :mod:`mockgo.data.sgf_reader`):

- whatever the text or bytes, :func:`read_sgf` gives a GameRecord or raises
  SGFError, never another exception (a long job skips an SGFError, another
  exception is a bug), and :func:`decode_sgf_bytes` never fails;
- writing a record and reading it back gives the same record, komi included.

Hypothesis generates the inputs, derandomized (the same examples on every
run, so CI is reproducible) and few enough to take a few seconds; a seeded
fuzzer mutates the fixture files as real damaged files are damaged.
"""

import encodings.aliases
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mockgo.data.charsets import decode_sgf_bytes
from mockgo.data.sgf_reader import GameRecord, SGFError, parse_komi, parse_result, read_sgf
from mockgo.data.sgf_writer import format_komi, to_sgf
from mockgo.go.board import BLACK, MAX_KOMI, MAX_SIZE, WHITE
from mockgo.go.handicap import max_handicap

FIXTURES = Path(__file__).parent / "fixtures" / "sgf"

PROPERTIES = settings(max_examples=100, deadline=None, derandomize=True,
                      suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def read_or_sgf_error(data):
    """read_sgf's answer: a GameRecord, or the SGFError; anything else fails the test."""
    try:
        record = read_sgf(data, source="fuzzed.sgf")
    except SGFError as error:
        assert str(error).startswith("fuzzed.sgf: ")
        return error
    assert isinstance(record, GameRecord)
    return record


# ------------------------------------------------------------ any input

# Pieces of SGF, and the values that broke the reader before.
TOKENS = ["(", ")", ";", "[", "]", "\\", ":", "\n", " ", "B", "W", "SZ", "KM", "HA", "AB",
          "AW", "AE", "PL", "C", "GM", "CA", "RE", "PB", "aa", "ee", "tt", "zz", "19", "9",
          "6.5", "650", "-100", "nan", "inf", "1e999", "²", "١", "1_9", "B+R", "UTF-8", "hex",
          "gb2312", "undefined", "\ufeff", "\x00"]
sgf_like_text = st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=3)),
                         max_size=40).map("".join)

ROOT_PROPERTIES = ["SZ", "KM", "HA", "GM", "PL", "AB", "AW", "AE", "RE", "CA", "PB", "C"]
odd_values = st.one_of(st.sampled_from(["19", "9", "2:2", "650", "7.5", "-0", "1" * 4301, "²",
                                        "٦", "1_0", "nan", "inf", "b", "W", "aa:cc", "tt", "",
                                        " 9 ", "25", "26", "0", "hex", "utf-16"]),
                       st.text(max_size=8))


@st.composite
def well_formed_games(draw):
    """Games that parse, with odd property values: the checks after parsing."""
    def node(names):
        props = draw(st.lists(st.tuples(st.sampled_from(names), st.lists(odd_values, min_size=1,
                                                                         max_size=3)),
                              max_size=4, unique_by=lambda p: p[0]))
        return ";" + "".join(name + "".join("[" + value.replace("\\", "\\\\").replace("]", "\\]")
                                            + "]" for value in values)
                             for name, values in props)
    moves = [node(["B", "W", "C", "AB", "PL"]) for _ in range(draw(st.integers(0, 5)))]
    return "(" + node(ROOT_PROPERTIES) + "".join(moves) + ")"


@PROPERTIES
@given(st.one_of(st.text(), sgf_like_text, well_formed_games()))
def test_any_text_gives_a_record_or_sgf_error(text):
    read_or_sgf_error(text)


@PROPERTIES
@given(st.one_of(st.binary(), sgf_like_text.map(lambda t: t.encode("utf-8", "surrogatepass")),
                 st.tuples(st.binary(max_size=20), well_formed_games().map(str.encode),
                           st.binary(max_size=5)).map(b"".join)))
def test_any_bytes_give_a_record_or_sgf_error(data):
    read_or_sgf_error(data)


# Every codec name Python knows (CA[...] may name any), and the bytes-to-bytes ones.
CODECS = sorted(set(encodings.aliases.aliases.values())
                | {"hex", "base64", "rot13", "zlib", "bz2", "uu", "quopri", "undefined",
                   "punycode", "idna", "unicode_escape", "raw_unicode_escape", "utf-8-sig"})


@PROPERTIES
@given(st.sampled_from(CODECS), st.binary(max_size=30))
def test_decode_sgf_bytes_never_fails_whatever_the_declared_charset(codec, data):
    text = decode_sgf_bytes(b"(;CA[" + codec.encode() + b"]PB[" + data + b"])")
    assert isinstance(text, str)


# ------------------------------------------------------- the round trip

# SGF keeps a value's inner spaces, but the reader strips its ends, and an
# empty value is no value.
texts = st.text(min_size=1, max_size=12).map(str.strip).filter(bool)
optional_texts = st.none() | texts
results = st.none() | st.sampled_from(["B+3.5", "W+0.5", "W+R", "B+Resign", "W+T", "B+F",
                                       "0", "Draw", "Void", "?", "B+"]) | texts


# Every komi a record may hold: finite, at most MAX_KOMI either way (a komi
# beyond it is refused when read, and when written).
komis = st.floats(-MAX_KOMI, MAX_KOMI, allow_nan=False, allow_infinity=False)


@st.composite
def game_records(draw):
    size = draw(st.integers(2, MAX_SIZE))
    points = draw(st.lists(st.integers(0, size * size - 1), unique=True, max_size=6))
    split = draw(st.integers(0, len(points)))
    moves = draw(st.lists(st.tuples(st.sampled_from([BLACK, WHITE]),
                                    st.integers(0, size * size)), max_size=25))
    comments = draw(st.lists(optional_texts, min_size=len(moves), max_size=len(moves)))
    result = draw(results)
    winner, margin, reason = parse_result(result)
    record = GameRecord(
        size=size, komi=draw(komis),
        handicap=draw(st.integers(0, max(1, max_handicap(size)))),
        setup_black=points[:split], setup_white=points[split:],
        black=draw(optional_texts), white=draw(optional_texts),
        black_rank=draw(optional_texts), white_rank=draw(optional_texts),
        date=draw(optional_texts), rules=draw(optional_texts),
        result=result, winner=winner, margin=margin, result_reason=reason,
        moves=moves, comments=comments, to_play=draw(st.sampled_from([None, BLACK, WHITE])),
        game_comment=draw(optional_texts))
    try:
        record.board()  # set-up stones without a liberty are no position
    except ValueError:
        assume(False)
    return record


@PROPERTIES
@given(game_records())
def test_write_then_read_is_the_identity(record):
    text = to_sgf(record)
    again = read_sgf(text)
    assert again == record
    assert read_sgf(text.encode("utf-8")) == record  # through the bytes of the file
    assert to_sgf(again) == text


@PROPERTIES
@given(komis)
def test_any_komi_reads_back_exactly(komi):
    assert parse_komi(format_komi(komi)) == komi
    assert read_sgf(to_sgf(GameRecord(size=9, komi=komi))).komi == komi


@PROPERTIES
@given(st.floats(allow_nan=False, allow_infinity=False).filter(lambda k: abs(k) > MAX_KOMI))
def test_a_komi_beyond_the_bound_is_neither_written_nor_read(komi):
    with pytest.raises(ValueError):
        format_komi(komi)
    with pytest.raises(SGFError, match="is not a komi"):
        read_sgf(f"(;GM[1]KM[{komi!r}])")


# ------------------------------------------------- damaged real files

def mutations(data, rng, count):
    """``count`` damaged copies of ``data``: one to four byte flips,
    insertions (random or SGF punctuation) and deletions each."""
    punctuation = b"()[];\\:BWSZKMHACL0123456789.-+ \n\xc2\xb2\xff"
    for _ in range(count):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            where = rng.randrange(len(damaged) + 1)
            kind = rng.random()
            if kind < 0.4 and where < len(damaged):
                damaged[where] = rng.randrange(256) if rng.random() < 0.5 else \
                    rng.choice(punctuation)
            elif kind < 0.7:
                damaged[where:where] = bytes([rng.randrange(256)])
            else:
                del damaged[where:where + rng.randint(1, 3)]
        yield bytes(damaged)


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.sgf")))
def test_damaged_fixtures_give_a_record_or_sgf_error(name):
    data = (FIXTURES / name).read_bytes()
    rng = random.Random(f"{name}-15")  # seeded: the same damage on every run
    for damaged in mutations(data, rng, 150):
        read_or_sgf_error(damaged)


def test_the_fuzzer_damages():
    data = (FIXTURES / "kgs_9x9_game.sgf").read_bytes()
    damaged = list(mutations(data, random.Random(0), 50))
    assert sum(d != data for d in damaged) >= 45 and len(set(damaged)) > 40
