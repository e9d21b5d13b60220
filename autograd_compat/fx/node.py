"""torch.fx.node: `Node`, one operation of a captured program, and its helpers."""

from __future__ import annotations

import builtins
import operator
import sys
from collections.abc import Callable
from typing import Any

from .immutable_collections import immutable_dict, immutable_list

__all__ = ["Node", "has_side_effect", "map_aggregate", "map_arg"]

# what a Node calls: a function (call_function) or a dotted name (the other ops)
Target = Any
Argument = Any  # a Node's argument: Nodes, containers of them, and plain values

_OPS = ("placeholder", "call_method", "call_module", "call_function", "get_attr", "output", "root")
_side_effectful_functions: set = {builtins.print, operator.setitem}


def has_side_effect(fn):
    """Mark `fn` as having side effects, so dead-code elimination keeps its calls."""
    _side_effectful_functions.add(fn)
    return fn


def map_aggregate(a: Argument, fn: Callable) -> Argument:
    """Apply `fn` to each leaf of `a`, rebuilding tuples (named ones too), lists, dicts and
    slices around the results (lists and dicts as their immutable kinds, as Node arguments
    are)."""
    if isinstance(a, tuple):
        mapped = tuple(map_aggregate(elem, fn) for elem in a)
        return type(a)(*mapped) if hasattr(a, "_fields") else mapped
    if isinstance(a, list):
        return immutable_list(map_aggregate(elem, fn) for elem in a)
    if isinstance(a, dict):
        return immutable_dict((key, map_aggregate(value, fn)) for key, value in a.items())
    if isinstance(a, slice):
        parts = (a.start, a.stop, a.step)
        return slice(*(map_aggregate(part, fn) for part in parts))
    return fn(a)


def map_arg(a: Argument, fn: Callable[[Node], Argument]) -> Argument:
    """Apply `fn` to each Node in `a`, keeping the structure and the other values."""
    if not callable(fn):
        raise AssertionError("torch.fx.map_arg(a, fn): fn must be a callable")
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def last_uses(nodes) -> dict[Node, list[Node]]:
    """For each node, the nodes whose value it is the last to read (in argument order)."""
    seen: set[Node] = set()
    result: dict[Node, list[Node]] = {}
    for node in reversed(nodes):
        for used in node.all_input_nodes:
            if used not in seen:
                seen.add(used)
                result.setdefault(node, []).append(used)
    return result


def _qualified_name(target: Target) -> str:
    """A Node's target as `print(graph)` shows it (`operator.add`, `torch.relu`)."""
    if isinstance(target, str):
        return target
    module = getattr(target, "__module__", None) or ""
    name = getattr(target, "__name__", None) or repr(target)
    module = {"_operator": "operator"}.get(module, module)
    torch_name = _library_name(target)
    return torch_name or (f"{module}.{name}" if module else name)


def _library_name(target: Target) -> str | None:
    """`torch.X`/`torch.nn.functional.X` when `target` is the library's function so named."""
    torch = sys.modules[__package__.rpartition(".")[0]]
    name = getattr(target, "__name__", None)
    if not isinstance(name, str):
        return None
    for path, namespace in (("torch", torch), ("torch.nn.functional", torch.nn.functional)):
        if getattr(namespace, name, None) is target:
            return f"{path}.{name}"
    return None


