"""An archive cut short must not pass for a smaller whole one.

The first 200 kB of ``KGS-2001-19-2298-.tar.gz`` used to build a dataset
of 535 games marked complete, with "1 unreadable file" as the only trace.
A build now stops with an error naming the archive, or, asked to keep
going, warns and leaves the dataset not marked complete. The archives here
are made from synthetic games in a temporary folder; one test reads the
real KGS archive when the shared mirror is there.
"""

import io
import os
import random
import tarfile
from pathlib import Path

import numpy as np
import pytest

from mockgo import Board
from mockgo.data import sgf_reader, sgf_writer
from mockgo.data.dataset import (DatasetSpec, IncompleteDatasetWarning, build_dataset,
                                 read_manifest, summary_line)
from mockgo.data.archives import BrokenArchiveError, iter_sgf_files, sgf_sources

SPEC = DatasetSpec(encoder="simple2", board_size=9, validation_share=0.2, test_share=0.2)
GAMES = 80
REPO = Path(__file__).parent.parent


def random_sgf(seed, moves=30):
    rng = random.Random(seed)
    board = Board(9, komi=6.5)
    while board.move_number < moves and not board.is_over:
        choices = np.flatnonzero(board.sensible_moves()[:-1])
        board.play(int(rng.choice(choices)) if len(choices) else board.pass_index)
    return sgf_writer.to_sgf(sgf_writer.record_from_board(board, black="b", white="w")).encode()


@pytest.fixture(scope="module")
def archives(tmp_path_factory):
    """A whole .tar.gz of GAMES games, and the same cut in half (same name,
    in another folder): the games after the cut cannot be read."""
    folder = tmp_path_factory.mktemp("archives")
    whole = folder / "whole" / "games-9.tar.gz"
    whole.parent.mkdir()
    # Level 0: the games' bytes stay as large as they are, so that half the
    # archive holds about half the games.
    with tarfile.open(whole, "w:gz", compresslevel=0) as archive:
        for i in range(GAMES):
            data = random_sgf(i)
            info = tarfile.TarInfo(f"games/{i:03d}.sgf")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    cut = folder / "cut" / whole.name
    cut.parent.mkdir()
    data = whole.read_bytes()
    cut.write_bytes(data[:len(data) // 2])
    return whole, cut


def test_reading_a_cut_archive_names_it_after_the_games_before_the_cut(archives):
    whole, cut = archives
    read = []
    with pytest.raises(BrokenArchiveError) as caught:
        for source, _ in sgf_sources(cut):
            read.append(source)
    assert 0 < len(read) < GAMES and caught.value.members == len(read)
    assert str(caught.value).startswith(f"{cut} is cut short or damaged: it broke after "
                                        f"{len(read)} SGF files (")
    assert len(list(sgf_sources(whole))) == GAMES


def test_a_build_from_a_cut_archive_stops_naming_it_and_resumes_once_it_is_whole(
        archives, tmp_path):
    whole, cut = archives
    sources = tmp_path / "kgs"
    sources.mkdir()
    archive = sources / whole.name
    archive.write_bytes(cut.read_bytes())
    folder = tmp_path / "ds"
    with pytest.raises(BrokenArchiveError, match=rf"^{archive} is cut short or damaged"):
        build_dataset([archive], folder, SPEC, workers=1, checkpoint_games=10, progress=False)
    stopped = read_manifest(folder)
    assert not stopped["complete"] and 0 < stopped["games_looked_at"] < GAMES
    # Fetched again under its name, the build resumes and ends complete,
    # with every game once, as a build from the whole archive has them.
    archive.write_bytes(whole.read_bytes())
    manifest = build_dataset([archive], folder, SPEC, workers=1, checkpoint_games=10,
                             progress=False)
    reference = build_dataset([whole], tmp_path / "reference", SPEC, workers=1, progress=False)
    assert manifest["complete"] and manifest["broken"] == []
    for key in ("games_looked_at", "games_kept", "positions"):
        assert manifest[key] == reference[key]


def test_keep_going_warns_and_leaves_the_dataset_not_complete(archives, tmp_path):
    whole, cut = archives
    folder = tmp_path / "ds"
    with pytest.warns(IncompleteDatasetWarning, match=rf"^{cut} is cut short or damaged.*"
                                                      r"keep_going=True.*not be marked complete"):
        manifest = build_dataset([cut, whole], folder, SPEC, workers=1, progress=False,
                                 keep_going=True)
    assert not manifest["complete"] and manifest == read_manifest(folder)
    assert len(manifest["broken"]) == 1 and manifest["broken"][0].startswith(f"{cut} is cut")
    assert GAMES < manifest["games_looked_at"] < 2 * GAMES  # part of one, all of the other
    assert "NOT COMPLETE: 1 archive broke before the end" in summary_line(manifest)
    # Built again, it warns again and stays as it is; without keep_going it
    # is the error.
    with pytest.warns(IncompleteDatasetWarning):
        again = build_dataset([cut, whole], folder, SPEC, workers=1, progress=False,
                              keep_going=True)
    assert again == manifest
    with pytest.raises(BrokenArchiveError):
        build_dataset([cut, whole], folder, SPEC, workers=1, progress=False)


def test_iter_sgf_files_raises_unless_asked_to_keep_going(archives):
    whole, cut = archives
    with pytest.raises(BrokenArchiveError):
        list(iter_sgf_files([cut, whole]))
    with pytest.warns(sgf_reader.SGFWarning, match="cut short or damaged"):
        games = list(iter_sgf_files([cut, whole], keep_going=True))
    assert GAMES < len(games) < 2 * GAMES


def kgs_mirror():
    mirror = Path(os.environ.get("MOCKGO_KGS_MIRROR", REPO.parent / "shared" / "data" / "kgs"))
    for folder in (mirror, Path("/work/shared/data/kgs")):
        if (folder / "KGS-2001-19-2298-.tar.gz").exists():
            return folder
    pytest.skip(f"the KGS mirror is absent ({mirror})")


def test_the_first_200_kb_of_a_real_kgs_archive(tmp_path):
    # The case: read to the break, it made a "complete" dataset of
    # 535 games out of 2,298.
    source = kgs_mirror() / "KGS-2001-19-2298-.tar.gz"
    cut = tmp_path / source.name
    with open(source, "rb") as file:
        cut.write_bytes(file.read(200_000))
    with pytest.raises(BrokenArchiveError, match=rf"^{cut} is cut short or damaged: it broke "
                                                 r"after 545 SGF files"):
        build_dataset([cut], tmp_path / "ds", workers=1, progress=False)
    assert not read_manifest(tmp_path / "ds")["complete"]
