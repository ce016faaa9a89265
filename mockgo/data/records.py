"""Game records: reading, replaying and writing SGF files.

The supervised-learning notebooks learn from tens of thousands of KGS games,
and the self-play notebooks save the games they play; both go through this
module. A game is a :class:`GameRecord`: the game information (size, komi,
players, result...), the set-up stones and the moves of the main line as flat
indices (see :mod:`mockgo.go.coords`). The SGF syntax itself is parsed by
:mod:`mockgo.data.sgf_syntax` (the whole tree, variations included, is kept by
:mod:`mockgo.data.gametree`); what this module adds is making sense of real
files, which are messy:

- text in many encodings (see :func:`decode_sgf_bytes`);
- komi written as ``KM[650]`` for 6.5 (see :func:`parse_komi`);
- missing ``RE``, ``KM`` or ``SZ``; variations; boards that are not 19x19;
- collections of many games in one file: only the first game is parsed;
- files that are broken: those raise :class:`SGFError` (a ValueError) naming
  the file and the reason (and the line, where it is one node's fault),
  and :func:`iter_sgf_files` skips them with a
  warning, so that one bad file cannot stop a long job. Whatever the input,
  :func:`read_sgf` gives a record or raises SGFError, nothing else (the
  tests fuzz it to hold it to that);
- "files" that are not: :func:`load_sgf` refuses FIFOs and devices (reading
  ``/dev/zero`` never ends) and files over :data:`MAX_SGF_BYTES`;
- files under that size that would still take gigabytes or minutes: a
  tree of more than :data:`~mockgo.data.sgf_syntax.MAX_NODES` nodes, a
  line of play of more than :data:`MAX_MOVES` moves, or set-up lists that
  expand to more than :data:`SETUP_BOARDS` boards' worth of points
  (``AB[aa:ss]``, 7 bytes, is all 361 points) are refused, so that any file
  under the size limit is read or refused in about a second
  (``benchmarks/sgf_worst_case.py`` measures the worst ones);
- moves that the rules forbid: :func:`replay` stops there and notes the
  problem in ``record.problem``, keeping the positions before it.

Writing goes the other way: :func:`record_from_board` makes a record of a
game played on a Board, :func:`to_sgf` and :func:`save_sgf` write it.

>>> record = read_sgf("(;GM[1]SZ[9]KM[7.5]RE[W+R];B[ee];W[cc])")
>>> record.size, record.komi, record.winner == WHITE, record.result_reason
(9, 7.5, True, 'resign')
>>> [coords.to_gtp(move, 9) for color, move in record.moves]
['E5', 'C7']
"""

import codecs
import collections
import dataclasses
import datetime
import functools
import gzip
import math
import os
import re
import stat
import tarfile
import warnings
import zipfile
import zlib
from pathlib import Path

from mockgo.data import sgf_syntax
from mockgo.data.files import atomic_write_text
from mockgo.go import coords
from mockgo.go.board import (BLACK, EMPTY, ILLEGAL_REASONS, MAX_KOMI, MAX_SIZE, WHITE, Board,
                             check_komi, max_handicap)

SGF_COLORS = {"B": BLACK, "W": WHITE}
COLOR_LETTERS = {BLACK: "B", WHITE: "W"}
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".tar", ".zip")
# The most load_sgf reads of a file. A long game with comments is some
# 100 kB, a commented collection a few MB; a larger file is refused, without
# reading it whole, rather than filling the memory (and the time a bad file
# can take to parse stays bounded).
MAX_SGF_BYTES = 4 * 2**20
# The most moves a line of play may have. The longest real games are some
# 600 moves (passes and all); a line of a million passes would cost every
# replay (datasets, GTP loadsgf, evaluation) minutes.
MAX_MOVES = 10_000
# The most set-up points a line of play may list (duplicates counted), in
# boards: a position never needs more than one board's worth of AB, AW and
# AE together, and ``AB[aa:ss]`` repeated 500,000 times (3.5 MB) would
# otherwise expand to 180 million points, 4.5 GB.
SETUP_BOARDS = 4


class SGFError(ValueError):
    """A game record that cannot be read. ``reason`` is a short category
    (``"does not parse"``, ``"move off the board"``...) that summaries count;
    the message also names the source and the details."""

    def __init__(self, source, reason, detail=None):
        self.source, self.reason, self.detail = source, reason, detail
        super().__init__(f"{source}: {reason}" + (f": {detail}" if detail else ""))

    def __reduce__(self):  # so it can cross a multiprocessing pool
        return SGFError, (self.source, self.reason, self.detail)


class BrokenArchiveError(OSError):
    """An archive that breaks before its end: cut short (a download or a
    copy that stopped) or damaged. Raised by :func:`sgf_sources` after the
    ``members`` SGF files read before the break, so that a job reading it
    can tell "all of the archive" from "the part before the break": a cut
    archive must not pass for a smaller whole one."""

    def __init__(self, path, members, error):
        self.path, self.members, self.error = str(path), members, error
        super().__init__(f"{path} is cut short or damaged: it broke after {members:,} SGF "
                         f"files ({type(error).__name__}: {error}); fetch it again")

    def __reduce__(self):  # so it can cross a multiprocessing pool
        return BrokenArchiveError, (self.path, self.members, self.error)


class SGFWarning(UserWarning):
    """A skipped file or a game that could not be replayed to the end.
    A category of its own, so long jobs can filter or count them."""


# ------------------------------------------------------------ the record


