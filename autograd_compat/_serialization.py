"""torch.save / torch.load in a safe format: a zip of .npy arrays plus a JSON manifest.

PyTorch pickles; unpickling can run arbitrary code, so this library never pickles. A checkpoint
is a zip archive holding `manifest.json` (the structure of the saved object: dicts, lists,
tuples, numbers, strings, dtypes, devices, and references to arrays) and one `.npy` file per
tensor, read back with `allow_pickle=False`. Loading only parses JSON and numpy headers, so it
never executes code; a corrupt or truncated file raises a RuntimeError that says so.

Saved: tensors (and Parameters, with requires_grad), numpy arrays and scalars, None, bool,
int, float, complex, str, bytes, list, tuple, dict/OrderedDict (any of these as keys,
state-dict `_metadata` kept), torch.dtype, torch.device, torch.Size. A tensor saved twice is
loaded once and shared, as with PyTorch. Gradients and graphs are not saved.

Robustness: `save` to a path writes a temporary file in the same directory and renames it over
the target, so a save that fails midway leaves the previous checkpoint whole. `load` of a
stream reads the checkpoint that starts at the stream's position and leaves the stream at its
end (several checkpoints saved into one stream load in turn). Before anything is inflated,
each member's declared size must match the manifest's shape and dtype (and fit in memory), the
.npy header must agree with the manifest, and members the manifest does not declare are
refused; nesting deeper than the recursion limit is a RuntimeError like any invalid file.
"""

from __future__ import annotations

import base64
import io
import json
import math
import os
import secrets
import stat
import struct
import sys
import zipfile
from collections import OrderedDict

import jax
import numpy as np

from ._pure import device as _device
from ._pure import dtypes as _dtypes
from ._pure import memory as _memory
from ._pure.shapes import Size
from ._state.tensor import Tensor

FORMAT = "autograd_compat.checkpoint"
VERSION = 1
MANIFEST = "manifest.json"

_MAX_NPY_HEADER = 65536 + 12  # an .npy header (format 1.0: at most 65535 bytes, + magic)
_MAX_MANIFEST_RATIO = 64  # a compressed manifest may inflate this much (and at least 64 MiB)


def _stored_dtype(name) -> np.dtype:
    """The numpy dtype of the .npy payload for the manifest's dtype `name`: bfloat16 is stored
    as its uint16 bits; any other name must be a plain numeric or bool numpy dtype."""
    if name == "bfloat16":
        return np.dtype(np.uint16)
    try:
        stored = np.dtype(name) if isinstance(name, str) else None
    except TypeError:
        stored = None
    if stored is None or stored.kind not in "biufc" or stored.fields or str(stored) != name:
        raise ValueError(f"unsupported array dtype {name!r} in the manifest")
    return stored


class _Writer:
    """Turns an object into a JSON-able tree, collecting arrays to store as .npy files."""

    def __init__(self) -> None:
        self.arrays: list = []
        self.tensor_index: dict = {}
        self.keep_alive: list = []

    def array(self, array: np.ndarray, dtype_name: str) -> int:
        try:
            _stored_dtype(dtype_name)  # refuse what load would refuse
        except ValueError:
            raise TypeError(
                f"autograd_compat.save: arrays of dtype {dtype_name} are not saved (numeric and "
                "bool dtypes are)"
            ) from None
        if dtype_name == "bfloat16":
            array = array.view(np.uint16)
        self.arrays.append((array, dtype_name))
        return len(self.arrays) - 1

    def encode(self, obj):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, Tensor):
            return self.tensor(obj)
        if isinstance(obj, int):
            return obj
        if isinstance(obj, float):
            return obj if math.isfinite(obj) else {"float": repr(obj)}
        if isinstance(obj, complex):
            return {"complex": [repr(obj.real), repr(obj.imag)]}
        if isinstance(obj, _dtypes.dtype):
            return {"dtype": obj.name}
        if isinstance(obj, _device.device):
            return {"device": str(obj)}
        if isinstance(obj, Size):
            return {"size": list(obj)}
        if isinstance(obj, np.ndarray):
            if obj.dtype == object:
                raise TypeError("autograd_compat.save: numpy arrays of dtype object are not saved")
            name = str(obj.dtype)
            return {"ndarray": self.array(np.ascontiguousarray(obj), name), "dtype": name}
        if isinstance(obj, np.generic):
            return {
                "npscalar": self.array(np.asarray(obj), str(obj.dtype)),
                "dtype": str(obj.dtype),
            }
        if isinstance(obj, bytes):
            return {"bytes": base64.b64encode(obj).decode("ascii")}
        if isinstance(obj, tuple):
            return {"tuple": [self.encode(v) for v in obj]}
        if isinstance(obj, list):
            return [self.encode(v) for v in obj]
        if isinstance(obj, dict):
            items = [[self.encode(k), self.encode(v)] for k, v in obj.items()]
            node = {"odict" if isinstance(obj, OrderedDict) else "dict": items}
            metadata = getattr(obj, "_metadata", None)
            if metadata is not None:
                node["metadata"] = self.encode(metadata)
            return node
        raise TypeError(
            f"autograd_compat.save: cannot save an object of type {type(obj).__name__}. Saved "
            "are tensors, numpy arrays, numbers, strings, bytes, None, lists, tuples, dicts, "
            "dtypes, devices and sizes (pickle is never used, so arbitrary objects are not)."
        )

    def tensor(self, t: Tensor):
        from .nn.parameter import Parameter

        index = self.tensor_index.get(id(t))
        if index is None:
            value = t._value
            if isinstance(value, jax.core.Tracer):
                raise RuntimeError("autograd_compat.save: cannot save a tensor inside jax.jit")
            index = self.array(np.asarray(value), t.dtype.name)
            self.tensor_index[id(t)] = index
            self.keep_alive.append(t)
        return {
            "tensor": index,
            "requires_grad": bool(t._requires_grad),
            "parameter": isinstance(t, Parameter),
        }


