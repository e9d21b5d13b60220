"""The zip archive of a checkpoint: opened safely, records read with their sizes checked before
anything is inflated, written as PyTorch writes them, and saved to a path atomically.

A stream is read from where it stands: `window` gives the archive that starts there (several
checkpoints written one after another into one stream by earlier versions of this library load
in turn) and `load` leaves the stream at its end.
"""

from __future__ import annotations

import io
import os
import re
import secrets
import stat
import struct
import zipfile
from collections.abc import Callable, Iterable

from .._pure import memory as _memory

ALIGNMENT = 64  # PyTorch aligns each record's data to 64 bytes (`.storage_alignment`)
_PADDING_ID = 0x4246  # the extra field PyTorch pads with ("FB")


def describe(f) -> str:
    """How messages name a checkpoint: its path, else the file object's name."""
    if isinstance(f, (str, os.PathLike)):
        return f"'{os.fspath(f)}'"
    name = getattr(f, "name", None)
    return f"'{name}'" if name else "the given file object"


def invalid(name: str, reason: str) -> RuntimeError:
    """The error for a file that is not a checkpoint this library can read."""
    return RuntimeError(f"autograd_compat.load: {name} is not a valid checkpoint ({reason})")


def corrupt(name: str, error: BaseException) -> RuntimeError:
    """The error for a checkpoint whose contents are damaged (`error` says where)."""
    return RuntimeError(
        f"autograd_compat.load: {name} is not a valid checkpoint ({type(error).__name__}: "
        f"{error}); the file may be truncated or corrupt"
    )


def open_zip(handle, name: str) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(handle)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
        raise RuntimeError(
            f"autograd_compat.load: {name} is not a valid checkpoint (not a complete zip "
            f"archive: {error}); the file may be truncated or corrupt"
        ) from None


def read_record(archive: zipfile.ZipFile, info: zipfile.ZipInfo, size: int | None = None) -> bytes:
    """A record's bytes. Its declared size (what decompression may produce) is checked first:
    it must be `size` when given, fit in memory, and be at most 64 times the compressed size
    (or 64 MiB) for records of unknown size; nothing is inflated before."""
    declared = info.file_size
    if size is not None and declared != size:
        raise ValueError(f"{info.filename} declares {declared} bytes, but it holds {size}")
    limit = max(64 * 2**20, 64 * info.compress_size) if size is None else size
    if declared > min(limit, _memory.host_bytes()):
        raise ValueError(
            f"{info.filename} declares {declared} bytes in {info.compress_size} compressed (at "
            f"most {min(limit, _memory.host_bytes())} are read)"
        )
    with archive.open(info) as member:
        data = member.read(declared)
        if len(data) != declared or member.read(1):  # the last read checks the CRC
            raise ValueError(f"{info.filename} does not hold {declared} bytes")
    return data


# ----------------------------------------------------------------------------- writing
def write_records(handle, records: Iterable[tuple[str, bytes | memoryview]]) -> None:
    """A zip archive of uncompressed `records` (name, data), each record's data aligned to
    64 bytes from the archive's start by padding its local header, as PyTorch's writer does."""
    with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_STORED) as archive:
        start = archive.fp.tell() if archive.fp is not None else 0
        for name, data in records:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            size = len(data) if isinstance(data, bytes) else data.nbytes
            zip64 = size * 1.05 > zipfile.ZIP64_LIMIT  # zipfile's own rule for a zip64 header
            position = (archive.fp.tell() if archive.fp is not None else 0) - start
            header = 30 + len(name.encode("utf-8")) + 4 + (20 if zip64 else 0)
            info.extra = struct.pack("<HH", _PADDING_ID, -(position + header) % ALIGNMENT)
            info.extra += b"Z" * (-(position + header) % ALIGNMENT)
            info.file_size = size
            with archive.open(info, "w", force_zip64=zip64) as member:
                member.write(data)


def _remove_stale_temporaries(directory: str, base: str) -> None:
    """Remove the temporary files that writers of `base` killed mid-save left (a save's
    temporary is named after its process): those whose process no longer runs, and only
    those, so a save running in another process keeps its file."""
    pattern = re.compile(rf"\.{re.escape(base)}\.(\d+)\.[0-9a-f]{{8}}\.tmp")
    try:
        names = os.listdir(directory or ".")
    except OSError:
        return
    for name in names:
        match = pattern.fullmatch(name)
        if match is None or _process_runs(int(match.group(1))):
            continue
        try:
            os.unlink(os.path.join(directory, name))
        except OSError:
            pass


