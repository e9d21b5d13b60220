"""torch.fx.proxy: `Proxy`, the stand-in value a symbolic trace passes through a program, and
`TracerBase`, what turns operations on Proxies into graph Nodes."""

from __future__ import annotations

import builtins
import dis
import inspect
import operator
from typing import Any

from .._state.tensor import Tensor
from .._state.torch_function import override_possible
from .graph import Graph
from .node import Argument, Node, Target, _library_name, map_aggregate

__all__ = ["Attribute", "GraphAppendingTracer", "Proxy", "TraceError", "TracerBase"]


class TraceError(ValueError):
    """A program cannot be traced symbolically (control flow or iteration on a Proxy)."""


class TracerBase:
    """Records Nodes into `self.graph` for the operations done on Proxies."""

    graph: Graph
    check_mutable_operations: bool = False
    proxy_buffer_attributes: bool = False
    scope: Any = None
    module_stack: dict = {}
    node_name_to_scope: dict = {}

    def create_node(
        self,
        kind: str,
        target: Target,
        args: tuple,
        kwargs: dict,
        name: str | None = None,
        type_expr: Any | None = None,
    ) -> Node:
        """Insert a Node into the graph (subclasses hook here to annotate every node)."""
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def proxy(self, node: Node) -> Proxy:
        """Wrap `node` in a Proxy of this tracer."""
        return Proxy(node, self)

    def create_proxy(
        self,
        kind: str,
        target: Target,
        args: tuple,
        kwargs: dict,
        name: str | None = None,
        type_expr: Any | None = None,
        proxy_factory_fn=None,
    ) -> Proxy:
        """Record an operation on (possibly) Proxies and return a Proxy of its result."""
        node = self.create_node(
            kind, target, self.create_arg(args), self.create_arg(kwargs), name, type_expr
        )
        return self.proxy(node) if proxy_factory_fn is None else proxy_factory_fn(node)

    def create_arg(self, a: Any) -> Argument:
        """An argument for a Node: Proxies become their Nodes, containers are walked."""
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, tuple):
            items = tuple(self.create_arg(x) for x in a)
            return type(a)(*items) if hasattr(a, "_fields") else items
        if isinstance(a, list):
            return [self.create_arg(x) for x in a]
        if isinstance(a, dict):
            out = {}
            for key, value in a.items():
                if isinstance(key, (Proxy, Node)):
                    raise RuntimeError(
                        "Keys for dictionaries used as an argument cannot "
                        f"contain a Node. Got key: {key}"
                    )
                out[key] = self.create_arg(value)
            return out
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, range):
            return range(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        return a

    def to_bool(self, obj: Proxy) -> bool:
        """A Proxy used as a condition: raises, as the value is unknown while tracing."""
        raise TraceError("symbolically traced variables cannot be used as inputs to control flow")

    def iter(self, obj: Proxy):
        """A Proxy iterated over: raises, as its length is unknown while tracing."""
        raise TraceError(
            "Proxy object cannot be iterated. This can be attempted when the Proxy is used in a"
            " loop or as a *args or **kwargs function argument. See the torch.fx docs on "
            "pytorch.org for a more detailed explanation of what types of control flow can be "
            "traced, and check out the Proxy docstring for help troubleshooting Proxy iteration"
            " errors"
        )

    def keys(self, obj: Proxy) -> Proxy:
        """`proxy.keys()` (from `**proxy`): recorded as a method call."""
        return self.create_proxy("call_method", "keys", (obj,), {})


class GraphAppendingTracer(TracerBase):
    """The tracer of Proxies made directly on a graph (`Proxy(node)`)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.scope = None
        self.module_stack = {}
        self.node_name_to_scope = {}


class Proxy:
    """A value of a program being traced: every operation on it (operators, attribute reads,
    method calls, library functions) records a Node and gives a new Proxy."""

    def __init__(self, node: Node, tracer: TracerBase | None = None) -> None:
        override_possible()  # library functions called on Proxies reach __torch_function__
        self.tracer = tracer if tracer is not None else GraphAppendingTracer(node.graph)
        self.node = node

    def __repr__(self) -> str:
        return f"Proxy({self.node.name})"

    def __getattr__(self, k: str) -> Attribute:
        return Attribute(self, k)

    def __getstate__(self) -> dict:
        return self.__dict__

    def __setstate__(self, state: dict) -> None:
        self.__dict__ = state

    def __deepcopy__(self, memo):
        raise RuntimeError("Proxies cannot be deep-copied while tracing")

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", "__call__", (self, *args), kwargs)

    def __iter__(self):
        frame = inspect.currentframe()
        caller = frame.f_back if frame is not None else None
        if caller is not None:
            inst = _instruction_at(caller)
            if inst is not None and inst.opname == "UNPACK_SEQUENCE":
                return (self[i] for i in range(inst.argval))
        return self.tracer.iter(self)

    def __bool__(self) -> bool:
        return self.tracer.to_bool(self)

    def __len__(self) -> int:
        raise RuntimeError(
            "'len' is not supported in symbolic tracing by default. If you want this call to be"
            " recorded, please call torch.fx.wrap('len') at module scope"
        )

    def keys(self) -> Proxy:
        """`proxy.keys()`: what `**proxy` calls."""
        return self.tracer.keys(self)

    def __abs__(self) -> Proxy:
        return self.tracer.create_proxy("call_function", operator.abs, (self,), {})

    @classmethod
    def __torch_function__(cls, orig_method, types, args=(), kwargs=None) -> Proxy:
        """A library function or Tensor method called on Proxies: recorded as a
        call_function node (a call_method one for Tensor methods)."""
        kwargs = kwargs or {}
        tracers: dict[TracerBase, None] = {}

        def find(a):
            if isinstance(a, Proxy):
                tracers.setdefault(a.tracer)
            return a

        map_aggregate(args, find)
        map_aggregate(kwargs, find)
        if len(tracers) > 1:
            raise RuntimeError(
                f"Found multiple different tracers {list(tracers)} while trying"
                f" to trace operations {orig_method}"
            )
        tracer = next(iter(tracers))
        if _is_tensor_method(orig_method):
            return tracer.create_proxy("call_method", orig_method.__name__, args, kwargs)
        return tracer.create_proxy("call_function", orig_method, args, kwargs)


def _is_tensor_method(fn) -> bool:
    """Whether `fn` is a method of the library's Tensor and not also the library function of
    that name (one object serves both for many ops here; the function call is equivalent)."""
    name = getattr(fn, "__name__", None)
    if not isinstance(name, str) or getattr(Tensor, name, None) is not fn:
        return False
    return _library_name(fn) is None


def _instruction_at(frame) -> dis.Instruction | None:
    """The bytecode instruction `frame` is executing."""
    return next((i for i in dis.get_instructions(frame.f_code) if i.offset >= frame.f_lasti), None)


class Attribute(Proxy):
    """`proxy.name`: a getattr node made when used as a value, a call_method one when called."""

    def __init__(self, root: Proxy, attr: str) -> None:
        self.root = root
        self.attr = attr
        self.tracer = root.tracer
        self._node: Node | None = None

    @property
    def node(self) -> Node:  # type: ignore[override]
        if self._node is None:
            self._node = self.tracer.create_proxy(
                "call_function", builtins.getattr, (self.root, self.attr), {}
            ).node
        return self._node

    def __call__(self, *args, **kwargs) -> Proxy:
        return self.tracer.create_proxy("call_method", self.attr, (self.root, *args), kwargs)


def _binary(name: str, fn, reflected: bool):
    def method(self, other):
        args = (other, self) if reflected else (self, other)
        return self.tracer.create_proxy("call_function", fn, args, {})

    method.__name__ = name
    return method


def _unary(name: str, fn):
    def method(self):
        return self.tracer.create_proxy("call_function", fn, (self,), {})

    method.__name__ = name
    return method


_REFLECTABLE = (
    "add",
    "sub",
    "mul",
    "floordiv",
    "truediv",
    "mod",
    "pow",
    "lshift",
    "rshift",
    "and",
    "or",
    "xor",
    "matmul",
)
for _name in _REFLECTABLE:
    _fn = getattr(operator, _name + "_" if _name in ("and", "or") else _name)
    setattr(Proxy, f"__{_name}__", _binary(f"__{_name}__", _fn, False))
    setattr(Proxy, f"__r{_name}__", _binary(f"__r{_name}__", _fn, True))
for _name in ("eq", "ne", "lt", "gt", "le", "ge", "getitem"):
    setattr(Proxy, f"__{_name}__", _binary(f"__{_name}__", getattr(operator, _name), False))
for _name, _fn in (("neg", operator.neg), ("pos", operator.pos), ("invert", operator.invert)):
    setattr(Proxy, f"__{_name}__", _unary(f"__{_name}__", _fn))
Proxy.__hash__ = object.__hash__  # type: ignore[method-assign]
