"""Reading and writing the user's files safely: PEP 263 encodings, atomic replaces, symlinks that
point out of the tree, and one-line messages for OS errors.

Every file the converter writes goes through :func:`atomic_write`: the bytes go to a temporary file
in the target's own directory, which then replaces the target with ``os.replace``. A reader (or a
crash) sees the old file or the new one, never half of one, and an existing file keeps its
permissions.
"""
from __future__ import annotations

import errno
import io
import os
import secrets
import tokenize
from pathlib import Path

# What to do about each OS error, as the end of a one-line message.
_ADVICE = {
    errno.EACCES: "check its permissions",
    errno.EPERM: "check its permissions",
    errno.EROFS: "it is on a read-only file system: choose another location",
    errno.ENOENT: "a dangling symlink? fix or remove it",
    errno.ENOTDIR: "a part of the path is a file, not a directory: choose another path",
    errno.EISDIR: "it is a directory, not a file",
    errno.ENOSPC: "the disk is full: free some space",
    errno.EDQUOT: "the disk quota is exceeded: free some space",
    errno.ELOOP: "it is a symlink loop: fix or remove it",
    errno.ENAMETOOLONG: "the name is too long",
    errno.EEXIST: "it already exists",
}


def os_error_message(exc: OSError, path, doing: str) -> str:
    """Return a one-line message for an OS error: what failed, on which path, and what to do.

    Args:
        exc: the error raised by the OS call.
        path: the path the call was about.
        doing: the action, as a verb phrase ("read", "write", "create the directory").

    Returns:
        e.g. ``cannot write out/m.py: Permission denied; check its permissions``.

    Example:
        >>> os_error_message(PermissionError(13, "Permission denied"), "out/m.py", "write")
        'cannot write out/m.py: Permission denied; check its permissions'
    """
    reason = exc.strerror or str(exc) or type(exc).__name__
    advice = _ADVICE.get(exc.errno)
    return f"cannot {doing} {path}: {reason}" + (f"; {advice}" if advice else "")


# ---- reading and writing source text ---------------------------------------------------------
class SourceError(ValueError):
    """A source file whose bytes cannot be decoded as its declared (or the default) encoding."""


def decode_source(raw: bytes) -> tuple[str, str]:
    """Decode Python source bytes as the interpreter does (PEP 263 cookie, UTF-8 BOM, else UTF-8).

    Args:
        raw: the file's bytes.

    Returns:
        (text, encoding); ``encode_source(text, encoding) == raw`` for every file this accepts.

    Raises:
        SourceError: an unknown encoding in the cookie, or bytes that are not in the encoding.

    Example:
        >>> decode_source(b"# -*- coding: latin-1 -*-\\nname = '\\xe9'\\n")
        ("# -*- coding: latin-1 -*-\\nname = 'é'\\n", 'iso-8859-1')
    """
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise SourceError("UTF-16/UTF-32 text (Python source is UTF-8 or declares an 8-bit "
                          "encoding): re-encode the file as UTF-8")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as exc:  # unknown codec in the cookie, or a BOM that contradicts it
        raise SourceError(f"{exc.msg}: fix the coding declaration") from None
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        if encoding in ("utf-8", "utf-8-sig") and b"coding" not in raw[:400]:
            raise SourceError(f"not UTF-8 (byte {exc.start}) and no coding declaration: re-encode the "
                              f"file as UTF-8 or add '# -*- coding: NAME -*-' on line 1 or 2") from None
        raise SourceError(f"not valid {encoding} (byte {exc.start}), the file's declared encoding: "
                          f"fix the bytes or the coding declaration") from None
    if encoding == "utf-8-sig" and text.startswith("\ufeff"):
        text = text[1:]  # some codecs leave the BOM: the source itself never holds it
    return text, encoding


def encode_source(text: str, encoding: str) -> bytes:
    """Encode source text back to bytes in ``encoding`` (``utf-8-sig`` writes the BOM again).

    Raises:
        SourceError: the text holds characters the encoding cannot represent.
    """
    try:
        return text.encode(encoding)
    except UnicodeEncodeError as exc:
        raise SourceError(f"the converted code has {exc.object[exc.start]!r}, which {encoding} cannot "
                          f"represent: re-encode the file as UTF-8") from None


def atomic_write(path, data: bytes, mode: int | None = None, durable: bool = False) -> None:
    """Replace ``path`` with ``data`` atomically: write a temporary file in the same directory, then
    ``os.replace`` it over the target (a symlink at ``path`` is replaced, never written through).

    Args:
        path: the file to create or replace; its directory must exist.
        data: the new contents.
        mode: permission bits for the file; by default an existing file's, else the umask's.
        durable: fsync the data before the rename (for files replaced in place, whose old
            contents would otherwise be at risk on a power loss).

    Raises:
        OSError: the temporary file could not be written or renamed (nothing is left behind).

    Example:
        >>> atomic_write("out/model.py", b"x = 1\\n")  # doctest: +SKIP
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if mode is None:
        try:
            mode = os.lstat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = None
    tmp = fd = None
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = os.path.join(directory, f".{os.path.basename(path)}.{secrets.token_hex(8)}.tmp")
        try:
            fd = os.open(tmp, flags, 0o666)
            break
        except FileExistsError:
            continue
    if fd is None:
        raise FileExistsError(errno.EEXIST, "no free temporary file name", directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_copy(src, dst) -> None:
    """Copy the file ``src`` (symlinks followed) to ``dst`` with its permission bits and times, by
    an atomic replace as :func:`atomic_write` does.

    Raises:
        OSError: with ``filename`` set to ``src`` when reading failed, else to ``dst``.
    """
    import shutil
    src, dst = os.fspath(src), os.fspath(dst)
    with open(src, "rb") as fin:
        directory = os.path.dirname(os.path.abspath(dst))
        tmp = os.path.join(directory, f".{os.path.basename(dst)}.{secrets.token_hex(8)}.tmp")
        try:
            try:
                with open(tmp, "xb") as fout:
                    shutil.copyfileobj(fin, fout, 1 << 20)
                shutil.copystat(src, tmp)
                os.replace(tmp, dst)
            except OSError as exc:
                if exc.filename != src:
                    exc.filename = dst
                raise
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise


def is_temp_name(name: str) -> bool:
    """True for a temporary file that :func:`atomic_write` left behind (``.NAME.<16 hex>.tmp``)."""
    if not (name.startswith(".") and name.endswith(".tmp")):
        return False
    stem = name[1:-4]
    token = stem.rpartition(".")[2]
    return len(token) == 16 and all(c in "0123456789abcdef" for c in token)


# ---- where a path really points -------------------------------------------------------------
def is_within(path, root) -> bool:
    """True when ``path`` (symlinks resolved) is ``root`` or lies under it (symlinks resolved)."""
    try:
        real, base = Path(os.path.realpath(path)), Path(os.path.realpath(root))
    except (OSError, RuntimeError, ValueError):
        return False
    return real == base or base in real.parents


def writable_dir_error(directory) -> str | None:
    """Create ``directory`` (with parents) and prove a file can be written in it.

    Returns:
        None when it can, else a one-line message naming the path and what to do.
    """
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        return f"cannot use {directory} as a directory: it is a file (choose another path)"
    except OSError as exc:
        return os_error_message(exc, directory, "create the directory")
    probe = directory / f".migrate-probe.{secrets.token_hex(8)}.tmp"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return os_error_message(exc, directory, "write in")
    return None
