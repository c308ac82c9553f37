"""Root's only ways to touch a file (issue 54: root never follows, loads or decodes what a
student-run process could create).

- `read_regular`: a file opened without following a link (from a folder opened the same
  way), only a regular file, of the owner asked for, read up to a bound counted before the
  read: never a FIFO that blocks, /dev/zero that never ends, or a link to someone else's file.
- `open_folder`: a folder opened component by component, none of them a link.
- `write_atomic`: a result written into a folder only root can write (checked on the open
  folder), as a new file renamed over the old one: whatever stood at that name, a link
  included, is replaced, never written through; a reader sees the old file or the new one.

Written by hand: the standard library's pathlib and shutil follow links by design.
"""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


def open_folder(top: Path | str, relative: Path | str = "", *, dir_fd: int | None = None) -> int | None:
    """`top`/`relative` opened as a folder, each component of `relative` (and `top` itself
    when `dir_fd` is given: then relative to it) without following a link; None when it is
    not there or is not a folder."""
    try:
        fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY | (os.O_NOFOLLOW if dir_fd is not None else 0),
                     dir_fd=dir_fd)
    except OSError:
        return None
    for part in Path(relative).parts:
        try:
            fd, parent = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd), fd
        except OSError:
            os.close(fd)
            return None
        os.close(parent)
    return fd


def read_regular(name: str | Path, max_bytes: int, *, dir_fd: int | None = None,
                 owner: int | None = None) -> tuple[bytes | None, str]:
    """The bytes of `name` (in the folder open as `dir_fd`, or a path whose last component is
    not followed) when it is a regular file (owned by `owner`, when given) of at most
    `max_bytes`; else None and why not, in words."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError as exc:   # ELOOP: a symbolic link
        return None, "it is a symbolic link" if exc.errno == errno.ELOOP else f"it could not be opened ({exc.strerror})"
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode) or (owner is not None and info.st_uid != owner):
            return None, "it is not a file the notebook wrote" if owner is not None else "it is not a regular file"
        if info.st_size > max_bytes:
            return None, f"it is larger than the {max_bytes >> 20} MB the grader reads"
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        return None, f"it is larger than the {max_bytes >> 20} MB the grader reads"
    return data, ""


class UnsafeFolder(RuntimeError):
    """A folder root was to write in is a link, or others may write in it."""


def write_atomic(folder: Path, name: str, data: bytes, mode: int = 0o644) -> None:
    """`data` as `folder`/`name`, `folder` made (0755) when missing; refuses a folder that is a
    link, is not this user's, or others may write in."""
    try:
        os.mkdir(folder, 0o755)
    except FileExistsError:
        pass
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as exc:
        raise UnsafeFolder(f"{folder} cannot be opened as a folder of its own ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if info.st_uid != os.geteuid() or info.st_mode & 0o022:
            raise UnsafeFolder(f"{folder} is not {os.geteuid()}'s alone (owner {info.st_uid}, "
                               f"mode {stat.S_IMODE(info.st_mode):o})")
        temporary = f".{name}.{os.getpid()}.tmp"
        with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
                               mode, dir_fd=fd), "wb") as f:
            f.write(data)
        os.replace(temporary, name, src_dir_fd=fd, dst_dir_fd=fd)
    finally:
        os.close(fd)