def _is_path(f) -> bool:
    return isinstance(f, (str, os.PathLike))


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Save `obj` (tensors, state dicts, optimizer states, nested containers) to `f`.

    Args:
        obj: what to save.
        f: a path or a writable binary file object.
        pickle_module, pickle_protocol: accepted for compatibility and ignored (no pickle).

    Example::

        >>> import io
        >>> model = nn.Linear(2, 1)
        >>> buffer = io.BytesIO()  # or a path such as "ckpt.pt"
        >>> torch.save({"model": model.state_dict(), "step": 10}, buffer)
        >>> checkpoint = torch.load(io.BytesIO(buffer.getvalue()))
        >>> checkpoint["step"], list(checkpoint["model"])
        (10, ['weight', 'bias'])
    """
    writer = _Writer()
    root = writer.encode(obj)
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "root": root,
        "arrays": [
            {"file": f"arrays/{i}.npy", "dtype": name, "shape": list(array.shape)}
            for i, (array, name) in enumerate(writer.arrays)
        ],
    }
    text = json.dumps(manifest, allow_nan=False)
    if _is_path(f):
        _write_file(os.fspath(f), text, writer.arrays)
    else:
        _write_zip(f, text, writer.arrays)


def _write_file(path: str, manifest_text: str, arrays: list) -> None:
    """Write the checkpoint to a temporary file beside `path`, then rename it over `path`
    (`os.replace`, atomic): a save that fails midway (full disk, interrupt) leaves the
    previous file whole. The new file gets the old one's permissions, else the umask's."""
    target = os.path.realpath(path)  # replace the file a symlink points to, not the link
    directory, base = os.path.split(target)
    temporary = os.path.join(directory, f".{base}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            _write_zip(handle, manifest_text, arrays)
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


def _write_zip(handle, manifest_text: str, arrays: list) -> None:
    with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(MANIFEST, manifest_text)
        for i, (array, _) in enumerate(arrays):
            buffer = io.BytesIO()
            np.save(buffer, array, allow_pickle=False)
            archive.writestr(f"arrays/{i}.npy", buffer.getvalue())


class _Reader:
    """Rebuilds objects from the manifest, loading each array once."""

    def __init__(self, archive: zipfile.ZipFile, specs: list, device) -> None:
        self.archive = archive
        self.specs = specs
        self.device = device
        self.cache: dict = {}

    def array(self, index) -> np.ndarray:
        if not isinstance(index, int) or not 0 <= index < len(self.specs):
            raise ValueError(f"array reference {index!r} is out of range")
        spec = self.specs[index]
        name, shape = spec["dtype"], spec["shape"]
        stored = _stored_dtype(name)
        if not isinstance(shape, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape
        ):
            raise ValueError(f"{spec['file']}: the manifest's shape {shape!r} is not a shape")
        nbytes = math.prod(shape) * stored.itemsize
        info = self.archive.getinfo(spec["file"])
        # the member's declared size (what decompression may produce) must be the manifest's
        # array plus an .npy header: nothing is inflated before this check
        if not nbytes <= info.file_size <= nbytes + _MAX_NPY_HEADER:
            raise ValueError(
                f"{spec['file']} declares {info.file_size} bytes, but the manifest's "
                f"{name} array of shape {shape} takes {nbytes} bytes"
            )
        if nbytes > _memory.host_bytes():
            raise ValueError(
                f"{spec['file']}: the manifest's {name} array of shape {shape} takes {nbytes} "
                f"bytes, more than this machine's memory ({_memory.host_bytes()} bytes)"
            )
        with self.archive.open(info) as member:
            version = np.lib.format.read_magic(member)
            if version == (1, 0):
                header = np.lib.format.read_array_header_1_0(member)
            elif version == (2, 0):
                header = np.lib.format.read_array_header_2_0(member)
            else:
                raise ValueError(f"{spec['file']}: unsupported .npy version {version}")
            npy_shape, fortran_order, npy_dtype = header
            if npy_dtype != stored:
                raise ValueError(
                    f"{spec['file']} holds {npy_dtype}, the manifest says {name} (stored as "
                    f"{stored})"
                )
            if list(npy_shape) != list(shape):
                raise ValueError(
                    f"{spec['file']} has shape {list(npy_shape)}, the manifest says {shape}"
                )
            data = member.read(nbytes)
            if len(data) != nbytes or member.read(1):  # the last read checks the CRC
                raise ValueError(f"{spec['file']} does not hold {nbytes} bytes of data")
        array = np.frombuffer(data, stored).reshape(shape, order="F" if fortran_order else "C")
        if name == "bfloat16":
            array = array.view(_dtypes.bfloat16.jax)
        return array

    def tensor(self, node: dict) -> Tensor:
        from .nn.parameter import Parameter

        index = node["tensor"]
        key = ("tensor", index, node.get("parameter", False))
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        array = self.array(index)
        if self.device is not None:
            value = jax.device_put(array, _device.to_jax(self.device))
        else:
            value = jax.device_put(array)
        t = Tensor._wrap(value)
        requires_grad = bool(node.get("requires_grad", False))
        if node.get("parameter", False):
            t = Parameter(t, requires_grad=requires_grad)
        elif requires_grad:
            t._requires_grad = True
        self.cache[key] = t
        return t

    def decode(self, node):
        if node is None or isinstance(node, (bool, str, int, float)):
            return node
        if isinstance(node, list):
            return [self.decode(v) for v in node]
        if not isinstance(node, dict) or len(node) == 0:
            raise ValueError(f"unexpected manifest entry {node!r}")
        if "tensor" in node:
            return self.tensor(node)
        if "float" in node:
            return float(node["float"])
        if "complex" in node:
            return complex(float(node["complex"][0]), float(node["complex"][1]))
        if "dtype" in node and len(node) == 1:
            return _dtypes._from_name(node["dtype"])
        if "device" in node:
            return _device.device(node["device"])
        if "size" in node:
            return Size(int(s) for s in node["size"])
        if "ndarray" in node:
            return self.array(node["ndarray"]).copy()
        if "npscalar" in node:
            return self.array(node["npscalar"])[()]
        if "bytes" in node:
            return base64.b64decode(node["bytes"])
        if "tuple" in node:
            return tuple(self.decode(v) for v in node["tuple"])
        if "dict" in node or "odict" in node:
            kind = "odict" if "odict" in node else "dict"
            result = OrderedDict() if kind == "odict" else {}
            for key, value in node[kind]:
                key = self.decode(key)
                if isinstance(key, list):
                    raise ValueError("a dict key cannot be a list")
                result[key] = self.decode(value)
            if "metadata" in node:
                result._metadata = self.decode(node["metadata"])
            return result
        raise ValueError(f"unexpected manifest entry with keys {sorted(node)}")


def _read_manifest(archive: zipfile.ZipFile) -> bytes:
    """The manifest's bytes, refused before inflating if it declares far more than it holds."""
    info = archive.getinfo(MANIFEST)
    limit = max(64 * 2**20, _MAX_MANIFEST_RATIO * info.compress_size)
    if info.file_size > limit:
        raise ValueError(
            f"{MANIFEST} declares {info.file_size} bytes in {info.compress_size} compressed "
            f"(at most {limit} are read)"
        )
    with archive.open(info) as member:
        return member.read(info.file_size)


