"""Download the KGS game archives of strong players into data/kgs/.

The supervised-learning notebooks train on the KGS games of 6-dan and stronger
players that https://u-go.net/gamerecords/ publishes as one archive per year
(``KGS-YYYY-19-N-.tar.gz``, before 2016) or per month
(``KGS-YYYY_MM-19-N-.tar.gz``, since 2016), N being the number of games in it.
This module reads that page (or a mirror of it), picks archives and fetches
them; ``make data`` and ``bash data/download.sh`` run it::

    python -m mockgo.data.download --list                 # what would be fetched
    python -m mockgo.data.download --games 10000          # oldest archives up to 10,000 games
    python -m mockgo.data.download --years 2001,2003-2006 --dest /tmp/kgs
    python -m mockgo.data.download --collection 4d --archives 1   # the 4d+ games, into data/kgs4d/

Collections: u-go.net publishes two. The default, ``6d``, is the one above,
what the notebooks train on. ``--collection 4d`` fetches the far larger 4d+
collection (games with a player 4d or stronger; https://u-go.net/gamerecords-4d/,
``KGS4d-YYYY-19-N-.tar.gz``) into ``data/kgs4d/``, with its own mirror
variable (``$MOCKGO_KGS4D_MIRROR``, else ``../shared/data/kgs4d``), the same
selection, verification and resumption. Each collection reads only its own
archive names, so neither folder picks up the other's files.

Where from: ``--mirror``, else ``$MOCKGO_KGS_MIRROR``, else ``../shared/data/kgs``
beside the repository when that folder exists, else u-go.net itself. A mirror is
either a plain folder holding archives under their u-go.net names, or an
http(s)/file URL of a page in the u-go.net format (the URL itself, or the
``index.html`` in it). A mirror's archives are expected beside its page: a link
that points to another host (as the dl.u-go.net links of a copied page do) is
taken to mean the file of the same name next to the page.

Which: all archives, oldest first, so that a selection never changes when
u-go.net adds a month; ``--years`` keeps some years, then ``--archives K`` takes
the first K or ``--games N`` the first archives that hold at least N games.

Safety: an archive is written to ``NAME.part`` in the destination, then checked
to be a complete tar.gz (every member and the gzip trailer are read; a
truncated file raises) and only then renamed to its final name, so a final name
never holds a partial file. An archive already there is not fetched again when
its size matches the source's (or, with ``--verify``, when it reads completely);
a ``.part`` left by an interrupted run is thrown away and fetched afresh. HTTP
requests time out after 30 s and failed downloads are retried twice. A full
disk (or quota, a read-only file system, no permission) is no network error:
trying again cannot help, and the next archive would fail the same way, so
the download stops at once with the path and the free space.

Exit status: 0 when every selected archive is in place, 1 when one could not be
fetched (or the source could not be read), 2 for bad arguments.

Only the standard library is needed (tqdm draws progress bars when installed),
and nothing here imports the rest of mockgo, so ``python mockgo/data/download.py``
works even where numpy and numba are missing.
"""

from __future__ import annotations

import argparse
import errno
import http.client
import os
import re
import shutil
import sys
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

try:
    from tqdm import tqdm
except ImportError:  # progress bars are a nicety, not a requirement
    tqdm = None

USER_AGENT = "mockgo-kgs-download/0.1 (Python urllib; tutorial data for mockgo)"
TIMEOUT = 30  # seconds, for every network request
RETRIES = 2  # extra attempts after a failed HTTP download
BACKOFF = 2.0  # seconds before the first retry; doubled for the next
CHUNK = 1 << 16



@dataclass(frozen=True)
class Collection:
    """One of u-go.net's KGS collections: its page, how its archives are
    named (``PREFIX-2003-19-7582-.tar.gz``, ``PREFIX-2017_01-19-733-.tar.gz``),
    the folder under ``data/`` it goes to, and the environment variable that
    names a mirror of it."""

    key: str
    index: str
    prefix: str
    folder: str
    mirror_env: str
    players: str

    @property
    def archive_name(self):
        return re.compile(rf"{re.escape(self.prefix)}-(\d{{4}})(?:_(\d{{2}}))?-19-(\d+)-\.tar\.gz")

    @property
    def pattern(self):
        """The archives' names as a shell pattern, for messages."""
        return f"{self.prefix}-*-19-*-.tar.gz"