class Node:
    """An operation of an fx Graph: `op` is its kind (placeholder, get_attr, call_function,
    call_method, call_module, output), `target` what it calls or reads, `args`/`kwargs` its
    inputs (other Nodes among plain values). Nodes form the graph's doubly linked list."""

    def __init__(
        self,
        graph,
        name: str,
        op: str,
        target: Target,
        args: tuple,
        kwargs: dict,
        return_type: Any | None = None,
    ) -> None:
        if op not in _OPS:
            raise AssertionError(f"Unknown op {op!r}")
        if op in ("call_method", "call_module", "get_attr", "placeholder", "output"):
            if op != "output" and not isinstance(target, str):
                raise ValueError(
                    f"Node [graph = {graph}, name = '{name}'] target {target} has "
                    f"type {type(target)} but a str is expected for {op}"
                )
        elif op == "call_function" and not callable(target):
            raise ValueError(
                f"Node [graph = {graph}, name = '{name}'] target {target} has type "
                f"{type(target)} but a Callable is expected"
            )
        self.graph = graph
        self.name = name
        self.op = op
        self.target = target
        self.type = return_type
        self.users: dict[Node, None] = {}
        self._input_nodes: dict[Node, None] = {}
        self._args: tuple = ()
        self._kwargs: dict = {}
        self._prev = self
        self._next = self
        self._erased = False
        self.meta: dict[str, Any] = {}
        self._update_args_kwargs(args, kwargs)

    @property
    def next(self) -> Node:
        """The node after this one in the graph (the graph's root sentinel at the end)."""
        return self._next

    @property
    def prev(self) -> Node:
        """The node before this one in the graph (the root sentinel at the start)."""
        return self._prev

    def prepend(self, x: Node) -> None:
        """Move `x` to just before this node."""
        if self is x:
            raise AssertionError("Cannot prepend a node to itself")
        x._remove_from_list()
        prev = self._prev
        prev._next, x._prev = x, prev
        x._next, self._prev = self, x

    def append(self, x: Node) -> None:
        """Move `x` to just after this node."""
        self._next.prepend(x)

    def _remove_from_list(self) -> None:
        prev, following = self._prev, self._next
        prev._next, following._prev = following, prev
        self._prev = self._next = self

    @property
    def args(self) -> tuple:
        """The positional arguments, with Nodes for the values other nodes compute."""
        return self._args

    @args.setter
    def args(self, value: tuple) -> None:
        self._update_args_kwargs(value, self._kwargs)

    @property
    def kwargs(self) -> dict:
        """The keyword arguments, with Nodes for the values other nodes compute."""
        return self._kwargs

    @kwargs.setter
    def kwargs(self, value: dict) -> None:
        self._update_args_kwargs(self._args, value)

    @property
    def all_input_nodes(self) -> list[Node]:
        """Every Node this one reads, in order of first appearance."""
        return list(self._input_nodes)

    def update_arg(self, idx: int, arg: Argument) -> None:
        """Set positional argument `idx`."""
        args = list(self._args)
        args[idx] = arg
        self.args = tuple(args)

    def update_kwarg(self, key: str, arg: Argument) -> None:
        """Set keyword argument `key`."""
        self.kwargs = {**self._kwargs, key: arg}

    def _update_args_kwargs(self, new_args: tuple, new_kwargs: dict) -> None:
        """Set args and kwargs, keeping the users/input maps of every Node involved."""
        for old in self._input_nodes:
            old.users.pop(self, None)
        self._input_nodes = {}
        self._args = map_arg(tuple(new_args), self._note_input)
        self._kwargs = map_arg(dict(new_kwargs), self._note_input)

    def _note_input(self, n: Node) -> Node:
        self._input_nodes.setdefault(n)
        n.users.setdefault(self)
        return n

    def replace_all_uses_with(
        self,
        replace_with: Node,
        delete_user_cb: Callable[[Node], bool] = lambda user: True,
        *,
        propagate_meta: bool = False,
    ) -> list[Node]:
        """Make every user of this node read `replace_with` instead (those `delete_user_cb`
        accepts); returns the users changed."""
        if propagate_meta:
            for key, value in self.meta.items():
                replace_with.meta.setdefault(key, value)
        changed = [user for user in list(self.users) if delete_user_cb(user)]
        for user in changed:
            user.replace_input_with(self, replace_with)
        return changed

    def replace_input_with(self, old_input: Node, new_input: Node) -> None:
        """Read `new_input` wherever this node reads `old_input`."""
        swap = lambda n: new_input if n is old_input else n  # noqa: E731
        self._update_args_kwargs(map_arg(self._args, swap), map_arg(self._kwargs, swap))

    def is_impure(self, impure_random: bool = True) -> bool:
        """Whether dead-code elimination must keep this node (inputs, outputs, side effects,
        and calls of modules, which may have them)."""
        if self.op in ("placeholder", "output"):
            return True
        if self.op == "call_function":
            return self.target in _side_effectful_functions
        if self.op == "call_module":
            module = self.graph.owning_module
            if module is None:
                return False
            return getattr(module.get_submodule(self.target), "_is_impure", False)
        return False

    def format_node(self, *args, **kwargs) -> str | None:
        """One line describing the node, as `print(graph)` shows it."""
        if self.op == "placeholder":
            default = f"(default={self.args[0]!r})" if self.args else ""
            return (
                f"%{self.name} : {self._typename()}[num_users={len(self.users)}] = "
                f"placeholder[target={self.target}]{default}"
            )
        if self.op == "output":
            return f"return {_format_arg(self.args[0]).lstrip('%')}"
        target = _qualified_name(self.target)
        if self.op == "get_attr":
            return (
                f"%{self.name} : {self._typename()}[num_users={len(self.users)}] = "
                f"get_attr[target={target}]"
            )
        return (
            f"%{self.name} : {self._typename()}[num_users={len(self.users)}] = "
            f"{self.op}[target={target}]"
            f"(args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})"
        )

    def _typename(self) -> str:
        """The annotated type as format_node shows it, with a trailing space ("" if none)."""
        if self.type is None:
            return ""
        if isinstance(self.type, type):
            module = self.type.__module__
            name = self.type.__qualname__
            return f"{name} " if module == "builtins" else f"{module}.{name} "
        return f"{self.type!r} "

    def __repr__(self) -> str:
        return self.name


def _format_arg(arg: Argument) -> str:
    """An argument as format_node shows it: Nodes as %name."""
    if isinstance(arg, tuple):
        inner = ", ".join(_format_arg(a) for a in arg)
        return f"({inner},)" if len(arg) == 1 else f"({inner})"
    if isinstance(arg, list):
        return "[" + ", ".join(_format_arg(a) for a in arg) + "]"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k}: {_format_arg(v)}" for k, v in arg.items()) + "}"
    if isinstance(arg, Node):
        return f"%{arg}"
    return str(arg)
