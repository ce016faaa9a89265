"""The Go Text Protocol's words, as both sides of it read them: how a raw
input line is cleaned (control characters, comments, tabs) and split, the
numbers the specification allows, and the failure that becomes a ``?``
answer. :mod:`mockgo.gtp.server` answers with these; the GTP 2
specification is the reference for every rule here.
"""

import re

PROTOCOL_VERSION = "2"
MIN_SIZE = 2
MAX_INT = 2**31 - 1  # the largest GTP int
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # control characters but HT and LF
DIGITS = re.compile(r"[0-9]+")
FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)")


# What a command returns when its answer already went out line by line (an
# analysis, printed while the search runs): the server only ends it.
STREAMED = object()


class GTPFailure(Exception):
    """A command failed: the engine answers ``? message``."""


def preprocess(line):
    """A raw input line cleaned as the GTP specification says (control
    characters, comments, tabs); an empty string means: ignore the line."""
    line = _CONTROL.sub("", line)
    line = line.split("#", 1)[0]
    return line.replace("\t", " ").strip(" \n")


def words_of(line):
    """The words of a preprocessed line: split at spaces only (str.split()
    would also split at no-break and other Unicode spaces)."""
    return [word for word in line.split(" ") if word]