COLLECTIONS = {
    "6d": Collection("6d", "https://u-go.net/gamerecords/", "KGS", "kgs", "MOCKGO_KGS_MIRROR",
                     "a player 7d or stronger, or both 6d"),
    # Its page and names as public download scripts give them (dl.u-go.net/gamerecords-4d/
    # KGS4d-2007-19-150282-.tar.gz); unlike the 6d page, never read from here by a test.
    "4d": Collection("4d", "https://u-go.net/gamerecords-4d/", "KGS4d", "kgs4d",
                     "MOCKGO_KGS4D_MIRROR", "a player 4d or stronger"),
}
DEFAULT_COLLECTION = COLLECTIONS["6d"]  # what the notebooks train on
OFFICIAL_INDEX = DEFAULT_COLLECTION.index
ARCHIVE_NAME = DEFAULT_COLLECTION.archive_name


class SourceError(Exception):
    """The list of archives could not be read from the source."""


class DownloadError(Exception):
    """One archive could not be fetched; the message names the URL and the reason."""


class BadArchive(Exception):
    """A file is not a complete, readable tar.gz archive."""


class DiskError(Exception):
    """An archive could not be written where it goes (disk full, quota,
    read-only file system, no permission); the message names the path and
    the free space. No retry can help, and the next archive would fail too."""


# What the local file system answers, unlike the network: trying again is futile.
LOCAL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES})


def _is_local(error):
    # URLError is an OSError too, but its errno (if any) is the network's.
    return (isinstance(error, OSError) and not isinstance(error, urllib.error.URLError)
            and error.errno in LOCAL_ERRNOS)


@dataclass(frozen=True)
class Archive:
    """One archive: its u-go.net name, what the name tells, and where to get it."""

    name: str
    year: int
    month: int | None  # None for the yearly archives
    games: int
    url: str  # an http(s) or file URL, or a local path for a folder mirror

    @property
    def period(self):
        return f"{self.year}" if self.month is None else f"{self.year}-{self.month:02d}"

    @property
    def sort_key(self):
        return (self.year, self.month or 0, self.name)


def parse_name(name, collection=DEFAULT_COLLECTION):
    """(year, month or None, games) for an archive name of ``collection``,
    or None for any other name (another collection's included)."""
    match = collection.archive_name.fullmatch(name)
    if not match:
        return None
    year, month, games = match.groups()
    return int(year), (int(month) if month else None), int(games)


def _archive(name, url, collection=DEFAULT_COLLECTION):
    parsed = parse_name(name, collection)
    return None if parsed is None else Archive(name, *parsed, url=url)


class _LinkParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hrefs = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            for key, value in attrs:
                if key == "href" and value:
                    self.hrefs.append(value.strip())


def is_official(url):
    """Whether ``url`` is on u-go.net, the archives' publisher."""
    host = urllib.parse.urlsplit(url).hostname or ""
    return host == "u-go.net" or host.endswith(".u-go.net")


def parse_index(html, index_url, collection=DEFAULT_COLLECTION):
    """The .tar.gz archives of ``collection`` linked from a page in the
    u-go.net format, oldest first.

    Links are resolved against `index_url`. On u-go.net itself they are used as
    they are; on a mirror, a link to another host is replaced by the file of the
    same name beside the page (a copied u-go.net page still links to dl.u-go.net).
    """
    parser = _LinkParser()
    parser.feed(html)
    parser.close()
    page = urllib.parse.urlsplit(index_url)
    found = {}
    for href in parser.hrefs:
        url = urllib.parse.urljoin(index_url, href)
        parts = urllib.parse.urlsplit(url)
        name = urllib.parse.unquote(parts.path.rsplit("/", 1)[-1])
        if parse_name(name, collection) is None or name in found:
            continue
        if not is_official(index_url) and (parts.scheme, parts.netloc) != (page.scheme, page.netloc):
            url = urllib.parse.urljoin(index_url, urllib.parse.quote(name))
        found[name] = _archive(name, url, collection)
    return sorted(found.values(), key=lambda a: a.sort_key)


