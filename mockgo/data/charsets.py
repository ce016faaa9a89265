"""Text from the bytes of an SGF file, whatever its charset.

Real SGF files come in many encodings: UTF-8 (what KGS writes), the charset
a ``CA[...]`` property names, legacy East Asian ones (EUC-KR, GB18030,
Shift-JIS) that nothing declares, and files that mix them value by value
(Fox server records). :func:`decode_sgf_bytes` reads them all and never
fails; :func:`mockgo.data.sgf_reader.read_sgf` and
:func:`mockgo.data.gametree.read_tree` call it on bytes.
"""

import codecs
import functools
import re
import unicodedata


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
    2. UTF-8 (what KGS writes), unless a value of it mixes scripts
       (``_mixes_scripts``): then each value is decoded on its own, as
       in a mix (below), since one name in GB2312 can be valid UTF-8 by
       chance while the rest of the file is UTF-8;
    3. EUC-KR (CP949), if the text reads as Korean (``_looks_korean``),
       then GB18030, if it reads as Chinese (``_looks_chinese``) --
       unless most of the non-ASCII bytes are UTF-8 (``_mostly_utf8``),
       which says the file is a UTF-8 one with a few stray bytes.

    A file that none of these reads is a mix: UTF-8 names and ranks with a
    comment pasted in from a GB18030 page, or a name cut in the middle of a
    character (Fox server records do both). Read as one text it could only
    fall back to Latin-1, and "9段" would come out "9æ®µ". So its
    structure is split on the bytes, which needs no charset (every byte of
    ``(;[]\\`` is ASCII in all of them), and each property value is decoded
    on its own by ``_decode_value``; see there for the order.

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
    if text is not None and not _mixes_scripts(text):
        return text
    if text is not None:  # valid UTF-8, but a value in it may be a legacy charset's bytes
        return _decode_values(data, declared)
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
       rest of a mixed file is in; unless its two-byte characters mix
       scripts (``_mixes_scripts``: "Ⱥ׳", Latin and Hebrew, is the
       Chinese name "群壮" in GB2312, whose byte pairs happen to be valid
       UTF-8) and the value reads as Chinese in GB18030;
    3. Latin-1, if each run of non-ASCII bytes touches an ASCII letter
       ("Müller", "Joséè": ``_looks_latin1``). First of the guesses
       because every East Asian codec reads those pairs as some rare
       character ("Jos殍" in GB18030, "Jos郵" in EUC-KR);
    4. EUC-KR, if it reads as Korean; then Shift-JIS, if it reads as
       Japanese (``_looks_japanese``: kana); then GB18030, if it reads
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
    charset that does so is not taken for this value (``_VALUE_TEXT``).
    """
    valid = _VALUE_TEXT_AT_END if at_end else _VALUE_TEXT
    if declared:
        text = _try_decode(value, declared)
        if text is not None and valid.fullmatch(text):
            return text
    text = _try_decode(value, "utf-8")
    if text is not None and not _mixes_scripts(text):  # "]", "\\": one byte in UTF-8
        return text
    if text is not None:  # a GB2312 name can be valid UTF-8 by chance, in mixed scripts
        chinese = _try_decode(value, "gb18030")
        if chinese is not None and _looks_chinese(chinese) and valid.fullmatch(chinese):
            return chinese
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


def _mixes_scripts(text):
    """Whether a word of ``text`` is no word anyone writes, among its
    two-byte UTF-8 characters (U+0080 to U+07FF: accented Latin letters,
    Greek, Cyrillic, Armenian, Hebrew, Arabic...), in a run of them with no
    space or ASCII between: a letter of one script beside a letter of
    another, a phonetic (IPA) letter or a Latin-1 symbol among letters, or a
    combining mark with no letter before it. A real word keeps to one
    script ("Müller", "Иван", "Ελένη"); the byte pairs of a GB2312 or EUC-KR
    name that happen to be valid UTF-8 land all over that range ("Ⱥ׳",
    "ǹǯӦ", "ʧʩ", "δ¢")."""
    for match in _TWO_BYTE_RUN.finditer(text):
        previous = None
        for char in match.group():
            script = _script_of(ord(char))
            if script in _NOT_IN_WORDS or (script == "combining" and previous is None):
                return True
            if script != "combining":
                if previous is not None and script != previous:
                    return True
                previous = script
    return False


# Runs of two-byte UTF-8 characters (no ASCII, no space between them).
_TWO_BYTE_RUN = re.compile("[\u0080-\u07ff]{2,}")
# The scripts of that range, by their first code point.
_SCRIPTS = ((0x0080, "symbol"), (0x00c0, "latin"), (0x0250, "phonetic"), (0x0300, "combining"),
            (0x0370, "greek"), (0x0400, "cyrillic"), (0x0460, "old cyrillic"),
            (0x048a, "cyrillic"), (0x0500, "old cyrillic"), (0x0530, "armenian"),
            (0x0590, "hebrew"), (0x0600, "arabic"), (0x0700, "syriac"), (0x0750, "arabic"),
            (0x0780, "thaana"), (0x07c0, "nko"))
# No name or word of today is written with these (Church Slavonic's letters
# and the Cyrillic Supplement's rare ones among them), nor with a code
# point Unicode leaves unassigned.
_NOT_IN_WORDS = {"symbol", "phonetic", "old cyrillic", "unassigned"}


def _script_of(code):
    """The script (of ``_SCRIPTS``) of a two-byte character's code point
    (Latin-1's × and ÷ are symbols; a code point not assigned is
    ``"unassigned"``)."""
    if unicodedata.category(chr(code)) == "Cn":
        return "unassigned"
    script = None
    for start, name in _SCRIPTS:
        if code < start:
            break
        script = name
    return "symbol" if code in (0x00d7, 0x00f7) else script


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
