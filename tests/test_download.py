"""mockgo.data.download, the KGS downloader behind data/download.sh.

Everything here is offline: the mirrors are folders in tmp_path and an
http.server on 127.0.0.1, serving tests/fixtures/kgs_index.html (a small page in
the u-go.net format) and tiny fake archives built by the tests. Only the last
test reads the real archives, and only when ../shared/data/kgs exists.
"""

import errno
import functools
import http.server
import io
import os
import subprocess
import tarfile
import threading
from pathlib import Path

import pytest

from mockgo.data import download

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "kgs_index.html"
SHARED = ROOT.parent / "shared" / "data" / "kgs"

# What the fixture page lists, oldest first: name, year, month, games.
FIXTURE_ARCHIVES = [
    ("KGS-2001-19-1-.tar.gz", 2001, None, 1),
    ("KGS-2002-19-3-.tar.gz", 2002, None, 3),
    ("KGS-2003-19-2-.tar.gz", 2003, None, 2),
    ("KGS-2006-19-5-.tar.gz", 2006, None, 5),
    ("KGS-2016_12-19-4-.tar.gz", 2016, 12, 4),
    ("KGS-2018_01-19-2-.tar.gz", 2018, 1, 2),
    ("KGS-2018_02-19-3-.tar.gz", 2018, 2, 3),
]
NAMES = [name for name, *_ in FIXTURE_ARCHIVES]


def make_archive(path, games):
    """A tar.gz with `games` small SGF members, like the u-go.net archives."""
    folder = Path(path).name.split("-19-")[0].lower()
    with tarfile.open(path, "w:gz") as tar:
        for i in range(games):
            sgf = f"(;GM[1]FF[4]SZ[19]KM[6.5]PB[b{i}]PW[w{i}];B[pd];W[dp];B[pp];W[dd])\n".encode()
            info = tarfile.TarInfo(f"{folder}/game-{i}.sgf")
            info.size = len(sgf)
            tar.addfile(info, io.BytesIO(sgf))


def fill_mirror(folder):
    folder.mkdir(parents=True, exist_ok=True)
    for name, _year, _month, games in FIXTURE_ARCHIVES:
        make_archive(folder / name, games)
    return folder


def truncate(path, cut=5):
    """Chop the end off a file: with 5 bytes, the gzip trailer is damaged but the tar is whole."""
    data = path.read_bytes()
    path.write_bytes(data[:-cut])


def run(capsys, *argv):
    code = download.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def leftovers(dest):
    return sorted(p.name for p in Path(dest).glob("*.part"))


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    # No test may reach the environment's mirror or wait on retry back-offs.
    monkeypatch.delenv("MOCKGO_KGS_MIRROR", raising=False)
    monkeypatch.delenv("MOCKGO_KGS4D_MIRROR", raising=False)
    monkeypatch.setattr(download, "BACKOFF", 0)


@pytest.fixture
def folder_mirror(tmp_path):
    return fill_mirror(tmp_path / "mirror")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def http_mirror(tmp_path):
    """(base URL, site folder): the fixture page as index.html beside the fake archives."""
    site = fill_mirror(tmp_path / "site")
    (site / "index.html").write_bytes(FIXTURE.read_bytes())
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", site
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# --------------------------------------------------------------------------- parsing


def test_parse_name():
    assert download.parse_name("KGS-2003-19-7582-.tar.gz") == (2003, None, 7582)
    assert download.parse_name("KGS-2017_01-19-733-.tar.gz") == (2017, 1, 733)
    for other in ("KGS-2017_01-19-733-.zip", "KGS-2017_01-19-733-.tar.bz2",
                  "KGS-2017_01-19-733-.tar.gz.part", "index.html", "KGS-03-19-1-.tar.gz"):
        assert download.parse_name(other) is None