@dataclasses.dataclass
class GameRecord:
    """One game: the information of the SGF root node and the main line.

    ``moves`` holds ``(color, move)`` pairs with flat indices (``size * size``
    for a pass); ``comments`` is parallel to it (None where a move has no
    comment). ``source`` and ``problem`` are not part of the game, so two
    records of the same game compare equal wherever they were read from.
    """

    size: int = 19
    komi: float = 0.0
    handicap: int = 0
    setup_black: list = dataclasses.field(default_factory=list)
    setup_white: list = dataclasses.field(default_factory=list)
    black: str | None = None  # player names
    white: str | None = None
    black_rank: str | None = None
    white_rank: str | None = None
    date: str | None = None
    rules: str | None = None
    result: str | None = None  # the RE text as written
    winner: int | None = None  # BLACK, WHITE, EMPTY (a draw) or None (unknown)
    margin: float | None = None  # points, when the game was counted
    result_reason: str | None = None  # "score", "resign", "time", "forfeit" or None
    moves: list = dataclasses.field(default_factory=list)
    comments: list = dataclasses.field(default_factory=list)
    to_play: int | None = None  # PL: who moves first, when the file says
    game_comment: str | None = None  # C of the root node
    source: str = dataclasses.field(default="<string>", compare=False)
    # Set by replay(): why the game could not be replayed to the end.
    problem: str | None = dataclasses.field(default=None, compare=False)

    def __post_init__(self):
        # Hand-made records may leave comments out; keep the list parallel.
        if len(self.comments) > len(self.moves):
            raise ValueError(f"{len(self.comments)} comments for {len(self.moves)} moves")
        self.comments = list(self.comments) + [None] * (len(self.moves) - len(self.comments))

    def first_color(self):
        """Who moves first: ``PL`` if given; else white when black has
        handicap (set-up) stones and white has none; else black.

        ``HA`` alone places nothing: files with ``HA`` and no ``AB`` (old KGS
        free-handicap games) have black put the stones down as moves.
        """
        if self.to_play is not None:
            return self.to_play
        return WHITE if self.setup_black and not self.setup_white else BLACK

    def board(self, superko=None):
        """The starting position: set-up stones placed, komi set, the right
        player to move. ``superko`` defaults to :func:`rules_use_superko`."""
        if superko is None:
            superko = rules_use_superko(self.rules)
        board = Board(self.size, komi=self.komi, superko=superko)
        if self.setup_black or self.setup_white:
            board.setup(black=self.setup_black, white=self.setup_white)
        board.to_play = self.first_color()
        return board


def rules_use_superko(rules):
    """Whether a game under these rules forbids repeating a position.

    Japanese and Korean rules have only the simple ko rule (a long cycle
    ends the game as no result instead), and KGS lets such games go on; the
    other rule sets KGS offers (Chinese, AGA, New Zealand) have superko.
    """
    name = (rules or "").strip().lower()
    return not name.startswith(("jap", "kor"))


# --------------------------------------------------------------- reading


def decode_sgf_bytes(data):
    """Text from the bytes of an SGF file, whatever its encoding; never fails.

    Most files are in one encoding, and are read whole in the first of
    these that decodes them strictly (and, for the two East Asian guesses,
    reads plausibly):

    1. the charset named by ``CA[...]``, if Python knows it as a text
       encoding that reads ASCII as ASCII (GB2312 is read as its superset
       GB18030, EUC-KR as CP949: files labelled with the older name often
       use the newer characters). Python also "knows" ``CA[hex]``,
       ``CA[base64]``, ``CA[rot13]``, ``CA[undefined]`` or ``CA[utf-16]``,
       none of which can be the encoding of a file whose ``CA[`` was found
       as ASCII: those are ignored;
    2. UTF-8 (what KGS writes);
    3. EUC-KR (CP949), if the text reads as Korean (:func:`_looks_korean`),
       then GB18030, if it reads as Chinese (:func:`_looks_chinese`) --
       unless most of the non-ASCII bytes are UTF-8 (:func:`_mostly_utf8`),
       which says the file is a UTF-8 one with a few stray bytes.

    A file that none of these reads is a mix: UTF-8 names and ranks with a
    comment pasted in from a GB18030 page, or a name cut in the middle of a
    character (Fox server records do both). Read as one text it could only
    fall back to Latin-1, and "9段" would come out "9æ®µ". So its
    structure is split on the bytes, which needs no charset (every byte of
    ``(;[]\\`` is ASCII in all of them), and each property value is decoded
    on its own by :func:`_decode_value`; see there for the order.

    Why the checks, and Korean before Chinese: GB18030 accepts almost any
    bytes. Every Korean EUC-KR text is valid GB18030 too (as nonsense
    Chinese), and so is Latin-1 "Müller" (read "M黮ler"), or "José]" whose
    closing bracket it swallows along with the "é": tried first and
    unchecked, GB18030 would leave EUC-KR and Latin-1 nothing to read.
    Reading a file whole where one charset does (rather than always value by
    value) is for speed -- nearly every KGS file is plain UTF-8, which
    decodes in one call -- and for the legacy guesses, which are surer of
    a whole file's text than of a two-character name.
    """
    declared = _declared_charset(data)
    if declared:
        text = _try_decode(data, declared)
        if text is not None:
            return text
    text = _try_decode(data, "utf-8")
    if text is not None:
        return text
    if not _mostly_utf8(data):
        for codec, plausible in (("cp949", _looks_korean), ("gb18030", _looks_chinese)):
            text = _try_decode(data, codec)
            if text is not None and plausible(text):
                return text
    return _decode_values(data, declared)


def _decode_values(data, declared):
    """``data`` decoded value by value (see :func:`decode_sgf_bytes`).

    What is outside the values -- identifiers, ``;``, ``(``, ``)``, white
    space -- is ASCII in any SGF file; any other byte there is junk (text
    before the game, say), read as Latin-1, which keeps every byte a
    character. The
    values are found on the bytes as the parser finds them on the text
    (``[`` to the first ``]`` that no backslash escapes), so the text put
    back together parses into the same properties, each value now decoded
    by the charset that fits it.
    """
    data = data.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte-order mark
    pieces, end, decided = [], 0, 0
    for match in _VALUE_BYTES.finditer(data):
        value = match.group(1)
        if value.isascii():  # names, moves, numbers: nothing to decide
            continue
        if decided == _MOST_VALUES_DECIDED:
            break
        pieces.append(data[end:match.start(1)].decode("latin-1"))
        pieces.append(_decode_value(value, declared, at_end=match.end(1) == len(data)))
        end, decided = match.end(1), decided + 1
    # The rest: ASCII structure and values, or, past the limit, whatever is
    # left, in one charset for all. Latin-1 and UTF-8 with U+FFFD both keep
    # every ASCII byte a character of its own, so the structure is kept.
    rest = data[end:]
    pieces.append(rest.decode("utf-8", errors="replace") if _mostly_utf8(rest)
                  else rest.decode("latin-1"))
    return "".join(pieces)


# The most values _decode_values decides one by one, some 10 µs each: a
# 4 MB file could hold a million "[\xff]", 10 s of work. A real game has a
# few hundred values that are not ASCII.
_MOST_VALUES_DECIDED = 20_000


# One value's bytes, as sgf_syntax finds a value in text: after "[", up to
# the first "]" that no backslash escapes, or the end of a file cut short
# (its last byte perhaps a lone backslash).
_VALUE_BYTES = re.compile(rb"\[([^\\\]]*+(?:\\.[^\\\]]*+)*+\\?+)(?=\]|\Z)", re.DOTALL)