def list_folder(folder, collection=DEFAULT_COLLECTION):
    """The archives of ``collection`` in a local folder, oldest first."""
    archives = []
    for name in os.listdir(folder):
        archive = _archive(name, os.path.join(folder, name), collection)
        if archive is not None and os.path.isfile(archive.url):
            archives.append(archive)
    return sorted(archives, key=lambda a: a.sort_key)


# --------------------------------------------------------------------------- sources


@dataclass(frozen=True)
class Source:
    """Where the archives come from: a folder or a URL, and why that one."""

    kind: str  # "folder" or "url"
    location: str  # a folder path, or the URL of the index page
    origin: str  # why this source: --mirror, $MOCKGO_KGS_MIRROR, ...

    def describe(self):
        what = "folder" if self.kind == "folder" else "index page"
        return f"{what} {self.location} ({self.origin})"


def _source_from(value, origin):
    """A Source for a --mirror value: an http(s)/file URL or a local path."""
    scheme = urllib.parse.urlsplit(value).scheme.lower()
    if scheme in ("http", "https"):
        return Source("url", value, origin)
    if scheme == "file":
        path = urllib.request.url2pathname(urllib.parse.urlsplit(value).path)
    else:
        path = os.path.abspath(os.path.expanduser(value))
    if os.path.isdir(path):
        if os.path.isfile(os.path.join(path, "index.html")):
            return Source("url", Path(path, "index.html").as_uri(), origin)
        return Source("folder", path, origin)
    if os.path.isfile(path):  # a saved index page; its archives lie beside it
        return Source("url", Path(path).as_uri(), origin)
    raise SourceError(f"{value} ({origin}) is neither a URL nor an existing folder or file")


def resolve_source(mirror, environ, repo_root, collection=DEFAULT_COLLECTION):
    """--mirror, else the collection's $MOCKGO_KGS_MIRROR (6d) or
    $MOCKGO_KGS4D_MIRROR (4d), else ../shared/data/kgs (or kgs4d), else u-go.net."""
    if mirror:
        return _source_from(mirror, "--mirror")
    variable = collection.mirror_env
    if environ.get(variable):
        return _source_from(environ[variable], f"${variable}")
    shared = Path(repo_root).parent / "shared" / "data" / collection.folder
    if shared.is_dir():
        return Source("folder", str(shared.resolve()), "the shared mirror beside the repository")
    return Source("url", collection.index, "u-go.net, no mirror configured")


def _is_http(url):
    return urllib.parse.urlsplit(url).scheme.lower() in ("http", "https")


def _request(url, method="GET"):
    return urllib.request.Request(url, headers={"User-Agent": USER_AGENT}, method=method)


def _reason(error):
    """A short human-readable reason for a failed request."""
    if isinstance(error, urllib.error.HTTPError):
        return f"HTTP {error.code} {error.reason}"
    if isinstance(error, urllib.error.URLError):
        return str(error.reason)
    if isinstance(error, http.client.IncompleteRead):
        return f"connection closed after {len(error.partial)} bytes of the response"
    return str(error) or type(error).__name__


def _retryable(error):
    # A 4xx answer will not change on a second try, nor will a full disk;
    # everything else might.
    if _is_local(error):
        return False
    return not (isinstance(error, urllib.error.HTTPError) and 400 <= error.code < 500)


def _with_retries(url, action, what):
    """Run action(), retrying network failures of an http(s) URL with a backoff."""
    attempts = 1 + RETRIES if _is_http(url) else 1
    for attempt in range(1, attempts + 1):
        try:
            return action()
        except (OSError, http.client.HTTPException, BadArchive) as error:
            if attempt == attempts or not _retryable(error):
                raise
            delay = BACKOFF * 2 ** (attempt - 1)
            print(f"{what}: {_reason(error)}; trying again in {delay:g} s "
                  f"({attempt + 1} of {attempts})", file=sys.stderr)
            time.sleep(delay)


