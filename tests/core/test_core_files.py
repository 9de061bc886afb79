"""core/files.py: a rewritten file keeps its permission bits, owner and group, and a target
that is a symbolic link is written through the link; real files, real links."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ragguard.core.errors import InputError
from ragguard.core.files import check_writable, write_all, write_report


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _temporaries(*folders: Path) -> list[Path]:
    return [found for folder in folders for found in folder.glob("*.tmp")]


@pytest.mark.parametrize("mode", [0o664, 0o444, 0o600, 0o640], ids=oct)
def test_a_rewritten_file_keeps_its_permission_bits(tmp_path: Path, mode: int):
    path = tmp_path / "testset.yaml"
    path.write_text("old\n")
    os.chmod(path, mode)
    write_report(path, "new\n")
    assert _mode(path) == mode
    assert path.read_text() == "new\n"
    assert _temporaries(tmp_path) == []


def test_a_new_file_gets_the_default_bits(tmp_path: Path):
    umask = os.umask(0o022)
    try:
        write_report(tmp_path / "results.json", "{}\n")
    finally:
        os.umask(umask)
    assert _mode(tmp_path / "results.json") == 0o644


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may give a file to another owner")
def test_a_rewritten_file_keeps_its_owner_and_group(tmp_path: Path):
    path = tmp_path / "baseline.json"
    path.write_text("old\n")
    os.chown(path, 4242, 4343)
    write_report(path, "new\n")
    found = path.stat()
    assert (found.st_uid, found.st_gid, path.read_text()) == (4242, 4343, "new\n")


def test_a_symbolic_link_is_written_through_and_stays_a_link(tmp_path: Path):
    shared, repo = tmp_path / "shared", tmp_path / "repo"
    shared.mkdir(), repo.mkdir()
    (shared / "testset.yaml").write_text("old\n")
    os.chmod(shared / "testset.yaml", 0o664)
    link = repo / "testset.yaml"
    os.symlink("../shared/testset.yaml", link)
    write_report(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == "../shared/testset.yaml"
    assert (shared / "testset.yaml").read_text() == "new\n"
    assert _mode(shared / "testset.yaml") == 0o664
    assert _temporaries(shared, repo) == []


def test_a_chain_of_links_is_followed_to_the_file(tmp_path: Path):
    (tmp_path / "file.yaml").write_text("old\n")
    os.symlink("file.yaml", tmp_path / "middle.yaml")
    os.symlink(tmp_path / "middle.yaml", tmp_path / "first.yaml")
    write_all([(tmp_path / "first.yaml", "new\n"), (tmp_path / "other.md", "report\n")])
    assert os.readlink(tmp_path / "first.yaml") == str(tmp_path / "middle.yaml")
    assert os.readlink(tmp_path / "middle.yaml") == "file.yaml"
    assert (tmp_path / "file.yaml").read_text() == "new\n"
    assert (tmp_path / "other.md").read_text() == "report\n"


def test_a_dangling_link_creates_the_file_it_names(tmp_path: Path):
    (tmp_path / "shared").mkdir()
    link = tmp_path / "testset.yaml"
    os.symlink("shared/testset.yaml", link)
    check_writable(link)
    write_report(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == "shared/testset.yaml"
    assert (tmp_path / "shared" / "testset.yaml").read_text() == "new\n"


def test_a_dangling_link_into_a_missing_folder_is_refused_and_nothing_is_made(tmp_path: Path):
    link = tmp_path / "testset.yaml"
    os.symlink("unmounted/share/testset.yaml", link)
    for write in (check_writable, lambda path: write_report(path, "new\n")):
        with pytest.raises(InputError) as caught:
            write(link)
        assert str(caught.value) == (
            f"{link}: is a symbolic link to {tmp_path}/unmounted/share/testset.yaml, whose "
            "folder does not exist; create (or mount) it, or remove the link"
        )
    assert sorted(os.listdir(tmp_path)) == ["testset.yaml"]
    assert os.readlink(link) == "unmounted/share/testset.yaml"


def test_a_link_that_loops_is_refused_and_left_as_it_was(tmp_path: Path):
    os.symlink("b.yaml", tmp_path / "a.yaml")
    os.symlink("a.yaml", tmp_path / "b.yaml")
    with pytest.raises(InputError, match="is a symbolic link that loops back on itself"):
        write_report(tmp_path / "a.yaml", "new\n")
    assert os.readlink(tmp_path / "a.yaml") == "b.yaml"
    assert _temporaries(tmp_path) == []


def test_a_failed_write_all_leaves_the_linked_file_and_its_mode_as_they_were(tmp_path: Path):
    (tmp_path / "shared.yaml").write_text("old\n")
    os.chmod(tmp_path / "shared.yaml", 0o660)
    os.symlink("shared.yaml", tmp_path / "link.yaml")
    (tmp_path / "folder").mkdir()
    with pytest.raises(InputError, match="is a directory"):
        write_all([(tmp_path / "link.yaml", "new\n"), (tmp_path / "folder", "x")])
    assert (tmp_path / "shared.yaml").read_text() == "old\n"
    assert _mode(tmp_path / "shared.yaml") == 0o660
    assert _temporaries(tmp_path) == []


def test_the_content_s_own_value_error_is_not_taken_for_a_bad_path(tmp_path: Path):
    def lines():
        yield "a\n"
        raise ValueError("Out of range float values are not JSON compliant")

    with pytest.raises(ValueError, match="not JSON compliant"):
        write_report(tmp_path / "results.json", lines())
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write in any folder")
def test_a_link_into_a_folder_that_cannot_be_written_is_refused_before_any_work(tmp_path: Path):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "testset.yaml").write_text("old\n")
    os.chmod(shared, 0o555)
    os.symlink("shared/testset.yaml", tmp_path / "testset.yaml")
    try:
        with pytest.raises(InputError) as caught:
            check_writable(tmp_path / "testset.yaml")
    finally:
        os.chmod(shared, 0o755)
    assert str(caught.value) == (
        f"{tmp_path}/testset.yaml: cannot write in {shared} (permission denied)"
    )


def test_a_pipe_is_written_in_place_and_stays_a_pipe(tmp_path: Path):
    """``--out /dev/null`` as root replaced the system's /dev/null with a regular file; a
    FIFO stands in for the device here (the same kind of file: not regular)."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so the write can open it
    try:
        write_all([(tmp_path / "report.md", "report\n"), (pipe, "through the pipe\n")])
        received = os.read(reader, 1000)
    finally:
        os.close(reader)
    assert received == b"through the pipe\n"
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert (tmp_path / "report.md").read_text() == "report\n"
    assert _temporaries(tmp_path) == []