def test_the_4d_collection_has_its_own_names_page_and_folder():
    four = download.COLLECTIONS["4d"]
    assert download.parse_name("KGS4d-2007-19-150282-.tar.gz", four) == (2007, None, 150282)
    assert download.parse_name("KGS4d-2018_03-19-9-.tar.gz", four) == (2018, 3, 9)
    # Neither collection takes the other's archives (so data/kgs never picks up 4d games).
    assert download.parse_name("KGS4d-2007-19-150282-.tar.gz") is None
    assert download.parse_name("KGS-2003-19-7582-.tar.gz", four) is None
    # A page in the 6d page's format (modelled on it and on the public download scripts'
    # dl.u-go.net/gamerecords-4d/ links; not a capture of the live 4d page).
    html = ('<table><tr><td>2007</td><td><a href="https://dl.u-go.net/gamerecords-4d/'
            'KGS4d-2007-19-150282-.tar.gz">Download</a></td></tr><tr><td>2018-03</td><td>'
            '<a href="https://dl.u-go.net/gamerecords-4d/KGS4d-2018_03-19-9-.tar.gz">'
            'Download</a></td></tr><tr><td><a href="https://dl.u-go.net/gamerecords/'
            'KGS-2001-19-1-.tar.gz">6d</a></td></tr></table>')
    archives = download.parse_index(html, four.index, four)
    assert [(a.name, a.period) for a in archives] == [
        ("KGS4d-2007-19-150282-.tar.gz", "2007"), ("KGS4d-2018_03-19-9-.tar.gz", "2018-03")]
    assert archives[0].url == "https://dl.u-go.net/gamerecords-4d/KGS4d-2007-19-150282-.tar.gz"
    assert download.resolve_source(None, {}, "/nowhere/repo", four).location == \
        "https://u-go.net/gamerecords-4d/"
    assert download.resolve_source(None, {"MOCKGO_KGS4D_MIRROR": "/tmp"}, "/nowhere/repo",
                                   four).origin == "$MOCKGO_KGS4D_MIRROR"


def test_collection_4d_fetches_only_4d_archives_into_data_kgs4d(tmp_path, folder_mirror, capsys):
    make_archive(folder_mirror / "KGS4d-2007-19-3-.tar.gz", 3)
    make_archive(folder_mirror / "KGS4d-2016_12-19-2-.tar.gz", 2)
    repo = tmp_path / "repo"
    code = download.main(["--collection", "4d", "--mirror", str(folder_mirror), "--games", "3"],
                         environ={}, repo_root=repo)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert sorted(p.name for p in (repo / "data" / "kgs4d").iterdir()) == \
        ["KGS4d-2007-19-3-.tar.gz"]
    assert "KGS 4d+ source" in out and "holds 1 archive, 3 games" in out
    # Resumes like the 6d download: the rest, and nothing twice.
    assert download.main(["--collection", "4d", "--mirror", str(folder_mirror)], environ={},
                         repo_root=repo) == 0
    assert "1 fetched, 1 already present, 0 failed" in capsys.readouterr().out
    # The default collection beside it never takes a 4d archive.
    assert download.main(["--mirror", str(folder_mirror), "--archives", "1"], environ={},
                         repo_root=repo) == 0
    assert sorted(p.name for p in (repo / "data" / "kgs").iterdir()) == [NAMES[0]]
    # A mirror without 4d archives says so by their names.
    code = download.main(["--collection", "4d", "--mirror", str(tmp_path / "repo" / "data" / "kgs")],
                         environ={}, repo_root=repo)
    assert code == 1 and "no KGS4d-*-19-*-.tar.gz archives" in capsys.readouterr().err


def test_parse_index_reads_the_u_go_net_table():
    archives = download.parse_index(FIXTURE.read_text(), download.OFFICIAL_INDEX)
    assert [(a.name, a.year, a.month, a.games) for a in archives] == FIXTURE_ARCHIVES
    # On u-go.net the links are followed as they are: the archives live on dl.u-go.net.
    assert archives[0].url == "https://dl.u-go.net/gamerecords/KGS-2001-19-1-.tar.gz"
    assert [a.period for a in archives[-3:]] == ["2016-12", "2018-01", "2018-02"]