def _process_runs(pid: int) -> bool:
    """Whether process `pid` exists (a process we may not signal exists too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def write_atomically(path: str, write: Callable) -> None:
    """`write(file)` into a temporary file beside `path`, then renamed over it (`os.replace`,
    atomic): a save that fails midway (full disk, interrupt) leaves the previous file whole.
    The new file gets the old one's permissions, else the umask's."""
    target = os.path.realpath(path)  # replace the file a symlink points to, not the link
    directory, base = os.path.split(target)
    _remove_stale_temporaries(directory, base)
    temporary = os.path.join(directory, f".{base}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        if os.path.exists(target):
            os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


# ----------------------------------------------------------------------------- one of a stream
_LOCAL, _CENTRAL = b"PK\x03\x04", b"PK\x01\x02"
_END64, _LOCATOR64, _END = b"PK\x06\x06", b"PK\x06\x07", b"PK\x05\x06"


def window(f) -> tuple[object, int | None]:
    """The archive that starts at `f`'s position, as a file of its own, and its length (None
    where it runs to the end of the stream, or `f` itself where `f` cannot seek)."""
    try:
        start = f.tell()
        length = _zip_length(f, start)
    except (OSError, AttributeError, ValueError, struct.error):
        return f, None
    return Window(f, start, length), length


def _zip_length(handle, start: int) -> int | None:
    """The length of the zip archive that starts at `start` in `handle`, walked record by
    record (headers only); None where the walk cannot tell (a member written with a data
    descriptor, as PyTorch writes them): then the archive runs to the end of the stream."""
    position = start
    while True:
        handle.seek(position)
        signature = handle.read(4)
        if signature == _LOCAL:
            header = handle.read(26)
            flags, compressed, name_length, extra_length = struct.unpack("<2xH10xI4xHH", header)
            if flags & 0x08:
                return None
            extra = handle.read(name_length + extra_length)[name_length:]
            if compressed == 0xFFFFFFFF:  # zip64: the sizes are in the extra field
                compressed = _zip64_compressed_size(header, extra)
            position += 30 + name_length + extra_length + compressed
        elif signature == _CENTRAL:
            lengths = struct.unpack("<HHH", handle.read(42)[24:30])
            position += 46 + sum(lengths)
        elif signature == _END64:
            (size,) = struct.unpack("<Q", handle.read(8))
            position += 12 + size
        elif signature == _LOCATOR64:
            position += 20
        elif signature == _END:
            (comment_length,) = struct.unpack("<H", handle.read(18)[16:18])
            return position + 22 + comment_length - start
        else:
            return None


def _zip64_compressed_size(header: bytes, extra: bytes) -> int:
    """A zip64 local header's compressed size, from its extra field (id 1)."""
    uncompressed = struct.unpack("<14xI8x", header)[0]
    offset = 0
    while offset + 4 <= len(extra):
        kind, size = struct.unpack("<HH", extra[offset : offset + 4])
        if kind == 1:
            values = extra[offset + 4 : offset + 4 + size]
            skip = 8 if uncompressed == 0xFFFFFFFF else 0
            return struct.unpack("<Q", values[skip : skip + 8])[0]
        offset += 4 + size
    raise ValueError("a zip64 member without its sizes")


class Window(io.RawIOBase):
    """`length` bytes of `raw` from `start` (to its end when `length` is None), as a seekable
    file of their own: what zipfile reads one checkpoint of a stream through."""

    def __init__(self, raw, start: int, length: int | None) -> None:
        super().__init__()
        self.raw, self.start, self.position = raw, start, 0
        if length is None:
            length = raw.seek(0, os.SEEK_END) - start
        self.length = length
        self.name = getattr(raw, "name", None)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self.position, os.SEEK_END: self.length}[whence]
        self.position = max(0, base + offset)
        return self.position

    def readinto(self, buffer) -> int:
        size = max(0, min(len(buffer), self.length - self.position))
        self.raw.seek(self.start + self.position)
        data = self.raw.read(size)
        buffer[: len(data)] = data
        self.position += len(data)
        return len(data)