def _describe(f) -> str:
    if _is_path(f):
        return f"'{os.fspath(f)}'"
    return getattr(f, "name", None) and f"'{f.name}'" or "the given file object"


def _map_location_device(map_location):
    if map_location is None:
        return None
    if isinstance(map_location, (str, _device.device)):
        return _device.device(map_location)
    if isinstance(map_location, dict):
        targets = {str(v) for v in map_location.values()}
        return _device.device(targets.pop()) if len(targets) == 1 else None
    raise NotImplementedError(
        "autograd_compat.load: a callable map_location is not supported (tensors are not "
        "saved with a device); pass a device or a device string"
    )


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **kwargs):
    """Load an object saved by `save` (never unpickles, never runs code).

    Args:
        f: a path or a readable, seekable binary file object.
        map_location: a device (or device string) to put the tensors on.
        pickle_module, weights_only, mmap: accepted for compatibility; loading is always safe.

    Raises:
        RuntimeError: if `f` is not a valid checkpoint (corrupt, truncated, a PyTorch pickle).
    """
    device = _map_location_device(map_location)
    name = _describe(f)
    if _is_path(f):
        if not os.path.exists(f):
            raise FileNotFoundError(f"[Errno 2] No such file or directory: '{os.fspath(f)}'")
        with open(f, "rb") as handle:
            return _load(handle, name, device)
    # a stream is read from where it stands (several checkpoints saved one after another into
    # one stream load in turn) and left at the end of the checkpoint read
    try:
        start = f.tell()
        length = _zip_length(f, start)
    except (OSError, AttributeError, ValueError, struct.error):
        return _load(f, name, device)
    result = _load(_Window(f, start, length), name, device)
    if length is not None:
        f.seek(start + length)
    return result


