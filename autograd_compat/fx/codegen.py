"""The Python source of a graph's `forward`: one readable line per node, operators written
as operators, library functions by their `torch.` names, other objects as named globals; each
line ends by setting the values it used last to None, so they are freed as early as in
PyTorch's code."""

from __future__ import annotations

import builtins
import inspect
import keyword
import operator
import sys
from typing import Any, NamedTuple

from .node import Node, _library_name, last_uses

__all__ = ["PythonCode", "emit_forward"]


class PythonCode(NamedTuple):
    """What `Graph.python_code` returns: the source of a `forward` and the globals it reads."""

    src: str
    globals: dict[str, Any]


_BINARY = {
    operator.add: "+",
    operator.sub: "-",
    operator.mul: "*",
    operator.truediv: "/",
    operator.floordiv: "//",
    operator.mod: "%",
    operator.pow: "**",
    operator.matmul: "@",
    operator.and_: "&",
    operator.or_: "|",
    operator.xor: "^",
    operator.lshift: "<<",
    operator.rshift: ">>",
    operator.eq: "==",
    operator.ne: "!=",
    operator.lt: "<",
    operator.le: "<=",
    operator.gt: ">",
    operator.ge: ">=",
}
_UNARY = {operator.neg: "-", operator.pos: "+", operator.invert: "~", operator.not_: "not "}


class _Emitter:
    """Builds the body lines and the globals of one forward."""

    def __init__(self, root_module: str, reserved: set[str]) -> None:
        self.root = root_module
        self.reserved = reserved  # the node and parameter names
        self.last_uses: dict[Node, list[Node]] = {}  # the values freed after each node
        self.globals: dict[str, Any] = {
            "inf": float("inf"),
            "nan": float("nan"),
            "NoneType": type(None),
        }
        self.lines: list[str] = []

    def add_global(self, hint: str, obj: Any) -> str:
        """A name in the globals for `obj` (`torch` for the library's own functions)."""
        torch_name = _library_name(obj)
        if torch_name is not None:
            self.globals["torch"] = sys.modules[__package__.rpartition(".")[0]]
            return torch_name
        if getattr(builtins, hint, None) is obj:
            return hint
        for name, value in self.globals.items():
            if value is obj:
                return name
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in hint) or "obj"
        name, n = base, 0
        while (
            name in self.globals
            or name in self.reserved
            or keyword.iskeyword(name)
            or hasattr(builtins, name)
        ):
            n += 1
            name = f"{base}_{n}"
        self.globals[name] = obj
        return name

    def arg(self, a: Any) -> str:
        """Python source for one argument."""
        if isinstance(a, Node):
            return a.name
        if isinstance(a, tuple):
            items = [self.arg(x) for x in a]
            if hasattr(a, "_fields"):
                return f"{self.add_global(type(a).__name__, type(a))}({', '.join(items)})"
            return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
        if isinstance(a, list):
            return "[" + ", ".join(self.arg(x) for x in a) + "]"
        if isinstance(a, dict):
            return "{" + ", ".join(f"{self.arg(k)}: {self.arg(v)}" for k, v in a.items()) + "}"
        if isinstance(a, slice):
            return f"slice({self.arg(a.start)}, {self.arg(a.stop)}, {self.arg(a.step)})"
        if a is None or a is Ellipsis or isinstance(a, (bool, int, float, complex, str)):
            return repr(a)
        if isinstance(a, type):
            return self.add_global(a.__name__, a)
        text = repr(a)
        if text.startswith("torch.") and _evaluates_to(text, a):
            self.globals["torch"] = sys.modules[__package__.rpartition(".")[0]]
            return text
        return self.add_global(type(a).__name__.lower(), a)

    def call_args(self, args: tuple, kwargs: dict) -> str:
        parts = [self.arg(a) for a in args] + [f"{k} = {self.arg(v)}" for k, v in kwargs.items()]
        return ", ".join(parts)

    def attr_path(self, target: str) -> str:
        """`self.a.b`, with getattr for parts that are not identifiers (`self.layers[0]`)."""
        text = self.root
        for part in target.split("."):
            ident = part.isidentifier() and not keyword.iskeyword(part)
            text = f"{text}.{part}" if ident else f'getattr({text}, "{part}")'
        return text

    def node(self, n: Node, params: list[str]) -> None:
        """Emit the line computing `n` (or the parameter it is)."""
        if n.op == "placeholder":
            default = f" = {self.arg(n.args[0])}" if n.args else ""
            params.append(f"{n.target}{self.annotation(n)}{default}")
            if n.target.lstrip("*") != n.name:
                self.lines.append(f"{n.name} = {n.target.lstrip('*')}")
            return
        if n.op == "output":
            self.lines.append(f"return {self.arg(n.args[0])}")
            return
        line = f"{n.name} = {self.expression(n)}"
        freed = [*self.last_uses.get(n, []), *([n] if not n.users else [])]
        if freed:
            line += ";  " + " = ".join([m.name for m in freed] + ["None"])
        self.lines.append(line)

    def annotation(self, n: Node) -> str:
        """` : <type>` for a node with a type, named by a global (a string annotation too,
        as PyTorch's code does)."""
        if n.type is None:
            return ""
        hint = n.type.__name__ if isinstance(n.type, type) else repr(n.type)
        return f" : {self.add_global(hint, n.type)}"

    def expression(self, n: Node) -> str:
        args, kwargs = n.args, n.kwargs
        if n.op == "get_attr":
            return self.attr_path(n.target)
        if n.op == "call_module":
            return f"{self.attr_path(n.target)}({self.call_args(args, kwargs)})"
        if n.op == "call_method":
            return f"{self.arg(args[0])}.{n.target}({self.call_args(args[1:], kwargs)})"
        fn = n.target
        if fn in _BINARY and len(args) == 2 and not kwargs:
            return f"{self.arg(args[0])} {_BINARY[fn]} {self.arg(args[1])}"
        if fn in _UNARY and len(args) == 1 and not kwargs:
            return f"{_UNARY[fn]}{self.arg(args[0])}"
        if fn is operator.getitem and len(args) == 2 and not kwargs:
            return f"{self.arg(args[0])}[{self.arg(args[1])}]"
        if fn is builtins.getattr and len(args) == 2 and isinstance(args[1], str):
            if args[1].isidentifier():
                return f"{self.arg(args[0])}.{args[1]}"
        name = self.add_global(getattr(fn, "__name__", "fn"), fn)
        return f"{name}({self.call_args(args, kwargs)})"


def _evaluates_to(text: str, value: Any) -> bool:
    """Whether the repr `text` (a `torch.` path) names `value` in the library."""
    torch = sys.modules[__package__.rpartition(".")[0]]
    obj: Any = torch
    for part in text.split(".")[1:]:
        obj = getattr(obj, part, inspect.Signature.empty)
    return obj is value


def emit_forward(graph, root_module: str):
    """The source of `def forward(<root_module>, ...)` for `graph` and its globals."""
    emitter = _Emitter(root_module, {n.name for n in graph.nodes} | {root_module})
    emitter.last_uses = last_uses(graph.nodes)
    params: list[str] = [root_module]
    for n in graph.nodes:
        emitter.node(n, params)
    body = "\n".join(f"    {line}" for line in emitter.lines) or "    pass"
    src = f"\n\n\ndef forward({', '.join(params)}):\n{body}\n    "
    return PythonCode(src, emitter.globals)
