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
"""

from __future__ import annotations

import base64
import io
import json
import math
import os
import zipfile
from collections import OrderedDict

import jax
import numpy as np

from ._pure import device as _device
from ._pure import dtypes as _dtypes
from ._pure.shapes import Size
from ._state.tensor import Tensor

FORMAT = "autograd_compat.checkpoint"
VERSION = 1
MANIFEST = "manifest.json"

_NUMPY_NATIVE = {"float16", "float32", "float64", "complex64", "complex128", "uint8", "int8",
                 "int16", "int32", "int64", "bool"}  # fmt: skip


class _Writer:
    """Turns an object into a JSON-able tree, collecting arrays to store as .npy files."""

    def __init__(self) -> None:
        self.arrays: list = []
        self.tensor_index: dict = {}
        self.keep_alive: list = []

    def array(self, array: np.ndarray, dtype_name: str) -> int:
        if dtype_name not in _NUMPY_NATIVE:
            array = array.view(np.uint16) if array.dtype.itemsize == 2 else array
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
        with open(f, "wb") as handle:
            _write_zip(handle, text, writer.arrays)
    else:
        _write_zip(f, text, writer.arrays)


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
        with self.archive.open(spec["file"]) as member:
            array = np.load(io.BytesIO(member.read()), allow_pickle=False)
        name = spec["dtype"]
        if name not in _NUMPY_NATIVE:
            array = array.view(_dtypes.as_dtype(_dtypes._from_name(name)).jax)
        elif str(array.dtype) != name:
            raise ValueError(f"{spec['file']} holds {array.dtype}, the manifest says {name}")
        if list(array.shape) != list(spec["shape"]):
            raise ValueError(
                f"{spec['file']} has shape {list(array.shape)}, the manifest says {spec['shape']}"
            )
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
    return _load(f, name, device)


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
            manifest = json.loads(archive.read(MANIFEST).decode("utf-8"))
            if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
                raise ValueError("the manifest does not describe an autograd_compat checkpoint")
            if manifest.get("version") != VERSION:
                raise ValueError(f"unsupported checkpoint version {manifest.get('version')!r}")
            specs = manifest["arrays"]
            for spec in specs:
                if spec["file"] not in names:
                    raise ValueError(f"{spec['file']} is missing from the archive")
            return _Reader(archive, specs, device).decode(manifest["root"])
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