_LOCAL, _CENTRAL = b"PK\x03\x04", b"PK\x01\x02"
_END64, _LOCATOR64, _END = b"PK\x06\x06", b"PK\x06\x07", b"PK\x05\x06"


def _zip_length(handle, start: int) -> int | None:
    """The length of the zip archive that starts at `start` in `handle`, walked record by
    record (headers only); None where the walk cannot tell (a member written with a data
    descriptor): then the archive is taken to run to the end of the stream."""
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


class _Window(io.RawIOBase):
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


def _load(handle, name: str, device):
    try:
        archive = zipfile.ZipFile(handle)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
        raise RuntimeError(
            f"autograd_compat.load: {name} is not a valid checkpoint (not a complete zip "
            f"archive: {error}); the file may be truncated or corrupt"
        ) from None
    with archive:
        names = set(archive.namelist())
        if MANIFEST not in names:
            if any(n.endswith("data.pkl") for n in names):
                raise RuntimeError(
                    f"autograd_compat.load: {name} was written by PyTorch's torch.save, which "
                    "pickles; autograd_compat never unpickles (it could run code). Convert it "
                    "once with real PyTorch, e.g. save {k: v.numpy()} with numpy.savez, and load "
                    "that with torch.from_numpy."
                )
            raise RuntimeError(
                f"autograd_compat.load: {name} is not a valid checkpoint (no {MANIFEST} in the "
                "archive)"
            )
        try:
            manifest = json.loads(_read_manifest(archive).decode("utf-8"))
            if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
                raise ValueError("the manifest does not describe an autograd_compat checkpoint")
            if manifest.get("version") != VERSION:
                raise ValueError(f"unsupported checkpoint version {manifest.get('version')!r}")
            specs = manifest["arrays"]
            for spec in specs:
                if spec["file"] not in names:
                    raise ValueError(f"{spec['file']} is missing from the archive")
            undeclared = names - {MANIFEST} - {spec["file"] for spec in specs}
            if undeclared:
                raise ValueError(
                    f"the archive holds {sorted(undeclared)[0]}, which the manifest does not "
                    "declare"
                )
            return _Reader(archive, specs, device).decode(manifest["root"])
        except RecursionError:
            raise RuntimeError(
                f"autograd_compat.load: {name} is not a valid checkpoint (its objects are "
                f"nested deeper than Python's recursion limit, {sys.getrecursionlimit()})"
            ) from None
        except (
            zipfile.BadZipFile,
            json.JSONDecodeError,
            UnicodeDecodeError,
            KeyError,
            TypeError,
            ValueError,
            OSError,
            EOFError,
        ) as error:
            raise RuntimeError(
                f"autograd_compat.load: {name} is not a valid checkpoint ({type(error).__name__}: "
                f"{error}); the file may be truncated or corrupt"
            ) from None
