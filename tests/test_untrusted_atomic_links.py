"""Outputs through links in a sticky, world-writable folder (issue 30):
atomic_path follows a link itself (to replace the file it names), so the
kernel's fs.protected_symlinks never sees it; the same rule is applied
here. Another user's link in /tmp-like folders is refused with one line
naming it; the user's own links, the folder owner's, and links in other
folders are followed as before.

The rule is tested on stat results everywhere; the files themselves with
os.lchown where the tests run as root (the project's machines do)."""
from __future__ import annotations

import os
import stat
from types import SimpleNamespace

import pytest

from roofline.core.atomic import followed, may_follow, write_text_atomic
from roofline.core.errors import RooflineError

ME, OTHER, THIRD = 1000, 1001, 1002
STICKY_SHARED = stat.S_IFDIR | stat.S_ISVTX | 0o777
as_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                             reason="changing a link's owner needs root (the rule itself is tested on stat results)")


def _st(uid, mode=stat.S_IFLNK | 0o777):
    return SimpleNamespace(st_uid=uid, st_mode=mode)


@pytest.mark.parametrize("link_owner, folder_owner, folder_mode, allowed", [
    (OTHER, THIRD, STICKY_SHARED, False),                            # /tmp: another user's link
    (OTHER, ME, STICKY_SHARED, False),                               # even in my own sticky folder
    (ME, THIRD, STICKY_SHARED, True),                                # my own link
    (OTHER, OTHER, STICKY_SHARED, True),                             # the folder owner's link
    (OTHER, THIRD, stat.S_IFDIR | 0o777, True),                      # not sticky
    (OTHER, THIRD, stat.S_IFDIR | stat.S_ISVTX | 0o775, True),       # sticky, not world-writable
])
def test_the_kernels_rule(link_owner, folder_owner, folder_mode, allowed):
    assert may_follow(_st(link_owner), _st(folder_owner, folder_mode), ME) is allowed


@pytest.fixture
def shared(tmp_path):
    """A sticky, world-writable folder (like /tmp), and a file of mine elsewhere."""
    folder = tmp_path / "shared"
    folder.mkdir()
    os.chmod(folder, 0o1777)
    victim = tmp_path / "mine" / "precious.txt"
    victim.parent.mkdir()
    victim.write_text("precious")
    return folder, victim


@as_root
def test_another_users_link_in_a_sticky_folder_is_refused(shared):
    folder, victim = shared
    link = folder / "report.csv"
    link.symlink_to(victim)
    os.lchown(link, OTHER, OTHER)
    with pytest.raises(RooflineError) as info:
        write_text_atomic(link, "overwritten")
    message = str(info.value)
    assert message.startswith(f"{link}: refusing to write through {link}") and "\n" not in message
    assert f"user {OTHER}" in message and "protected_symlinks" in message
    assert victim.read_text() == "precious" and link.is_symlink()
    assert sorted(p.name for p in victim.parent.iterdir()) == ["precious.txt"]   # no temporary file left


@as_root
def test_a_link_in_the_path_and_a_chain_of_links_are_checked_too(shared, tmp_path):
    folder, victim = shared
    hop = folder / "dir"                            # another user's link to a folder, in the path
    hop.symlink_to(victim.parent, target_is_directory=True)
    os.lchown(hop, OTHER, OTHER)
    with pytest.raises(RooflineError, match="refusing to write through"):
        write_text_atomic(hop / "precious.txt", "overwritten")
    second = folder / "second"                      # mine -> theirs (in the sticky folder) -> my file
    second.symlink_to(victim)
    os.lchown(second, OTHER, OTHER)
    first = tmp_path / "first.csv"
    first.symlink_to(second)
    with pytest.raises(RooflineError, match=f"refusing to write through {second}"):
        write_text_atomic(first, "overwritten")
    assert victim.read_text() == "precious"


@as_root
def test_the_folder_owners_link_and_my_own_are_followed(shared):
    folder, victim = shared
    mine = folder / "mine.csv"
    mine.symlink_to(victim)                         # made by me (root): mine
    write_text_atomic(mine, "one")
    assert victim.read_text() == "one" and mine.is_symlink()
    os.chown(folder, OTHER, OTHER)
    theirs = folder / "theirs.csv"
    theirs.symlink_to(victim)
    os.lchown(theirs, OTHER, OTHER)                 # the folder's owner's link
    write_text_atomic(theirs, "two")
    assert victim.read_text() == "two"


@as_root
def test_another_users_link_outside_sticky_folders_is_followed(tmp_path):
    folder = tmp_path / "plain"
    folder.mkdir()
    os.chmod(folder, 0o777)
    victim = tmp_path / "out.txt"
    victim.write_text("old")
    link = folder / "out.txt"
    link.symlink_to(victim)
    os.lchown(link, OTHER, OTHER)
    write_text_atomic(link, "new")
    assert victim.read_text() == "new"


def test_followed_is_realpath_where_nothing_is_refused(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "l").symlink_to("a/b")
    (tmp_path / "a" / "b" / "up").symlink_to("../../c")
    for p in ["l/..", "l/up", "l/up/../a/b/up/x", "l/./up/", "new/x"]:
        assert str(followed(tmp_path / p)) == os.path.realpath(tmp_path / p)
    (tmp_path / "loop1").symlink_to("loop2")
    (tmp_path / "loop2").symlink_to("loop1")
    with pytest.raises(RooflineError, match="too many levels of symbolic links"):
        write_text_atomic(tmp_path / "loop1", "x")
