"""Which public callables dispatch to `__torch_function__`, read from the modules when dispatch
is switched on, so ops added later are covered without a list to edit.

- `torch`, `torch.nn.functional`: every public function defined in an op module (`_ops/`), or
  in the module itself, except the few PyTorch does not dispatch (`_NOT_DISPATCHED`).
- `torch.linalg`, `torch.fft`, `torch.special`: the functions in `__all__`.
- `torch.nn.init`: the four initializers PyTorch dispatches (the others write through Tensor
  methods there; here they write directly, and no mode sees them).
- `torch.Tensor`: every public method, property (its getter and setter) and operator, except
  the ones PyTorch leaves out (`_TENSOR_SKIPPED`). An operator that PyTorch reports as a named
  method (`x + y` as `Tensor.add`) passes that method (`_OPERATOR_AS`).

One function object serving several names (`torch.add` is `Tensor.add`, `torch.greater` is
`torch.gt`) is one entry, named after its first namespace in the order above, and there after
the name it was defined as.
"""

from __future__ import annotations

import re
import sys
import types
from typing import Any, NamedTuple

from .. import fft, linalg, special
from .._state.tensor import Tensor
from ..nn import functional, init

_NOT_DISPATCHED = frozenset({"broadcast_shapes", "is_storage"})
_OP_SOURCES = ("autograd_compat._ops.", "autograd_compat._lowrank")
_INIT_DISPATCHED = ("uniform_", "normal_", "constant_", "kaiming_uniform_")
_TENSOR_SKIPPED = frozenset(
    {
        "__init__",
        "__new__",
        "__init_subclass__",
        "__torch_function__",
        "__iter__",
        "__hash__",
        "__class__",
        "__getattribute__",
        "__setattr__",
        "__delattr__",
        "__dir__",
        "__subclasshook__",
        "__reduce__",
        "__reduce_ex__",
        "as_subclass",
    }
)
_OPERATOR_AS = {
    "__abs__": "abs",
    "__add__": "add",
    "__radd__": "add",
    "__iadd__": "add_",
    "__sub__": "sub",
    "__isub__": "sub_",
    "__mul__": "mul",
    "__rmul__": "mul",
    "__imul__": "mul_",
    "__truediv__": "div",
    "__itruediv__": "div_",
    "__matmul__": "matmul",
    "__mod__": "remainder",
    "__imod__": "remainder_",
    "__ifloordiv__": "floor_divide_",
    "__neg__": "neg",
    "__pos__": "positive",
    "__lt__": "lt",
    "__le__": "le",
    "__gt__": "gt",
    "__ge__": "ge",
    "__ne__": "ne",
    "__rand__": "bitwise_and",
    "__ror__": "bitwise_or",
    "__rxor__": "bitwise_xor",
}
# binary operators: a TypeError while dispatching returns NotImplemented, as PyTorch's do
_BINARY = re.compile(
    r"__[ri]?(add|sub|mul|truediv|floordiv|mod|pow|matmul|and|or|xor|lshift|rshift)__"
    r"|__(eq|ne|lt|le|gt|ge)__"
)


class Entry(NamedTuple):
    """One dispatching callable: `function` is the object whose calls dispatch, `public` what
    a handler receives as `func`, `name` its PyTorch name ("torch.add")."""

    function: Any  # a types.FunctionType (typed Any: mypy reads a function field as a method)
    public: Any
    name: str
    python_style: bool  # PyTorch implements it in Python (its error text differs)
    binary: bool
    module: str | None  # the `__module__` PyTorch gives it (None for Tensor members)


class Namespace(NamedTuple):
    """A public module or class and the names of its dispatching functions."""

    torch_name: str
    owner: Any
    names: tuple[str, ...]


def _op_functions(module: types.ModuleType) -> tuple[str, ...]:
    names = []
    for name, value in vars(module).items():
        if name.startswith("_") or name in _NOT_DISPATCHED:
            continue
        if isinstance(value, types.FunctionType) and (
            value.__module__ == module.__name__ or value.__module__.startswith(_OP_SOURCES)
        ):
            names.append(name)
    return tuple(names)


def _listed(module: types.ModuleType) -> tuple[str, ...]:
    return tuple(n for n in module.__all__ if isinstance(getattr(module, n), types.FunctionType))


def namespaces() -> list[Namespace]:
    """The dispatching module functions, namespace by namespace."""
    package = sys.modules["autograd_compat"]
    return [
        Namespace("torch", package, _op_functions(package)),
        Namespace("torch.nn.functional", functional, _op_functions(functional)),
        Namespace("torch.nn.init", init, _INIT_DISPATCHED),
        Namespace("torch.linalg", linalg, _listed(linalg)),
        Namespace("torch.fft", fft, _listed(fft)),
        Namespace("torch.special", special, _listed(special)),
    ]


def _tensor_members() -> list[tuple[str, Any]]:
    """Tensor's dispatching members, methods before operators."""
    members = [
        (name, value)
        for name, value in vars(Tensor).items()
        if name not in _TENSOR_SKIPPED
        and (not name.startswith("_") or (name.startswith("__") and name.endswith("__")))
    ]
    return sorted(members, key=lambda item: item[0].startswith("__"))


def entries() -> list[Entry]:
    """Every dispatching callable, once per function object."""
    found: dict[int, Entry] = {}

    def add(function, public, name, python_style, module) -> None:
        if isinstance(function, types.FunctionType) and id(function) not in found:
            binary = bool(_BINARY.fullmatch(name.rpartition(".")[2]))
            found[id(function)] = Entry(function, public, name, python_style, binary, module)

    for space in namespaces():
        python_style = space.torch_name in ("torch.nn.functional", "torch.nn.init")
        for name in sorted(space.names, key=lambda n: getattr(space.owner, n).__name__ != n):
            function = getattr(space.owner, name)  # an alias after the name it was made as
            add(function, function, f"{space.torch_name}.{name}", python_style, space.torch_name)
    for name, value in _tensor_members():
        if isinstance(value, property):
            if value.fget is not None:
                add(value.fget, value.__get__, f"torch.Tensor.{name}.__get__", False, None)
            if value.fset is not None:
                add(value.fset, value.__set__, f"torch.Tensor.{name}.__set__", False, None)
        elif isinstance(value, types.FunctionType):
            public = vars(Tensor)[_OPERATOR_AS[name]] if name in _OPERATOR_AS else value
            add(value, public, f"torch.Tensor.{name}", False, None)
    return list(found.values())