def _decode_value(value, declared, at_end=False):
    """The text of one property value's bytes (escapes still in), in the
    first of these that decodes it strictly and, where it is a guess, reads
    plausibly:

    1. the charset the file declares (``CA``), the file's own word;
    2. UTF-8: valid UTF-8 is hardly ever anything else, and it is what the
       rest of a mixed file is in;
    3. Latin-1, if each run of non-ASCII bytes touches an ASCII letter
       ("Müller", "Joséè": :func:`_looks_latin1`). First of the guesses
       because every East Asian codec reads those pairs as some rare
       character ("Jos殍" in GB18030, "Jos郵" in EUC-KR);
    4. EUC-KR, if it reads as Korean; then Shift-JIS, if it reads as
       Japanese (:func:`_looks_japanese`: kana); then GB18030, if it reads
       as Chinese. The strict and checkable ones first: GB18030 decodes
       nearly any bytes, and Korean text is valid GB18030 too. Big5 is not
       guessed (only read when declared): it has no check that tells a few
       of its characters from GB2312 or Latin-1 read as Big5;
    5. UTF-8 with U+FFFD for the bad bytes, if at least half of the
       non-ASCII bytes are valid UTF-8: a name cut in the middle of its
       last character ("柯\\ufffd");
    6. Latin-1, which decodes any bytes.

    A multibyte character whose second byte is ``]`` or ``\\`` (Shift-JIS
    "ソ" is ``\\x83\\\\``) would change where the value ends once decoded: a
    charset that does so is not taken for this value (:data:`_VALUE_TEXT`).
    """
    valid = _VALUE_TEXT_AT_END if at_end else _VALUE_TEXT
    if declared:
        text = _try_decode(value, declared)
        if text is not None and valid.fullmatch(text):
            return text
    text = _try_decode(value, "utf-8")
    if text is not None:  # "]" and "\\" are single bytes in UTF-8: no check
        return text
    if _looks_latin1(value):
        return value.decode("latin-1")
    for codec, plausible in (("cp949", _looks_korean), ("shift_jis", _looks_japanese),
                             ("gb18030", _looks_chinese)):
        text = _try_decode(value, codec)
        if text is not None and plausible(text) and valid.fullmatch(text):
            return text
    if _mostly_utf8(value, share=0.5):
        return value.decode("utf-8", errors="replace")
    return value.decode("latin-1")


# A value's text that ends where its bytes end: no "]" that no backslash
# escapes, no lone backslash at the end (it would escape the closing "]"),
# except in a file that ends there.
_VALUE_TEXT = re.compile(r"[^\\\]]*+(?:\\.[^\\\]]*+)*+", re.DOTALL)
_VALUE_TEXT_AT_END = re.compile(r"[^\\\]]*+(?:\\.[^\\\]]*+)*+\\?", re.DOTALL)


def _looks_latin1(value):
    """Whether the non-ASCII bytes of ``value`` look like Latin-1 accented
    letters in words: each run of them is at most 3 bytes of letters
    (``\\xc0``-``\\xff``, less × and ÷) with an ASCII letter just before or
    after ("Müller", "José", "Ångström"). Chinese, Korean or Japanese text
    runs for whole words of non-ASCII bytes, mostly between brackets,
    spaces, digits or punctuation ("9段", "张三")."""
    # Good runs deleted (by a regular expression, in C: a loop in Python
    # over the runs of a 4 MB value took a second), nothing else is left.
    return _LATIN1_IN_WORD.sub(b"", value).isascii()


# A run of 1 to 3 Latin-1 letters, the whole run, after or before an ASCII letter.
_LATIN1_IN_WORD = re.compile(rb"(?<![\x80-\xff])(?:(?<=[A-Za-z])[\xc0-\xd6\xd8-\xf6\xf8-\xff]{1,3}"
                             rb"|[\xc0-\xd6\xd8-\xf6\xf8-\xff]{1,3}(?=[A-Za-z]))(?![\x80-\xff])")


def _looks_japanese(text):
    """Whether text read as Shift-JIS is plausibly Japanese: nothing but
    ASCII, kana, kanji and full-width punctuation, and kana among them (a
    Japanese sentence or name is rarely without). Other bytes read as
    Shift-JIS give half-width katakana (``\\xa1``-``\\xdf`` are single
    characters in it) or kanji alone."""
    others = text.translate(_DROP_ASCII)
    return bool(_JAPANESE.fullmatch(others)) and _KANA.search(others) is not None


_JAPANESE = re.compile("[\u3000-\u30ff\u4e00-\u9fff\uff01-\uff5e]*")  # kana, kanji, full-width
_KANA = re.compile("[\u3041-\u30fa]")


_CHARSET_ALIASES = {"gb2312": "gb18030", "gbk": "gb18030", "euc_kr": "cp949"}
_CA_PATTERN = re.compile(rb"(?<![A-Z])CA\s*\[\s*([-\w.:]+)\s*\]")


def _declared_charset(data):
    match = _CA_PATTERN.search(data)
    if not match:
        return None
    try:
        name = codecs.lookup(match.group(1).decode("ascii")).name
    except LookupError:  # a charset Python does not know
        return None
    if not _reads_ascii_as_ascii(name):
        return None
    return _CHARSET_ALIASES.get(name.replace("-", "_"), name)


# Every printable ASCII character, SGF's punctuation and its escape
# included; backslashes as "\\" and "\u0041", which unicode_escape and
# raw_unicode_escape read as escapes.
_ASCII_PROBE = bytes(range(0x20, 0x7f)).replace(b"\\", b"") + b"\t\r\n\\\\ \\u0041"


@functools.lru_cache(maxsize=None)
def _reads_ascii_as_ascii(codec):
    """Whether ``codec`` is a text encoding that decodes ASCII bytes as the
    same characters, as every encoding an SGF file can be in does (its
    ``(;GM[1]`` is ASCII). Not so: bytes-to-bytes codecs (hex, zlib),
    rot13, UTF-16 and UTF-32, EBCDIC, punycode, unicode_escape..."""
    try:
        return _ASCII_PROBE.decode(codec) == _ASCII_PROBE.decode("ascii")
    except (LookupError, ValueError, TypeError):  # UnicodeError is a ValueError
        return False


def _try_decode(data, codec):
    try:
        text = data.decode(codec)
    except (LookupError, ValueError, TypeError):  # a codec may fail its own way
        return None
    return text.removeprefix("\ufeff")  # a byte-order mark before "("