def read_index(url):
    """The text of the index page at `url` (or of the index.html beneath it)."""
    def fetch(page):
        with urllib.request.urlopen(_request(page), timeout=TIMEOUT) as response:
            charset = response.headers.get_content_charset() or "utf-8"
            return response.read().decode(charset, errors="replace")

    try:
        return url, _with_retries(url, lambda: fetch(url), f"index {url}")
    except urllib.error.HTTPError as error:
        if not url.endswith("/") or error.code not in (403, 404):
            raise SourceError(f"{url}: {_reason(error)}") from error
        first = error
    except (OSError, http.client.HTTPException) as error:
        raise SourceError(f"{url}: {_reason(error)}") from error
    page = url + "index.html"
    try:
        return page, _with_retries(page, lambda: fetch(page), f"index {page}")
    except (OSError, http.client.HTTPException) as error:
        raise SourceError(f"{url}: {_reason(first)}; {page}: {_reason(error)}") from error


def list_archives(source, collection=DEFAULT_COLLECTION):
    """All archives of ``collection`` the source offers, oldest first."""
    if source.kind == "folder":
        try:
            return list_folder(source.location, collection)
        except OSError as error:
            raise SourceError(f"{source.location}: {error.strerror or error}") from error
    page, html = read_index(source.location)
    return parse_index(html, page, collection)


def source_size(archive):
    """The size in bytes of the archive at its source, or None when it cannot be had cheaply."""
    try:
        if "://" not in archive.url:
            return os.path.getsize(archive.url)
        if not _is_http(archive.url):
            with urllib.request.urlopen(_request(archive.url), timeout=TIMEOUT) as response:
                length = response.headers.get("Content-Length")
        else:
            with urllib.request.urlopen(_request(archive.url, "HEAD"), timeout=TIMEOUT) as response:
                length = response.headers.get("Content-Length")
        return int(length) if length is not None else None
    except (OSError, http.client.HTTPException, ValueError):
        return None


# --------------------------------------------------------------------------- selection


def parse_years(text):
    """'2001,2003-2006' -> {2001, 2003, 2004, 2005, 2006} (an argparse type)."""
    years = set()
    for item in text.split(","):
        item = item.strip()
        match = re.fullmatch(r"(\d{4})(?:\s*-\s*(\d{4}))?", item)
        if not match:
            raise argparse.ArgumentTypeError(
                f"{item!r} in {text!r} is not a year or a range of years like 2003-2006")
        first = int(match.group(1))
        last = int(match.group(2) or first)
        if last < first:
            raise argparse.ArgumentTypeError(f"{item!r}: the range ends before it begins")
        years.update(range(first, last + 1))
    return years