def test_parse_index_on_a_mirror_takes_archives_beside_the_page():
    page = "http://127.0.0.1:8000/kgs/index.html"
    archives = download.parse_index(FIXTURE.read_text(), page)
    assert [a.name for a in archives] == NAMES
    assert all(a.url == "http://127.0.0.1:8000/kgs/" + a.name for a in archives)
    # Relative links on the mirror's own host are followed.
    html = '<a href="files/KGS-2005-19-7-.tar.gz">x</a> <a href="KGS-2005-19-7-.zip">y</a>'
    [archive] = download.parse_index(html, page)
    assert archive.url == "http://127.0.0.1:8000/kgs/files/KGS-2005-19-7-.tar.gz"


def test_parse_years():
    assert download.parse_years("2001,2003-2006") == {2001, 2003, 2004, 2005, 2006}
    assert download.parse_years("2017") == {2017}
    for bad in ("20x1", "2006-2003", "2001,", "17"):
        with pytest.raises(Exception):
            download.parse_years(bad)


def test_select_by_years_archives_and_games():
    archives = download.parse_index(FIXTURE.read_text(), download.OFFICIAL_INDEX)

    def names(**kwargs):
        return [a.name for a in download.select(archives, **kwargs)]

    assert names() == NAMES  # oldest first
    assert names(years={2003, 2004, 2005, 2006, 2018}) == [
        "KGS-2003-19-2-.tar.gz", "KGS-2006-19-5-.tar.gz",
        "KGS-2018_01-19-2-.tar.gz", "KGS-2018_02-19-3-.tar.gz"]
    assert names(count=2) == NAMES[:2]
    assert names(games=5) == NAMES[:3]  # 1 + 3 + 2 = 6 >= 5
    assert names(games=4) == NAMES[:2]  # exactly 4
    assert names(games=10_000) == NAMES  # not enough: all of them
    assert names(years={2018}, count=1) == ["KGS-2018_01-19-2-.tar.gz"]
    assert names(years={1999}) == []


def test_bad_arguments_exit_2(tmp_path, capsys):
    for argv in (["--years", "20x1"], ["--archives", "0"], ["--games", "many"],
                 ["--archives", "2", "--games", "10"], ["--no-such-option"]):
        with pytest.raises(SystemExit) as exit_info:
            download.main(argv + ["--dest", str(tmp_path)])
        assert exit_info.value.code == 2, argv
    capsys.readouterr()


def test_source_order(tmp_path, folder_mirror):
    repo = tmp_path / "repo"
    repo.mkdir()
    assert download.resolve_source(None, {}, repo).location == download.OFFICIAL_INDEX
    shared = fill_mirror(tmp_path / "shared" / "data" / "kgs")
    assert download.resolve_source(None, {}, repo) == download.Source(
        "folder", str(shared), "the shared mirror beside the repository")
    env = {"MOCKGO_KGS_MIRROR": "http://127.0.0.1:1/kgs/"}
    assert download.resolve_source(None, env, repo).location == "http://127.0.0.1:1/kgs/"
    source = download.resolve_source(str(folder_mirror), env, repo)
    assert (source.kind, source.location, source.origin) == ("folder", str(folder_mirror), "--mirror")
    with pytest.raises(download.SourceError):
        download.resolve_source(str(tmp_path / "nowhere"), {}, repo)


# --------------------------------------------------------------------------- downloading


def test_list_prints_the_selection_and_writes_nothing(tmp_path, folder_mirror, capsys):
    dest = tmp_path / "dest"
    code, out, _ = run(capsys, "--list", "--years", "2001-2003", "--mirror", folder_mirror,
                       "--dest", dest)
    assert code == 0
    assert f"folder {folder_mirror} (--mirror)" in out
    assert [line.split()[0] for line in out.splitlines() if line.startswith("  ")] == NAMES[:3]
    assert "3 archives, 6 games" in out
    assert not dest.exists()