def _mostly_utf8(data, share=0.8):
    """Whether at least ``share`` of the non-ASCII bytes of ``data`` belong
    to valid UTF-8 sequences (asked once strict UTF-8 has failed).

    Text in the other encodings fails this by far: Latin-1 letters stand
    alone between ASCII ones, where UTF-8 wants continuation bytes, and the
    byte pairs of GB2312 or EUC-KR form a valid UTF-8 sequence only now
    and then (about one character in eight). Why 80%: a Fox header has
    some 15 to 60 non-ASCII bytes, and one or two names cut in the middle
    of a character leave 1 to 4 bad ones ("藤泽里" cut, "유진" cut and two
    "段" are 15 good bytes and 3 bad, 83%); with random names, 99.8% of
    such headers pass at 80%, half at 95%. Random GB2312 or EUC-KR names
    of 1 to 12 characters pass it 1 time in 400, where strict UTF-8 (step
    2) already takes 1 in 50 of them. ``surrogateescape`` turns each byte
    that is not part of a valid sequence into one lone surrogate, which
    encoding back with ``errors="ignore"`` drops: the bytes lost are the
    bad ones, counted without a list of them (4 MB of Latin-1 would be
    4 million one-character strings, 300 MB).
    """
    non_ascii = len(data.translate(None, _ASCII_BYTES))
    if not non_ascii:
        return False
    text = data.decode("utf-8", errors="surrogateescape")
    invalid = len(data) - len(text.encode("utf-8", errors="ignore"))
    return non_ascii - invalid >= share * non_ascii


_ASCII_BYTES = bytes(range(0x80))
# str.translate deletes these: what is left of a text is its non-ASCII part.
_DROP_ASCII = dict.fromkeys(range(0x80))


# Syllables frequent in Korean names, chat and Go words. Chinese GB2312 text
# read as EUC-KR gives Hangul too, but a random mix of rare syllables and
# Hanja; Korean text is mostly these (or jamo such as "ㅋㅋ").
_COMMON_HANGUL = frozenset(
    "김이박최정강조윤장임한오서신권황안송류전홍고문양손배백허유남심노하곽성차주우구민진나지엄채원"
    "천방공현함변염여추도소석선설마길연위표명기반왕금옥육인맹제모탁국어은편용"
    "준영수호훈희숙혜경철태재동규상승환창중효미빈아름라다혁건범찬일열세돌"
    "가는을를의에로와과하요니까네죠습있없었했였겠게만면며해할합감사녕갑셨잘좋예그저리너것거좀더또"
    "많대큼부터처럼보께님씨바둑흑집판패계활단순포끝내원초프두뒀"
)


def _looks_chinese(text):
    """Whether text read as GB18030 is plausibly Chinese: at least 80% of its
    non-ASCII characters are in GB2312 (the 7,445 common characters and
    symbols). Latin-1 read as GB18030 gives rare GBK characters, since an
    accented letter followed by an ASCII letter is not a GB2312 pair. (Korean
    read as GB18030 passes this test: it is ruled out first.)"""
    others = text.translate(_DROP_ASCII)
    return len(others) > 0 and _in_gb2312(others) >= 0.8 * len(others)


def _in_gb2312(chars):
    """How many of ``chars`` (a str without ASCII) GB2312 has: each is two
    bytes in it, and encoding with ``errors="ignore"`` drops the others (in
    C: a character at a time in Python took seconds for a 4 MB file)."""
    return len(chars.encode("gb2312", errors="ignore")) // 2


def _looks_korean(text):
    """Whether text read as EUC-KR is plausibly Korean: nothing but ASCII,
    Hangul syllables and jamo, and at least 60% common syllables or jamo."""
    # Counted with str.translate and regular expressions, in C: a loop in
    # Python over the characters of a 4 MB file took seconds.
    others = text.translate(_DROP_ASCII)
    if not _HANGUL.fullmatch(others):
        return False
    jamo = len(others) - len(_JAMO.sub("", others))
    syllables = len(others) - jamo
    common = len(others) - len(others.translate(_DROP_COMMON_HANGUL))
    return syllables + jamo > 0 and common + jamo >= 0.6 * (syllables + jamo)


_HANGUL = re.compile("[\uac00-\ud7a3\u3130-\u318f]*")  # syllables and jamo
_JAMO = re.compile("[\u3130-\u318f]+")
_DROP_COMMON_HANGUL = dict.fromkeys(map(ord, _COMMON_HANGUL))


def parse_komi(text):
    """Komi from a ``KM`` value; None when the value is empty.

    Some servers write komi times 100 (``KM[650]`` for 6.5). The rule: an
    integer written without a decimal point, at least 50 in size and a
    multiple of 50 is divided by 100 -- real komi is a multiple of 0.5 and
    never that large, while ``KM[0]``, ``KM[6]`` or ``KM[-100.00]`` (a big
    reverse komi, which KGS allows and writes with decimals) are taken as
    written. :func:`to_sgf` always writes komi with a decimal point
    (``KM[-100.0]``, ``KM[150.0]``), so the files it writes read back
    exactly, whatever the komi.

    The value must be a finite decimal number in ASCII: ``KM[nan]``,
    ``KM[inf]``, ``KM[1e999]``, ``KM[1_0]`` or ``KM[٦]`` (an Arabic-Indic
    6, which float() accepts) raise ValueError, as anything else that is
    not a number does; and a komi, as GTP and every Board take it
    (:func:`~mockgo.go.board.check_komi`: at most
    :data:`~mockgo.go.board.MAX_KOMI` either way): ``KM[1e20]`` raises
    :class:`OutOfRange`, a ValueError.
    """
    text = text.strip().replace(",", ".")  # "6,5" in some European files
    if not text:
        return None
    if not _DECIMAL.fullmatch(text):
        raise ValueError(f"{text!r} is not a decimal number")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is too large a number")
    if re.fullmatch(r"[+-]?[0-9]+", text) and abs(value) >= 50 and value % 50 == 0:
        value /= 100
    if abs(value) > MAX_KOMI:
        raise OutOfRange(f"is not a komi (at most {MAX_KOMI} either way)")
    return value


class OutOfRange(ValueError):
    """A number, but not one the property can hold (its message says why,
    after the property: ``KM[1e20] is not a komi...``)."""


# A decimal number as SGF (and repr() of a float) writes it, in ASCII only.
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


_RESULT_REASONS = {"R": "resign", "RESIGN": "resign", "T": "time", "TIME": "time",
                   "F": "forfeit", "FORFEIT": "forfeit"}