def _positive(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: must be at least 1")
    return value


def select(archives, years=None, count=None, games=None):
    """Archives kept by --years, oldest first, cut by --archives or --games."""
    chosen = sorted((a for a in archives if years is None or a.year in years),
                    key=lambda a: a.sort_key)
    if count is not None:
        chosen = chosen[:count]
    if games is not None:
        total = 0
        for i, archive in enumerate(chosen):
            total += archive.games
            if total >= games:
                chosen = chosen[:i + 1]
                break
    return chosen


# --------------------------------------------------------------------------- fetching


def verify_archive(path):
    """Read a tar.gz completely; return its number of .sgf members, raise BadArchive if broken.

    Iterating over the members is not enough: tarfile stops at the end-of-archive
    blocks, before the gzip trailer, so a file cut short by a few bytes would
    pass. Reading the rest of the gzip stream checks its length and CRC.
    """
    try:
        with tarfile.open(path, "r:gz") as tar:
            sgf = 0
            for member in tar:
                if member.isfile():
                    stream = tar.extractfile(member)
                    while stream.read(1 << 20):
                        pass
                    sgf += member.name.lower().endswith(".sgf")
            while tar.fileobj.read(1 << 20):
                pass
    except (tarfile.TarError, EOFError, zlib.error, OSError) as error:
        raise BadArchive(f"not a complete tar.gz archive ({error or type(error).__name__})") from None
    return sgf


def _progress(name, total):
    if tqdm is None:
        return _NoProgress()
    return tqdm(total=total, desc=name, unit="B", unit_scale=True, unit_divisor=1024,
                leave=False, disable=None, file=sys.stderr)


class _NoProgress:
    def update(self, n):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _copy_to(archive, part):
    """Write the archive's bytes to `part`; return how many were written."""
    if "://" in archive.url:
        response = urllib.request.urlopen(_request(archive.url), timeout=TIMEOUT)
        length = response.headers.get("Content-Length")
        total = int(length) if length and length.isdigit() else None
    else:
        response = open(archive.url, "rb")
        total = os.fstat(response.fileno()).st_size
    written = 0
    with response, open(part, "wb") as out, _progress(archive.name, total) as bar:
        while True:
            chunk = response.read(CHUNK)
            if not chunk:
                break
            out.write(chunk)
            written += len(chunk)
            bar.update(len(chunk))
        out.flush()
        os.fsync(out.fileno())
    if total is not None and written != total:
        raise BadArchive(f"got {written} of {total} bytes")
    return written


def fetch(archive, dest):
    """Put a verified copy of the archive at dest/NAME; return (bytes, .sgf members).

    Raises DownloadError naming the URL and the reason, or DiskError naming
    the file that could not be written and the free space; no NAME.part is
    left then.
    """
    final = Path(dest) / archive.name
    part = final.with_name(final.name + ".part")

    def attempt():
        part.unlink(missing_ok=True)
        size = _copy_to(archive, part)
        members = verify_archive(part)
        os.replace(part, final)
        return size, members

    try:
        return _with_retries(archive.url, attempt, archive.name)
    except (OSError, http.client.HTTPException, BadArchive) as error:
        if _is_local(error):
            raise DiskError(_disk_problem(error, part, dest)) from error
        raise DownloadError(f"{archive.url}: {_reason(error)}") from error
    finally:
        part.unlink(missing_ok=True)  # after os.replace it is gone already


def _disk_problem(error, part, dest):
    """What went wrong with the local disk: the path, the error, the free space."""
    try:
        space = shutil.disk_usage(dest).free
        free = (f"{space / 2**30:.1f} GiB" if space >= 2**30 else _size(space)) + f" free on {dest}"
    except OSError:
        free = f"free space on {dest} unknown"
    # A failed write names no file; the one being written is the .part.
    return f"cannot write {error.filename or part}: {error.strerror or error} ({free})"


def check_present(archive, final, verify=False):
    """None if the file at `final` can stand for the archive, else why it cannot."""
    if verify:
        try:
            verify_archive(final)
        except BadArchive as error:
            return str(error)
    expected = source_size(archive)
    actual = final.stat().st_size
    if expected is not None:
        return None if actual == expected else f"{actual} bytes here, {expected} at the source"
    if not verify:  # no size to compare with: at least look like gzip
        with open(final, "rb") as f:
            if f.read(2) != b"\x1f\x8b":
                return "not a gzip file"
    return None


def archives_in(folder, collection=DEFAULT_COLLECTION):
    """The finished archives of ``collection`` (final names only) in a folder."""
    if not os.path.isdir(folder):
        return []
    return list_folder(folder, collection)


# --------------------------------------------------------------------------- command line


def default_repo_root():
    """The checkout this file belongs to, else the working directory."""
    here = Path(__file__).resolve().parents[2]  # mockgo/data/download.py -> the checkout
    return here if (here / "pyproject.toml").is_file() else Path.cwd()


def build_parser(repo_root):
    """The downloader's command-line options (``--help`` lists them)."""
    parser = argparse.ArgumentParser(
        prog="python -m mockgo.data.download",
        description="Download the KGS archives of games by strong players "
                    "(https://u-go.net/gamerecords/), oldest first, into data/kgs/.",
        epilog="Source: --mirror, else $MOCKGO_KGS_MIRROR ($MOCKGO_KGS4D_MIRROR for --collection "
               "4d), else ../shared/data/kgs (kgs4d) beside the repository if it exists, else "
               "u-go.net. Exit status: 0 ok, 1 an archive failed, 2 bad arguments.")
    parser.add_argument("--collection", choices=sorted(COLLECTIONS), default="6d",
                        help="6d: games with a player 7d or stronger, or both 6d "
                             "(https://u-go.net/gamerecords/, into data/kgs/; the default, what "
                             "the notebooks use); 4d: games with a player 4d or stronger "
                             "(https://u-go.net/gamerecords-4d/, KGS4d-*.tar.gz, into data/kgs4d/)")
    parser.add_argument("--dest", metavar="DIR",
                        help="where the archives go (default: data/kgs/, or data/kgs4d/ for "
                             "--collection 4d, in the repository)")
    parser.add_argument("--mirror", metavar="URL_OR_DIR",
                        help="take the archives from here: a folder of archives, or an "
                             "http(s)/file URL of a page in the u-go.net format")
    parser.add_argument("--years", type=parse_years, metavar="LIST",
                        help="only these years, e.g. 2001,2003-2006")
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--archives", type=_positive, metavar="K",
                       help="only the K oldest (selected) archives")
    limit.add_argument("--games", type=_positive, metavar="N",
                       help="the oldest (selected) archives that hold at least N games")
    parser.add_argument("--verify", action="store_true",
                        help="read archives already present completely instead of "
                             "comparing sizes")
    parser.add_argument("--list", action="store_true",
                        help="print what would be fetched and exit")
    return parser


