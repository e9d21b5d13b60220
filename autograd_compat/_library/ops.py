"""torch.ops: operators by namespace (`torch.ops.mylib.foo`), resolved in the op registry.

`torch.ops.<ns>.<name>` is an `OpOverloadPacket` for ops defined or registered through
torch.library; `torch.ops.aten.<name>` names PyTorch's built-in op of that name, run by this
library's function of the same name (`torch.ops.aten.mm(a, b)` is `torch.mm(a, b)`).
`torch.ops.load_library` raises OSError: compiled PyTorch extensions cannot load here.
"""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Callable
from typing import Any

from . import registry


class OpOverload:
    """One overload of an operator (``torch.ops.ns.name.default``)."""

    def __init__(self, packet: OpOverloadPacket, overload: str, run: Callable) -> None:
        self._packet = packet
        self._overloadname = overload
        self._run = run
        self.__name__ = f"{packet.__name__}.{overload}"

    def name(self) -> str:
        return self._packet._qualified_op_name + (
            "" if self._overloadname == "default" else f".{self._overloadname}"
        )

    @property
    def overloadpacket(self) -> OpOverloadPacket:
        return self._packet

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._run(*args, **kwargs)

    def __repr__(self) -> str:
        op = self._packet._qualified_name_dotted
        return f"<OpOverload(op='{op}', overload='{self._overloadname}')>"

    def __str__(self) -> str:
        return f"{self._packet._qualified_name_dotted}.{self._overloadname}"


class OpOverloadPacket:
    """All overloads of one operator; calling it runs the default overload."""

    def __init__(self, namespace: str, name: str, overloads: dict[str, Callable]) -> None:
        self._namespace = namespace
        self.__name__ = name
        self._qualified_op_name = f"{namespace}::{name}"
        self._qualified_name_dotted = f"{namespace}.{name}"
        self._overloads = overloads

    def __getattr__(self, overload: str) -> OpOverload:
        if overload.startswith("__") or overload not in self._overloads:
            raise AttributeError(
                f"The underlying op of '{self._qualified_name_dotted}' has no overload name "
                f"'{overload}'"
            )
        return OpOverload(self, overload, self._overloads[overload])

    def overloads(self) -> list[str]:
        return list(self._overloads)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self._overloads:
            raise NotImplementedError(
                f"torch.ops.{self._qualified_name_dotted}: autograd_compat has no function "
                "of that name to run it with"
            )
        run = self._overloads.get("default") or next(iter(self._overloads.values()))
        return run(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self._qualified_name_dotted}')>"

    def __str__(self) -> str:
        return self._qualified_name_dotted

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpOverloadPacket) and str(other) == str(self)

    def __hash__(self) -> int:
        return hash(self._qualified_name_dotted)


class _OpNamespace(types.ModuleType):
    """``torch.ops.<ns>``: its operators as attributes."""

    def __init__(self, name: str) -> None:
        super().__init__(f"torch.ops.{name}")
        self.name = name

    def __getattr__(self, op_name: str) -> OpOverloadPacket:
        if op_name.startswith("__"):
            raise AttributeError(op_name)
        overloads = {o: e.call for o, e in registry.lookup(self.name, op_name).items()}
        if not overloads and self.name == "aten" and _aten(op_name):
            return aten_packet(op_name)
        if not overloads:
            raise AttributeError(
                f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'"
            )
        return OpOverloadPacket(self.name, op_name, overloads)


def _aten(name: str) -> dict[str, Callable]:
    """PyTorch's built-in op `name` as this library's function of that name, if it has one."""
    package = sys.modules[__name__.partition(".")[0]]  # loaded by the time an op is looked up
    function = getattr(package, name, None)
    if callable(function) and not isinstance(function, type):
        return {"default": function}
    return {}


@functools.cache
def aten_packet(name: str) -> OpOverloadPacket:
    """`torch.ops.aten.<name>` (a packet even where this library has no such function: the
    FLOP counter names backward ops by it)."""
    return OpOverloadPacket("aten", name, _aten(name))


class _Ops(types.ModuleType):
    """``torch.ops``: a namespace per attribute, and `load_library`."""

    def __init__(self) -> None:
        super().__init__("torch.ops")
        self.loaded_libraries: set[str] = set()

    def __getattr__(self, name: str) -> _OpNamespace:
        if name.startswith("__"):
            raise AttributeError(name)
        namespace = _OpNamespace(name)
        setattr(self, name, namespace)
        return namespace

    def load_library(self, path: str) -> None:
        """Loading a compiled extension is impossible here: raises OSError naming the file."""
        raise OSError(
            f"Could not load this library: {path}. torch.ops.load_library loads compiled "
            "PyTorch extensions (C++/CUDA ops against libtorch), which autograd_compat cannot "
            "run; register Python ops with torch.library.custom_op instead."
        )

    def import_module(self, module: str) -> None:
        __import__(module)


ops = _Ops()