def parse_result(text):
    """``(winner, margin, reason)`` from an ``RE`` value; unknown parts are None.

    ``"B+3.5"`` is (BLACK, 3.5, "score"), ``"W+R"`` or ``"W+Resign"`` is
    (WHITE, None, "resign"), ``"0"``, ``"Draw"`` or ``"Jigo"`` is (EMPTY, 0.0,
    "score"); ``"Void"``, ``"?"`` or anything unexpected is (None, None, None).
    """
    text = (text or "").strip()
    if text.upper() in ("0", "DRAW", "JIGO", "D"):
        return EMPTY, 0.0, "score"
    match = re.fullmatch(r"([BW])\+(.*)", text, re.IGNORECASE)
    if not match:
        return None, None, None
    winner = SGF_COLORS[match.group(1).upper()]
    how = match.group(2).strip()
    if how.upper() in _RESULT_REASONS:
        return winner, None, _RESULT_REASONS[how.upper()]
    try:
        return winner, float(how), "score"
    except ValueError:  # "B+" (margin not given) or something unexpected
        return winner, None, None


def read_sgf(data, source="<string>"):
    """A :class:`GameRecord` from the text (``str``) or bytes of an SGF file.

    Only the first game of a collection and the main line of its tree (the
    first child at each branch) are read; the games after the first are not
    even parsed. Raises :class:`SGFError` when the file does not parse or
    makes no sense as a game of Go, and nothing else whatever the input.
    """
    text = data if isinstance(data, str) else decode_sgf_bytes(data)
    return record_from_nodes(sgf_syntax.main_line(parse_first_game(text, source)), source, text)


def parse_first_game(text, source):
    """The root :class:`~mockgo.data.sgf_syntax.SyntaxNode` of the first
    game tree of ``text``; SGFError (``"does not parse"``, with the line and
    column) for text that is not SGF."""
    if "(" not in text:
        raise SGFError(source, "does not parse", "no game tree")
    try:
        return sgf_syntax.parse_first_game(text)
    except sgf_syntax.SGFTooLargeError as error:
        raise SGFError(source, "too large", str(error)) from None
    except sgf_syntax.SGFSyntaxError as error:
        raise SGFError(source, "does not parse", str(error)) from None


def record_from_nodes(nodes, source, text=None):
    """The :class:`GameRecord` of a line of play: ``nodes``, SyntaxNodes
    from the root down (the main line for :func:`read_sgf`, any line of the
    tree for :mod:`mockgo.data.gametree`). ``text``: the text they were
    read from, so that an error caused by one node names its line."""
    root = nodes[0].properties
    size = _board_size(root, source)
    record = GameRecord(size=size, source=source, **_game_info(root, source))
    _check_handicap(record)
    _read_nodes(record, nodes, source, text)
    try:
        record.board()  # set-up stones on the same point, or without liberties
    except ValueError as error:
        raise SGFError(source, "bad set-up stones", str(error)) from None
    return record


def load_sgf(path):
    """:func:`read_sgf` of a file on disk.

    Raises OSError if the file cannot be opened, and SGFError (naming the
    file) for what is not a regular file -- a FIFO would wait for a writer
    forever, ``/dev/zero`` never ends -- and for a file larger than
    :data:`MAX_SGF_BYTES`, which is refused without being read whole.
    """
    return read_sgf(_read_sgf_file(path), source=str(path))


def _read_sgf_file(path):
    # O_NONBLOCK: opening a FIFO does not wait for a writer (the check below
    # then refuses it); it changes nothing for a regular file.
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                         | getattr(os, "O_BINARY", 0))
    try:
        mode = os.fstat(descriptor).st_mode
    except BaseException:
        os.close(descriptor)
        raise
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        raise SGFError(str(path), "not a regular file", _file_kind(mode))
    with open(descriptor, "rb") as file:
        data = file.read(MAX_SGF_BYTES + 1)
    if len(data) > MAX_SGF_BYTES:
        raise SGFError(str(path), "file too large",
                       f"more than {MAX_SGF_BYTES:,} bytes ({MAX_SGF_BYTES / 2**20:g} MiB), "
                       "the limit for one SGF file")
    return data


def _file_kind(mode):
    kinds = [(stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISSOCK, "a socket")]
    return next((kind for test, kind in kinds if test(mode)), "a special file")


def _value(props, name):
    """The first value of a property, stripped; None if absent or empty."""
    values = props.get(name)
    if not values:
        return None
    return values[0].strip() or None


def _board_size(root, source):
    text = _value(root, "SZ")
    if text is None:
        return 19
    shown = _clip(text)
    width, colon, height = (part.strip() for part in text.partition(":"))  # FF[4] allows "19:13"
    size, rows = _natural(width), _natural(height) if colon else None
    if size is None or (colon and rows is None):
        raise SGFError(source, "bad board size", f"SZ[{shown}] is not a number")
    if colon and rows != size:
        raise SGFError(source, "bad board size", f"SZ[{shown}]: only square boards")
    if not 2 <= size <= MAX_SIZE:
        raise SGFError(source, "bad board size", f"SZ[{shown}] is not in 2..{MAX_SIZE}")
    return size


def _natural(text):
    """A whole number written in ASCII digits, or None if ``text`` is not one.

    Not int(): it also takes "1_9", " 19 " and other scripts' digits ("١٩"
    is 19, and so is "¹⁹" to str.isdigit()), and raises its own ValueError
    past 4,300 digits. Numbers of more than 18 digits come back as 10**18,
    larger than any size or handicap, as all the callers need to know.
    """
    if not re.fullmatch(r"[0-9]+", text):
        return None
    digits = text.lstrip("0") or "0"
    return int(digits) if len(digits) <= 18 else 10**18


def _clip(text, length=40):
    """A property value short enough for an error message."""
    return text if len(text) <= length else text[:length] + f"... ({len(text)} characters)"


def _game_info(root, source):
    """The GameRecord fields that come from root properties."""
    game = _value(root, "GM")
    if game not in (None, "1"):
        raise SGFError(source, "not a game of Go", f"GM[{game}]")
    info = {
        "black": _value(root, "PB"), "white": _value(root, "PW"),
        "black_rank": _value(root, "BR"), "white_rank": _value(root, "WR"),
        "date": _value(root, "DT"), "rules": _value(root, "RU"),
        "result": _value(root, "RE"),
    }
    info["winner"], info["margin"], info["result_reason"] = parse_result(info["result"])
    # A missing KM is taken as no komi, as KGS takes it.
    komi = _number(root, "KM", parse_komi, source)
    info["komi"] = 0.0 if komi is None else komi  # not "or": -0.0 stays -0.0
    info["handicap"] = _number(root, "HA", _handicap, source) or 0
    return info


def _handicap(text):
    stones = _natural(text)
    if stones is None or stones > MAX_SIZE * MAX_SIZE:
        raise ValueError(f"{text!r} is not a number of stones")
    return stones