def test_download_from_a_folder_mirror_and_again(tmp_path, folder_mirror, capsys):
    dest = tmp_path / "dest"
    code, out, err = run(capsys, "--mirror", folder_mirror, "--dest", dest, "--games", "6")
    assert code == 0, err
    assert sorted(p.name for p in dest.iterdir()) == NAMES[:3]
    for name in NAMES[:3]:
        assert (dest / name).read_bytes() == (folder_mirror / name).read_bytes()
    assert "3 fetched, 0 already present, 0 failed" in out
    assert "holds 3 archives, 6 games" in out

    # Idempotent: a second run fetches nothing and leaves the files alone.
    times = {p.name: p.stat().st_mtime_ns for p in dest.iterdir()}
    code, out, err = run(capsys, "--mirror", folder_mirror, "--dest", dest, "--games", "6")
    assert code == 0, err
    assert "0 fetched, 3 already present, 0 failed" in out
    assert {p.name: p.stat().st_mtime_ns for p in dest.iterdir()} == times

    # A wider selection fetches only what is missing.
    code, out, _ = run(capsys, "--mirror", folder_mirror, "--dest", dest)
    assert code == 0
    assert "4 fetched, 3 already present, 0 failed" in out
    assert "holds 7 archives, 20 games" in out


@pytest.mark.parametrize("page", ["", "index.html"])
def test_download_over_http(tmp_path, http_mirror, capsys, page):
    base, site = http_mirror
    dest = tmp_path / "dest"
    argv = ["--mirror", base + page, "--dest", dest, "--years", "2016-2018"]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert f"index page {base + page} (--mirror)" in out
    expected = NAMES[4:]
    assert sorted(p.name for p in dest.iterdir()) == expected
    for name in expected:
        assert (dest / name).read_bytes() == (site / name).read_bytes()
    assert "3 fetched, 0 already present, 0 failed" in out

    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert "0 fetched, 3 already present, 0 failed" in out


def test_file_url_mirror(tmp_path, http_mirror, capsys):
    _base, site = http_mirror  # a folder holding index.html and the archives
    dest = tmp_path / "dest"
    code, out, err = run(capsys, "--mirror", site.as_uri(), "--dest", dest, "--archives", "2")
    assert code == 0, err
    assert sorted(p.name for p in dest.iterdir()) == NAMES[:2]


def test_truncated_archive_in_a_folder_mirror(tmp_path, folder_mirror, capsys):
    bad = folder_mirror / NAMES[1]
    truncate(bad)
    dest = tmp_path / "dest"
    code, out, err = run(capsys, "--mirror", folder_mirror, "--dest", dest, "--archives", "3")
    assert code == 1
    assert f"download failed: {bad}: not a complete tar.gz archive" in err
    assert not (dest / NAMES[1]).exists()
    assert leftovers(dest) == []
    assert sorted(p.name for p in dest.iterdir()) == [NAMES[0], NAMES[2]]
    assert "2 fetched, 0 already present, 1 failed" in out


def test_truncated_archive_over_http_is_retried_then_fails(tmp_path, http_mirror, capsys):
    base, site = http_mirror
    truncate(site / NAMES[0], cut=40)
    dest = tmp_path / "dest"
    code, out, err = run(capsys, "--mirror", base, "--dest", dest, "--archives", "1")
    assert code == 1
    assert f"{base}{NAMES[0]}: not a complete tar.gz archive" in err
    assert err.count("trying again") == download.RETRIES
    assert list(dest.iterdir()) == []
    assert "0 fetched, 0 already present, 1 failed" in out


def test_missing_archive_over_http(tmp_path, http_mirror, capsys):
    base, site = http_mirror
    (site / NAMES[0]).unlink()
    dest = tmp_path / "dest"
    code, out, err = run(capsys, "--mirror", base, "--dest", dest, "--archives", "2")
    assert code == 1
    assert f"{base}{NAMES[0]}: HTTP 404" in err
    assert "trying again" not in err  # a 404 will not go away
    assert sorted(p.name for p in dest.iterdir()) == [NAMES[1]]


def test_unreachable_mirror(tmp_path, capsys):
    dest = tmp_path / "dest"
    code, out, err = run(capsys, "--mirror", "http://127.0.0.1:9/", "--dest", dest)
    assert code == 1
    assert "cannot read the list of KGS archives: http://127.0.0.1:9/" in err
    assert "refused" in err.lower()
    assert not dest.exists()


