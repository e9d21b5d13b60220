"""Checkpoints written by earlier versions of this library: a zip of .npy arrays plus a JSON
manifest (`manifest.json`, format "autograd_compat.checkpoint", version 1).

Loading only parses JSON and numpy headers, so it never executes code. Before anything is
inflated, each member's declared size must match the manifest's shape and dtype (and fit in
memory), the .npy header must agree with the manifest, and members the manifest does not
declare are refused.
"""

from __future__ import annotations

import base64
import json
import math
import zipfile
from collections import OrderedDict

import jax
import numpy as np

from .._pure import device as _device
from .._pure import dtypes as _dtypes
from .._pure import memory as _memory
from .._pure.shapes import Size
from .._state.tensor import Tensor
from ..nn.parameter import Parameter
from .archive import read_record

FORMAT = "autograd_compat.checkpoint"
VERSION = 1
MANIFEST = "manifest.json"

_MAX_NPY_HEADER = 65536 + 12  # an .npy header (format 1.0: at most 65535 bytes, + magic)


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
        index = node["tensor"]
        key = ("tensor", index, node.get("parameter", False))
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        array = self.array(index)
        if self.device is not None:
            value = _device.commit(array, _device.to_jax(self.device))
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


def load(archive: zipfile.ZipFile, device):
    """The object of a checkpoint in this library's former format (`archive` holds
    `manifest.json`); ValueError, KeyError or TypeError where it is not a valid one."""
    names = set(archive.namelist())
    manifest = json.loads(read_record(archive, archive.getinfo(MANIFEST)).decode("utf-8"))
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
            f"the archive holds {sorted(undeclared)[0]}, which the manifest does not declare"
        )
    return _Reader(archive, specs, device).decode(manifest["root"])