def _check_handicap(record):
    """SGFError for more handicap stones than the board takes
    (:func:`~mockgo.go.board.max_handicap`: 9 on 19x19). ``HA[0]`` and
    ``HA[1]`` both mean no handicap stone and are read as written (FF[4]
    wants 2 or more, but files from some servers write 1 for a game
    without komi)."""
    most = max_handicap(record.size)
    if record.handicap > max(1, most):
        raise SGFError(record.source, "bad property value",
                       f"HA[{record.handicap}]: at most {most} handicap stones on a "
                       f"{record.size}x{record.size} board")


def _number(props, name, convert, source):
    text = _value(props, name)
    if text is None:
        return None
    try:
        return convert(text)
    except OutOfRange as error:
        raise SGFError(source, "bad property value", f"{name}[{_clip(text)}] {error}") from None
    except ValueError:
        raise SGFError(source, "bad property value",
                       f"{name}[{_clip(text)}] is not a number") from None


def _read_nodes(record, nodes, source, text=None):
    """Fill in set-up stones, moves and comments from a line of nodes."""
    # What is gathered while reading, so that each node costs what it holds,
    # not what came before it: the set-up stones as dicts (point -> None, in
    # order), and the comments of nodes without a move, as lists of parts
    # by the move they belong to (-1: the game), joined at the end.
    reading = {"black": dict.fromkeys(record.setup_black),
               "white": dict.fromkeys(record.setup_white), "listed": 0,
               "notes": collections.defaultdict(list)}
    for number, node in enumerate(nodes):
        try:
            _read_node(record, node.properties, number, source, reading)
            if len(record.moves) > MAX_MOVES:
                raise SGFError(source, "too long", f"more than {MAX_MOVES:,} moves in a line "
                                                   f"of play, the most a game may have")
        except SGFError as error:
            if text is None or node.offset < 0:
                raise
            line, _ = sgf_syntax.line_and_column(text, node.offset)
            detail = f"{error.detail} (line {line})" if error.detail else f"line {line}"
            raise SGFError(source, error.reason, detail) from None
    record.setup_black, record.setup_white = list(reading["black"]), list(reading["white"])
    for index, parts in reading["notes"].items():
        first = record.game_comment if index < 0 else record.comments[index]
        joined = "\n\n".join(([] if first is None else [first]) + parts)
        if index < 0:
            record.game_comment = joined
        else:
            record.comments[index] = joined


def _read_node(record, props, number, source, reading):
    if not _SETUP_PROPERTIES.isdisjoint(props):
        if record.moves:
            # Setting up stones mid-game is an edited diagram, not a game.
            raise SGFError(source, "set-up stones mid-game", f"node {number}")
        _apply_setup(reading, props, record.size, source)
    if "PL" in props and not record.moves:
        player = (_value(props, "PL") or "").upper()[:1]
        if player not in SGF_COLORS:
            raise SGFError(source, "bad property value", f"PL[{_value(props, 'PL')}]")
        record.to_play = SGF_COLORS[player]
    move = node_move(props, record.size, source, len(record.moves) + 1)
    comment = _value(props, "C")
    if move is not None:
        record.moves.append(move)
        record.comments.append(comment)
    elif comment is not None:
        # A comment on a node without a move belongs to the move before it,
        # or to the whole game if no move came yet.
        reading["notes"][len(record.moves) - 1].append(comment)


_SETUP_PROPERTIES = frozenset(("AB", "AW", "AE"))


def _apply_setup(setup, props, size, source):
    """Add a node's AB, AW and AE to ``setup`` (:func:`_read_nodes`' ``reading``),
    counting the points listed against the limit of a line
    (:data:`SETUP_BOARDS`) before any rectangle is expanded."""
    for name in ("AE", "AB", "AW"):
        setup["listed"] += count_setup_points(props.get(name, ()), size, source)
    limit = SETUP_BOARDS * size * size
    if setup["listed"] > limit:
        raise SGFError(source, "bad set-up stones",
                       f"more than {limit:,} set-up points ({SETUP_BOARDS} times the board's "
                       f"{size * size}) listed in AB, AW and AE")
    black, white = setup["black"], setup["white"]
    for point in setup_points(props.get("AE", ()), size, source):
        black.pop(point, None)
        white.pop(point, None)
    # Points listed twice (AB[aa][aa:bb]) count once, in the order first listed.
    black.update(dict.fromkeys(setup_points(props.get("AB", ()), size, source)))
    white.update(dict.fromkeys(setup_points(props.get("AW", ()), size, source)))


def _rectangles(values, size, source):
    """``(top, left, bottom, right)`` (rows and columns, inclusive) of each
    set-up value: a point ("dd") or an FF[4] rectangle ("aa:cc");
    SGFError for a bad one."""
    for value in values:
        corners = value.strip().split(":")
        try:
            flat = [coords.from_sgf(corner, size) for corner in corners]
        except ValueError as error:
            raise SGFError(source, "bad set-up stones", str(error)) from None
        if len(corners) > 2 or size * size in flat:
            raise SGFError(source, "bad set-up stones", f"[{_clip(value)}]")
        (top, left), (bottom, right) = divmod(flat[0], size), divmod(flat[-1], size)
        yield min(top, bottom), min(left, right), max(top, bottom), max(left, right)


def count_setup_points(values, size, source):
    """How many points the set-up values list (rectangles counted by their
    area, without expanding them; duplicates counted); SGFError, before
    counting further, when one is bad or when they list more than the board
    has points (``AB[aa:ss][aa:ss]`` lists the board twice: no position
    needs that)."""
    total = 0
    for top, left, bottom, right in _rectangles(values, size, source):
        total += (bottom - top + 1) * (right - left + 1)
        if total > size * size:
            raise SGFError(source, "bad set-up stones",
                           f"more than {size * size} set-up points (the board's) in one property")
    return total


def setup_points(values, size, source):
    """Flat points from set-up values (``AB``, ``AW``, ``AE``), expanding
    FF[4] rectangles ("aa:cc"); SGFError for a bad one, and for values that
    list more points than the board has (:func:`count_setup_points`)."""
    count_setup_points(values, size, source)  # first: no expanding of a million rectangles
    return [row * size + col for top, left, bottom, right in _rectangles(values, size, source)
            for row in range(top, bottom + 1) for col in range(left, right + 1)]


