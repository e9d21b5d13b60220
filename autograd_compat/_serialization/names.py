"""The names a PyTorch checkpoint's pickle uses for this library's objects, both ways.

`TORCH_GLOBALS` maps each global that PyTorch's `torch.load(weights_only=True)` allows and
this library supports ("torch._utils._rebuild_tensor_v2", "torch.float32", "torch.FloatStorage",
"collections.OrderedDict", ...) to the object that stands for it here; `torch_name` gives the
name under which `save` writes one of these objects, so real PyTorch reads the file.
"""

from __future__ import annotations

import re
from codecs import encode
from collections import Counter, OrderedDict

from .._pure import device as _device
from .._pure import dtypes as _dtypes
from .._pure.shapes import Size
from .._state.tensor import Tensor
from ..nn.parameter import Parameter
from . import storages


def _encode(text, encoding="utf-8"):
    """`_codecs.encode`, which protocol-2 pickles use for bytes: latin-1 text to bytes only
    (no other codec is reached from a checkpoint)."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise ValueError(f"_codecs.encode of {type(text).__name__} with {encoding!r}")
    return encode(text, "latin1")


def _bytearray(source=b"", *encoding):
    """`bytearray`, which pickles of bytearrays call with their latin-1 text: from text or
    bytes only (never `bytearray(n)`, an allocation of n bytes that a crafted file chooses)."""
    if not isinstance(source, (str, bytes)):
        raise ValueError(f"bytearray of {type(source).__name__}")
    return bytearray(source, *encoding)


TORCH_GLOBALS: dict[str, object] = {
    "collections.OrderedDict": OrderedDict,
    "collections.Counter": Counter,
    "torch.nn.parameter.Parameter": Parameter,
    "torch.Size": Size,
    "torch.Tensor": Tensor,
    "torch.device": _device.device,
    "_codecs.encode": _encode,
    "builtins.bytearray": _bytearray,
    "builtins.set": set,
    "builtins.complex": complex,
    "torch._utils._rebuild_tensor": storages.rebuild_tensor,
    "torch._utils._rebuild_tensor_v2": storages.rebuild_tensor_v2,
    "torch._utils._rebuild_tensor_v3": storages.rebuild_tensor_v3,
    "torch._utils._rebuild_parameter": storages.rebuild_parameter,
    "torch._utils._rebuild_parameter_with_state": storages.rebuild_parameter_with_state,
    "torch._tensor._rebuild_from_type_v2": storages.rebuild_from_type_v2,
    "torch.storage.UntypedStorage": storages.UNTYPED_STORAGE,
    **{f"torch.{d.name}": d for d in _dtypes.ALL},
    **{f"torch.{s.name}": s for s in storages.STORAGE_TYPES.values()},
    **{f"torch.cuda.{s.name}": s for s in storages.STORAGE_TYPES.values()},
}

# Globals PyTorch's weights-only load allows that this library has no counterpart for:
# quantized, sparse, nested, meta and wrapper-subclass tensors, and dtypes it lacks.
_UNSUPPORTED = re.compile(
    r"torch\.(_utils\._rebuild_\w+|(cuda\.)?Q\w*Storage|storage\.TypedStorage|"
    r"(cuda\.|sparse\.|cuda\.sparse\.)?\w*Tensor|per_\w+|serialization\._get_layout|"
    r"q(u?int\w+)|float8_\w+|float4_\w+|bits\w+|u?int[1-7]|uint(16|32|64)|complex32)"
)


def is_unsupported(full_name: str) -> bool:
    """Whether `full_name` is a global PyTorch's weights-only load allows but this library
    cannot load (the error then says so, rather than that the global is unsafe)."""
    return full_name not in TORCH_GLOBALS and _UNSUPPORTED.fullmatch(full_name) is not None


_NAMES = {id(obj): name for name, obj in TORCH_GLOBALS.items() if not name.startswith("torch.cuda")}


def torch_name(obj) -> tuple[str, str] | None:
    """(module, name) under which PyTorch pickles `obj` ("torch", "float32"), for this
    library's objects that stand for PyTorch's; classes and functions of this library are
    named after the PyTorch module they mirror ("autograd_compat.nn.modules.linear" ->
    "torch.nn.modules.linear"). None for anything else (pickled under its own name)."""
    full = _NAMES.get(id(obj))
    if full is not None and full.startswith("torch"):
        module, _, name = full.rpartition(".")
        return module, name
    home = getattr(obj, "__module__", None)
    if full is None and isinstance(home, str) and home.split(".")[0] == "autograd_compat":
        return "torch" + home[len("autograd_compat") :], obj.__qualname__
    return None


def library_module(module: str) -> str:
    """The module of this library that mirrors PyTorch's `module` (a full unpickling maps
    "torch.nn.modules.linear" to "autograd_compat.nn.modules.linear")."""
    if module == "torch" or module.startswith("torch."):
        return "autograd_compat" + module[len("torch") :]
    return module