def _count(n, thing):
    return f"{n:,} {thing}" + ("" if n == 1 else "s")


def _games(n):
    return _count(n, "game")


def _size(n):
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 2**10:.1f} KiB"


def main(argv=None, environ=None, repo_root=None):
    """Download what ``argv`` asks for (``--help``); returns the exit status
    (0 ok, 1 an archive failed, 2 bad arguments)."""
    repo_root = default_repo_root() if repo_root is None else Path(repo_root)
    environ = os.environ if environ is None else environ
    args = build_parser(repo_root).parse_args(argv)
    collection = COLLECTIONS[args.collection]
    dest = Path(args.dest or Path(repo_root) / "data" / collection.folder).expanduser().resolve()

    try:
        source = resolve_source(args.mirror, environ, repo_root, collection)
        print(f"KGS {collection.key}+ source: {source.describe()}", flush=True)
        available = list_archives(source, collection)
    except SourceError as error:
        print(f"error: cannot read the list of KGS archives: {error}", file=sys.stderr)
        return 1
    if not available:
        print(f"error: no {collection.pattern} archives at {source.location}", file=sys.stderr)
        return 1
    chosen = select(available, args.years, args.archives, args.games)
    if not chosen:
        print(f"error: none of the {len(available)} archives is from the years asked for",
              file=sys.stderr)
        return 1
    total_games = sum(a.games for a in chosen)
    if args.games is not None and total_games < args.games:
        print(f"note: only {_games(total_games)} available, fewer than the "
              f"{args.games:,} asked for", file=sys.stderr)

    if args.list:
        for archive in chosen:
            state = "present" if (dest / archive.name).is_file() else "to fetch"
            print(f"  {archive.name:30} {archive.period:>7} {archive.games:>8,} games  {state}")
        print(f"{_count(len(chosen), 'archive')}, {_games(total_games)} (destination: {dest})")
        return 0

    dest.mkdir(parents=True, exist_ok=True)
    fetched = present = failed = 0
    try:
        for archive in chosen:
            final = dest / archive.name
            part = final.with_name(final.name + ".part")
            if final.is_file():
                problem = check_present(archive, final, args.verify)
                if problem is None:
                    present += 1
                    continue
                print(f"{archive.name}: fetching again: {problem}", file=sys.stderr)
            if part.exists():
                print(f"{archive.name}: discarding {part.name} left by an earlier run",
                      file=sys.stderr)
            try:
                size, members = fetch(archive, dest)
            except DownloadError as error:
                print(f"error: {archive.name}: download failed: {error}", file=sys.stderr)
                failed += 1
                continue
            except DiskError as error:
                print(f"error: {archive.name}: {error}; stopping (make room, then run again)",
                      file=sys.stderr)
                return 1
            fetched += 1
            print(f"{archive.name}: fetched {_size(size)}, {_games(members)}", flush=True)
            if members != archive.games:
                print(f"warning: {archive.name} holds {members} .sgf files, "
                      f"its name says {archive.games}", file=sys.stderr)
    except KeyboardInterrupt:
        print("interrupted; run again to fetch the rest", file=sys.stderr)
        return 130

    here = archives_in(dest, collection)
    print(f"KGS archives: {fetched} fetched, {present} already present, {failed} failed; "
          f"{dest} holds {_count(len(here), 'archive')}, {_games(sum(a.games for a in here))}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