def node_move(props, size, source, number):
    """``(color, flat move)`` of a node's properties ``props``, or None if
    it has no move; SGFError (naming move ``number``) for a bad one."""
    black, white = props.get("B"), props.get("W")
    if black is None and white is None:
        return None
    if black is not None and white is not None:
        raise SGFError(source, "B and W in one node", f"at move {number}")
    letter, values = ("B", black) if black is not None else ("W", white)
    point = values[0].strip() if len(values) == 1 else None
    move = _sgf_moves(size).get(point)
    if move is not None:
        return SGF_COLORS[letter], move
    if point is None:
        raise SGFError(source, "bad move", f"move {number}: {letter} with {len(values)} values")
    # Not a move of this board: coords.from_sgf says why.
    letters = len(point) == 2 and all(char in coords.SGF_LETTERS for char in point)
    try:
        coords.from_sgf(point, size)
    except ValueError as error:
        raise SGFError(source, "move off the board" if letters else "bad move",
                       f"move {number} {letter}[{point}]: {error}") from None
    raise AssertionError(f"_sgf_moves({size}) lacks {point!r}")


@functools.lru_cache(maxsize=None)
def _sgf_moves(size):
    """SGF point to flat move for every move on the board, passes included:
    a dict lookup is the fast path for the 200-odd moves of every game."""
    moves = {coords.to_sgf(move, size): move for move in range(size * size + 1)}
    if size <= 19:
        moves["tt"] = size * size  # the FF[3] way to write a pass
    return moves


# ------------------------------------------------------------- replaying


def replay(record, superko=None):
    """The position before each move of the main line, as ``(board, color,
    move)``.

    The same Board object is advanced in place after each step (copying 300
    positions per game would cost more than the replay): a caller that keeps
    positions must keep ``board.copy()`` or the features it computes. Once
    the generator is exhausted the board holds the final position.

    Moves are played as the record gives them, also two of one colour in a
    row (KGS has those in handicap games). A move that the rules forbid
    stops the replay before it is yielded: the positions before it stay
    good, ``record.problem`` says what went wrong, and an SGFWarning is
    issued; nothing is raised. ``superko`` defaults to the record's rules
    (:func:`rules_use_superko`).
    """
    record.problem = None
    board = record.board(superko)
    for number, (color, move) in enumerate(record.moves, start=1):
        reason = board.illegal_reason(move, color)
        if reason:
            record.problem = (f"move {number} ({COLOR_LETTERS[color]} "
                              f"{coords.to_gtp(move, record.size)}) is illegal: "
                              f"{ILLEGAL_REASONS[reason]}")
            warnings.warn(f"{record.source}: {record.problem}", SGFWarning, stacklevel=2)
            return
        yield board, color, move
        board.play(move, color)


def final_board(record, superko=None):
    """The position after the last move that could be replayed."""
    board = None
    for board, _, _ in replay(record, superko):
        pass
    # replay() leaves its board at the end; a game without moves has none.
    return board if board is not None else record.board(superko)


# ------------------------------------------------------ reading many files


@dataclasses.dataclass
class LoadSummary:
    """What :func:`iter_sgf_files` read and what it skipped, and why."""

    games: int = 0
    skipped: collections.Counter = dataclasses.field(default_factory=collections.Counter)

    def __str__(self):
        line = f"{self.games} games read, {sum(self.skipped.values())} skipped"
        if self.skipped:
            reasons = ", ".join(f"{count} {reason}" for reason, count in
                                sorted(self.skipped.items(), key=lambda item: (-item[1], item[0])))
            line += f" ({reasons})"
        return line


