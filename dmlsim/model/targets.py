"""``writeFile`` targets: written only inside the output folder, whatever the file says.

A target is a relative path without ``..`` (checked while parsing, so ``validate`` reports it). At
run time every folder on the way is a real folder inside the output folder (a symbolic link there is
refused, not followed), missing folders are created there, and the file itself is opened without
following a symbolic link and without blocking on a FIFO. An existing regular file is overwritten, as
DxDispatch does; anything else already at the target (a link, a FIFO, a folder, a device) is refused.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path, PurePosixPath, PureWindowsPath

from dmlsim.model.errors import Diagnostics, show
from dmlsim.model.loader import Node

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
MAX_TARGET_LENGTH = 1024


def check_target(node: Node, problems: Diagnostics) -> bool:
    """Is ``targetPath`` a relative path that stays inside the output folder? (reported where it is if not)"""
    text = node.value
    reason = None
    if not isinstance(text, str) or not text.strip():
        reason = f"targetPath must be a file name, got {show(text)}"
    elif len(text) > MAX_TARGET_LENGTH or "\0" in text:
        reason = "targetPath must be a file name (no NUL character, at most 1024 characters)"
    elif PurePosixPath(text).is_absolute() or PureWindowsPath(text).is_absolute() or PureWindowsPath(text).drive:
        reason = f"targetPath {show(text)} is absolute: it must be relative to the output folder (-o)"
    elif ".." in PurePosixPath(text.replace("\\", "/")).parts:
        reason = f"targetPath {show(text)} leaves the output folder ('..')"
    elif text.lower().endswith(IMAGE_SUFFIXES):
        reason = "writing images is not supported (use .npy or raw bytes)"
    elif text.endswith(("/", "\\")):
        reason = f"targetPath {show(text)} names a folder, not a file"
    if reason:
        problems.add(node.location, reason)
    return reason is None


def open_target(output_dir: Path, target: str) -> tuple[int, Path]:
    """A file descriptor open for writing (truncated) at ``output_dir/target``, and its path.

    OSError (with a reason a reader understands) when a folder on the way is a link or not a folder, or
    when something other than a regular file is already there.
    """
    parts = PurePosixPath(target.replace("\\", "/")).parts
    if not parts or ".." in parts or PurePosixPath(target).is_absolute():
        raise OSError(f"{target!r} is not inside the output folder")
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    folder = os.open(output_dir, flags)
    try:
        for part in parts[:-1]:
            if part == ".":
                continue
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, dir_fd=folder)
            try:
                inner = os.open(part, flags | getattr(os, "O_NOFOLLOW", 0), dir_fd=folder)
            except OSError as exc:
                raise OSError(f"{part!r} on the way is a symbolic link or not a folder ({exc.strerror})") from None
            os.close(folder)
            folder = inner
        try:
            info = os.lstat(parts[-1], dir_fd=folder)
        except FileNotFoundError:
            info = None
        if info is not None and not stat.S_ISREG(info.st_mode):
            kind = ("a symbolic link" if stat.S_ISLNK(info.st_mode) else "a folder" if stat.S_ISDIR(info.st_mode)
                    else "a FIFO" if stat.S_ISFIFO(info.st_mode) else "not a regular file")
            raise OSError(f"the target exists and is {kind}; only a regular file is overwritten")
        fd = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_NONBLOCK", 0), 0o666, dir_fd=folder)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise OSError("the target is not a regular file")
        os.ftruncate(fd, 0)
        return fd, output_dir.joinpath(*parts)
    finally:
        os.close(folder)