def test_stale_part_is_replaced(tmp_path, folder_mirror, capsys):
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / (NAMES[0] + ".part")).write_bytes(b"half an archive from an interrupted run")
    code, out, err = run(capsys, "--mirror", folder_mirror, "--dest", dest, "--archives", "1")
    assert code == 0, err
    assert "discarding" in err
    assert (dest / NAMES[0]).read_bytes() == (folder_mirror / NAMES[0]).read_bytes()
    assert leftovers(dest) == []


def test_damaged_final_files_are_fetched_again(tmp_path, folder_mirror, capsys):
    dest = tmp_path / "dest"
    dest.mkdir()
    good = [(folder_mirror / name).read_bytes() for name in NAMES[:2]]
    (dest / NAMES[0]).write_bytes(good[0][:-10])  # wrong size: seen by the quick check
    (dest / NAMES[1]).write_bytes(good[1][:-8] + b"\0" * 8)  # right size: only --verify sees it
    code, out, err = run(capsys, "--mirror", folder_mirror, "--dest", dest, "--archives", "2")
    assert code == 0, err
    assert "1 fetched, 1 already present" in out
    assert (dest / NAMES[0]).read_bytes() == good[0]
    code, out, err = run(capsys, "--mirror", folder_mirror, "--dest", dest, "--archives", "2",
                         "--verify")
    assert code == 0, err
    assert "1 fetched, 1 already present" in out
    assert (dest / NAMES[1]).read_bytes() == good[1]


def test_wrapper_lists_a_folder_mirror(tmp_path, folder_mirror):
    env = {k: v for k, v in os.environ.items() if k != "MOCKGO_KGS_MIRROR"}
    result = subprocess.run(
        ["bash", str(ROOT / "data" / "download.sh"), "--list", "--mirror", str(folder_mirror),
         "--dest", str(tmp_path / "dest")],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert result.returncode == 0, result.stderr
    assert f"folder {folder_mirror} (--mirror)" in result.stdout
    assert "7 archives, 20 games" in result.stdout
    assert not (tmp_path / "dest").exists()


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"no real KGS archives at {SHARED}")
def test_lists_the_real_archives(tmp_path, capsys):
    source = download.resolve_source(None, {}, ROOT)
    assert source.kind == "folder" and Path(source.location) == SHARED.resolve()
    code, out, err = run(capsys, "--list", "--mirror", SHARED, "--dest", tmp_path / "dest")
    assert code == 0, err
    archives = download.list_archives(source)
    assert len(archives) == 10
    assert sum(a.games for a in archives) == 28_559
    assert "10 archives, 28,559 games" in out


def test_the_checkout_is_found_from_any_working_folder(monkeypatch, tmp_path):
    # The notebooks run data/download.sh from notebooks/: the mirror beside the
    # checkout and data/kgs must not depend on the working folder.
    monkeypatch.chdir(tmp_path)
    assert download.default_repo_root() == Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("code", ["ENOSPC", "EDQUOT", "EROFS", "EACCES"])
def test_a_full_disk_is_not_retried_and_stops_the_download(tmp_path, http_mirror, capsys,
                                                           monkeypatch, code):
    base, _ = http_mirror
    dest = tmp_path / "dest"
    calls = []

    def disk_full(archive, part):
        calls.append(archive.name)
        part.write_bytes(b"half")
        raise OSError(getattr(errno, code), os.strerror(getattr(errno, code)))

    monkeypatch.setattr(download, "_copy_to", disk_full)
    result, out, err = run(capsys, "--mirror", base, "--dest", dest, "--archives", "3")
    assert result == 1
    assert calls == [NAMES[0]]  # no retry, and not the next archives either
    assert "trying again" not in err
    part = dest / f"{NAMES[0]}.part"
    assert (f"error: {NAMES[0]}: cannot write {part}: {os.strerror(getattr(errno, code))} "
            f"(") in err
    assert f" free on {dest}); stopping (make room, then run again)" in err
    assert leftovers(dest) == []