def iter_sgf_files(paths, summary=None, keep_going=False):
    """The games of many SGF files, one :class:`GameRecord` at a time.

    ``paths`` (one path or a list) may name ``.sgf`` files, folders (all
    ``*.sgf`` below them, sorted by path) and archives (``.tar.gz``,
    ``.tar.bz2``, ``.zip``...; read in memory, members in the order the
    archive stores them). A file that cannot be read is skipped with an
    SGFWarning naming it (``archive.tar.gz:member.sgf`` for members) and
    the reason, and counted in ``summary`` (a :class:`LoadSummary`, pass
    one in to see it). Games are yielded as read; nothing is replayed.

    An archive that breaks before its end (cut short, damaged) raises
    :class:`BrokenArchiveError` naming it, after the games before the
    break: read to the break and no further, a cut archive would pass for
    a smaller whole one. ``keep_going=True`` skips it instead, with an
    SGFWarning, counted as an "unreadable file or archive".
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    summary = LoadSummary() if summary is None else summary
    for path in map(Path, paths):
        try:
            for source, data in sgf_sources(path):
                if isinstance(data, OSError):  # one file of a folder
                    _skip(summary, source, "unreadable file or archive", str(data))
                    continue
                record = _read_or_skip(data, source, summary)
                if record is not None:
                    summary.games += 1
                    yield record
        except BrokenArchiveError as error:
            if not keep_going:
                raise
            _skip(summary, str(path), "unreadable file or archive", str(error))
        except OSError as error:
            # A missing file: the games read so far stay.
            _skip(summary, str(path), "unreadable file or archive", str(error))


def _read_or_skip(data, source, summary):
    try:
        return read_sgf(data, source)
    except SGFError as error:
        _skip(summary, source, error.reason, str(error).removeprefix(f"{source}: "))
    except Exception as error:  # a bug must not end a day-long job either
        _skip(summary, source, "unexpected error", repr(error))
    return None


def _skip(summary, source, reason, detail):
    summary.skipped[reason] += 1
    warnings.warn(f"{source}: skipped: {detail}", SGFWarning, stacklevel=3)


def sgf_sources(path):
    """``(source name, bytes)`` for each SGF file that ``path`` (an ``.sgf``
    file, a folder or an archive) stands for, in :func:`iter_sgf_files`'s
    order, for callers that parse in worker processes.

    A file of a folder that cannot be read comes as ``(source, OSError)``;
    a missing path raises OSError, and an archive that cannot be read (or
    breaks halfway) :class:`BrokenArchiveError` (an OSError), after the
    members read before the break.
    """
    name = path.name.lower()
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix.lower() == ".sgf" and p.is_file())
        for file in files:
            yield str(file), _read_bytes(file)
    elif name.endswith(".zip"):
        yield from _zip_members(path)
    elif name.endswith(ARCHIVE_SUFFIXES):
        yield from _tar_members(path)
    elif name.endswith(".sgf"):
        yield str(path), path.read_bytes()
    elif not path.exists():
        raise FileNotFoundError(f"no such file or folder: {path}")
    else:
        raise OSError(f"not an SGF file, a folder or an archive: {path}")


def _read_bytes(file):
    """The bytes of a file, or the OSError that reading it raised: one
    unreadable file must not end the reading of its folder."""
    try:
        return file.read_bytes()
    except OSError as error:
        return error


# What a damaged archive raises, besides OSError, in tarfile, gzip, bz2, zipfile.
_ARCHIVE_ERRORS = (tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error,
                   gzip.BadGzipFile)


def _tar_members(path):
    # Streaming mode ("r|*") reads the archive once, front to back, which is
    # all a .tar.gz allows cheaply; the members are never written to disk.
    # A .tar.gz cut short ends in EOFError from gzip (the stream has no end
    # marker) or a ReadError from tarfile: BrokenArchiveError either way.
    members = 0
    try:
        with tarfile.open(path, "r|*") as archive:
            for member in archive:
                if member.isfile() and member.name.lower().endswith(".sgf"):
                    data = archive.extractfile(member).read()
                    if len(data) != member.size:  # a plain .tar cut inside a member
                        raise tarfile.ReadError(f"{member.name} is cut short")
                    members += 1
                    yield f"{path}:{member.name}", data
    except _ARCHIVE_ERRORS as error:
        raise BrokenArchiveError(path, members, error) from error


def _zip_members(path):
    members = 0
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if not info.is_dir() and info.filename.lower().endswith(".sgf"):
                    data = archive.read(info)
                    members += 1
                    yield f"{path}:{info.filename}", data
    except _ARCHIVE_ERRORS as error:
        raise BrokenArchiveError(path, members, error) from error


# --------------------------------------------------------------- writing


sgf_escape = sgf_syntax.escape  # a property value as SGF writes it


def format_komi(komi):
    """A ``KM`` value that :func:`parse_komi` reads back as exactly ``komi``:
    the shortest repr of the float, which always has a decimal point or an
    exponent (``"6.5"``, ``"0.0"``, ``"-100.0"``, ``"0.3333333333333333"``).
    ValueError for what is no komi (:func:`~mockgo.go.board.check_komi`):
    a file that says ``KM[1e+16]`` could not be read back."""
    komi = float(komi)
    if not math.isfinite(komi):
        raise ValueError(f"komi {komi} is not a finite number")
    return repr(check_komi(komi))


def format_result(winner, margin=None, reason=None):
    """An ``RE`` value: ``"B+3.5"``, ``"W+R"``, ``"0"``; None if unknown."""
    if winner is None:
        return None
    if winner == EMPTY:
        return "0"
    how = {"resign": "R", "time": "T", "forfeit": "F"}.get(reason, "")
    if not how and margin is not None:
        how = f"{margin:g}"
    return f"{COLOR_LETTERS[winner]}+{how}"


def to_sgf(record):
    """The record as SGF text (FF[4], UTF-8), main line only.

    :func:`read_sgf` reads it back to an equal record. Komi is written
    with a decimal point (``KM[7.5]``, ``KM[0.0]``, ``KM[-100.0]``) and
    all its digits, so that the x100 rule of :func:`parse_komi` never takes
    it for ``KM[650]``; a komi that is not finite raises ValueError.
    """
    size = record.size
    root = [("GM", "1"), ("FF", "4"), ("CA", "UTF-8"), ("AP", "mockgo"),
            ("SZ", str(size)), ("KM", format_komi(record.komi)), ("RU", record.rules),
            ("PB", record.black), ("PW", record.white),
            ("BR", record.black_rank), ("WR", record.white_rank), ("DT", record.date),
            ("RE", record.result if record.result is not None
             else format_result(record.winner, record.margin, record.result_reason))]
    text = ";" + "".join(f"{name}[{sgf_escape(value)}]" for name, value in root
                         if value is not None)
    if record.handicap:
        text += f"HA[{record.handicap}]"
    for name, points in (("AB", record.setup_black), ("AW", record.setup_white)):
        if points:
            text += name + "".join(f"[{coords.to_sgf(p, size)}]" for p in points)
    if record.to_play is not None:
        text += f"PL[{COLOR_LETTERS[record.to_play]}]"
    if record.game_comment:
        text += f"C[{sgf_escape(record.game_comment)}]"
    lines = [text]
    # Comments may lag behind moves appended to a record after it was made.
    comments = record.comments + [None] * (len(record.moves) - len(record.comments))
    nodes = [_move_node(color, move, comment, size)
             for (color, move), comment in zip(record.moves, comments)]
    for start in range(0, len(nodes), 10):  # ten moves a line, for people reading it
        lines.append("".join(nodes[start:start + 10]))
    return "(" + "\n".join(lines) + ")\n"


def _move_node(color, move, comment, size):
    node = f";{COLOR_LETTERS[color]}[{coords.to_sgf(move, size)}]"
    return node + (f"C[{sgf_escape(comment)}]" if comment else "")


def save_sgf(record, path):
    """Write the record to ``path`` atomically: a job killed while writing
    leaves the old file or the new one, never half a game."""
    atomic_write_text(path, to_sgf(record))


def record_from_board(board, black="Black", white="White", rules="Chinese",
                      comments=None, result=None, date=None, start=None):
    """A GameRecord of the game played on ``board`` (its moves history), so
    self-play can save its games.

    ``result`` defaults to ``board.result()``, ``date`` to today. Set-up
    stones (handicap) are found on the board (stones that no move put
    there); if some of them were captured, pass ``start``, the Board as it
    was before the first move.
    """
    origin = start if start is not None else board
    setup = (origin.stones != EMPTY) & (origin.played_at < 0)
    setup_black = [int(p) for p in setup.nonzero()[0] if origin.stones[p] == BLACK]
    setup_white = [int(p) for p in setup.nonzero()[0] if origin.stones[p] == WHITE]
    result = board.result() if result is None else result
    winner, margin, reason = parse_result(result)
    # Black stones alone are a handicap, up to as many as a board takes
    # (GTP's set_free_handicap allows more): more is a set-up position,
    # written without HA, which would make the file unreadable.
    handicap = len(setup_black) if setup_black and not setup_white else 0
    record = GameRecord(
        size=board.size, komi=board.komi,
        handicap=handicap if handicap <= max(1, max_handicap(board.size)) else 0,
        setup_black=setup_black, setup_white=setup_white,
        black=black, white=white, rules=rules,
        date=date or datetime.date.today().isoformat(),
        result=result, winner=winner, margin=margin, result_reason=reason,
        moves=[(int(color), int(move)) for color, move in board.history],
        comments=list(comments or []))
    first = board.history[0][0] if board.history else origin.to_play
    if first != record.first_color():
        record.to_play = first
    _check_same_game(record, board)
    return record


def _check_same_game(record, board):
    # Captured set-up stones may leave no trace in the final position, but
    # they do in the count of captures.
    replayed = final_board(record, superko=board.superko)
    if record.problem or replayed.captures != board.captures \
            or not (replayed.stones == board.stones).all():
        raise ValueError("replaying the history does not give the board's position: "
                         "set-up stones were captured? pass start=")
