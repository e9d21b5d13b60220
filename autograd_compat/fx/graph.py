"""torch.fx.graph: `Graph`, the captured program: a list of Nodes, the edits on it, and the
Python code it becomes."""

from __future__ import annotations

import builtins
import dataclasses
import inspect
import keyword
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from .codegen import PythonCode, emit_forward
from .node import Argument, Node, Target, map_aggregate, map_arg

__all__ = ["Graph", "PythonCode"]


class _Namespace:
    """Unique, valid Python names for the nodes and globals of one graph."""

    def __init__(self) -> None:
        self._used: set[str] = set()
        self._counts: dict[str, int] = {}

    def create_name(self, candidate: str) -> str:
        """`candidate` made an identifier (snake case), with a _N suffix when taken."""
        name = re.sub(r"[^0-9a-zA-Z_]+", "_", candidate)
        name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower() if name[:1].isupper() else name
        if not name or name[0].isdigit():
            name = f"_{name}"
        match = re.fullmatch(r"(.*)_(\d+)", name)
        base, num = (match.group(1), int(match.group(2))) if match else (name, None)
        while name in self._used or keyword.iskeyword(name) or name in builtins.__dict__:
            num = self._counts.get(base, 0) + 1 if num is None else num + 1
            self._counts[base] = num
            name = f"{base}_{num}"
        self._used.add(name)
        return name


@dataclasses.dataclass(frozen=True)
class _Ref:
    """A pickled Node argument: the position of the node it names."""

    index: int


class _NodeRecord(NamedTuple):
    """One pickled Node."""

    op: str
    target: Target
    args: tuple
    kwargs: dict
    name: str
    type: Any
    meta: dict


def _unpickle_graph(tracer_cls, records: list[_NodeRecord]) -> Graph:
    graph = Graph(tracer_cls=tracer_cls)
    made: list[Node] = []

    def resolve(a):
        return made[a.index] if isinstance(a, _Ref) else a

    for r in records:
        args = map_aggregate(r.args, resolve)
        kwargs = map_aggregate(r.kwargs, resolve)
        node = graph.create_node(r.op, r.target, args, kwargs, r.name, r.type)
        node.meta = r.meta
        made.append(node)
    return graph


class _InsertPoint:
    """Where a graph's create_node inserts, set on construction and restored on exit."""

    def __init__(self, graph: Graph, insert: Callable[[Node], None]) -> None:
        self._graph = graph
        self._saved, graph._insert = graph._insert, insert

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> None:
        self._graph._insert = self._saved


class _NodeList:
    """The nodes of a graph, in order (`reversed` walks them backwards)."""

    def __init__(self, graph: Graph, reverse: bool = False) -> None:
        self._graph, self._reverse = graph, reverse

    def __len__(self) -> int:
        return self._graph._len

    def __iter__(self):
        root = self._graph._root
        step = "_prev" if self._reverse else "_next"
        node = getattr(root, step)
        while node is not root:
            following = getattr(node, step)
            if not node._erased:
                yield node
            node = following

    def __reversed__(self):
        return iter(_NodeList(self._graph, not self._reverse))


class Graph:
    """An fx program: Nodes in execution order, ending with one `output` node."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None) -> None:
        self._root = Node(self, "", "root", "", (), {})
        self._len = 0
        self._namespace = _Namespace()
        self._insert: Callable[[Node], None] = self._root.prepend
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras

    @property
    def owning_module(self):
        """The GraphModule this graph belongs to, if any."""
        return self._owning_module

    @owning_module.setter
    def owning_module(self, module) -> None:
        self._owning_module = module

    @property
    def nodes(self) -> _NodeList:
        """The nodes in execution order."""
        return _NodeList(self)

    def find_nodes(self, *, op: str, target: Target | None = None) -> list[Node]:
        """The nodes with this op (and target, when given)."""
        return [n for n in self.nodes if n.op == op and (target is None or n.target == target)]

    def create_node(
        self,
        op: str,
        target: Target,
        args: tuple | None = None,
        kwargs: dict | None = None,
        name: str | None = None,
        type_expr: Any | None = None,
    ) -> Node:
        """Insert a Node at the insertion point (the end, by default) and return it."""
        candidate = name if name is not None else self._target_to_name(target)
        node = Node(
            self,
            self._namespace.create_name(candidate),
            op,
            target,
            tuple(args or ()),
            dict(kwargs or {}),
            type_expr,
        )
        self._insert(node)
        self._len += 1
        return node

    @staticmethod
    def _target_to_name(target: Target) -> str:
        if isinstance(target, str):
            return target.lstrip("*").replace(".", "_")
        return getattr(target, "__name__", None) or "fn"

    def placeholder(self, name: str, type_expr=None, default_value=inspect.Signature.empty) -> Node:
        """An input of the program named `name` (with a default value when given)."""
        args = () if default_value is inspect.Signature.empty else (default_value,)
        return self.create_node("placeholder", name, args, type_expr=type_expr)

    def get_attr(self, qualified_name: str, type_expr=None) -> Node:
        """Read the attribute at dotted path `qualified_name` of the owning module."""
        return self.create_node("get_attr", qualified_name, type_expr=type_expr)

    def call_module(self, module_name: str, args=None, kwargs=None, type_expr=None) -> Node:
        """Call the submodule at dotted path `module_name`."""
        return self.create_node("call_module", module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name: str, args=None, kwargs=None, type_expr=None) -> Node:
        """Call method `method_name` of `args[0]`."""
        return self.create_node("call_method", method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function: Callable, args=None, kwargs=None, type_expr=None):
        """Call the free function `the_function`."""
        return self.create_node("call_function", the_function, args, kwargs, type_expr=type_expr)

    def output(self, result: Argument, type_expr=None) -> Node:
        """The program's return value."""
        return self.create_node("output", "output", (result,), type_expr=type_expr)

    def erase_node(self, to_erase: Node) -> None:
        """Remove a node no other node uses."""
        if to_erase.users:
            raise RuntimeError(
                f"Tried to erase Node {to_erase} but it still had {len(to_erase.users)} "
                f"users in the graph: {to_erase.users}!"
            )
        if to_erase.graph is not self:
            raise RuntimeError(f"Attempting to remove {to_erase} from wrong graph!")
        if to_erase._erased:
            return
        to_erase._remove_from_list()
        to_erase._erased = True
        self._len -= 1
        to_erase._update_args_kwargs((), {})

    def inserting_before(self, n: Node | None = None) -> _InsertPoint:
        """Within the `with` block, create_node inserts before `n` (the start when None)."""
        return _InsertPoint(self, (n if n is not None else self._root._next).prepend)

    def inserting_after(self, n: Node | None = None) -> _InsertPoint:
        """Within the `with` block, create_node inserts right after `n` (each new node goes
        there, so several come out in reverse order; the end when None)."""
        return _InsertPoint(self, (n if n is not None else self._root._prev).append)

    def node_copy(self, node: Node, arg_transform: Callable[[Node], Argument] = lambda x: x):
        """Insert a copy of `node` (from any graph), its Node arguments mapped by
        `arg_transform`."""
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        copy = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        copy.meta = dict(node.meta)
        return copy

    def graph_copy(self, g: Graph, val_map: dict[Node, Node], return_output_node=False):
        """Copy every node of `g` but its output into this graph, filling `val_map` (old node
        -> new); returns the value `g`'s output would have here."""
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == "output":
                value = map_arg(node.args[0], lambda n: val_map[n])
                return (value, node) if return_output_node else value
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def eliminate_dead_code(self, is_impure_node: Callable[[Node], bool] | None = None) -> bool:
        """Erase the nodes whose values nothing uses and that have no side effect; returns
        whether anything changed."""
        self.lint()
        impure = is_impure_node or (lambda n: n.is_impure())
        changed = False
        for node in reversed(self.nodes):
            if not node.users and not impure(node):
                self.erase_node(node)
                changed = True
        return changed

    def lint(self) -> None:
        """Check the graph's invariants: each node belongs here, reads only earlier nodes,
        its users and inputs agree, and the names are unique."""
        seen: set[Node] = set()
        names: set[str] = set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f"Node {node} does not belong to this Graph!")
            for arg in node._input_nodes:
                if arg not in seen:
                    raise RuntimeError(
                        f"Argument '{arg}' of Node '{node}' was used before it has been defined!"
                        " Please check that Nodes in the graph are topologically ordered"
                    )
                if node not in arg.users:
                    raise RuntimeError(f"Node {node} is not a user of its input {arg}")
            if node.name in names:
                raise RuntimeError(f"Node redefined name {node.name}!")
            seen.add(node)
            names.add(node.name)

    def print_tabular(self) -> None:
        """Print the nodes as a table (opcode, name, target, args, kwargs), laid out as
        tabulate's plain format."""
        rows = [[n.op, n.name, str(n.target), str(n.args), str(n.kwargs)] for n in self.nodes]
        headers = ["opcode", "name", "target", "args", "kwargs"]
        widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(5)]
        for row in [headers, ["-" * w for w in widths], *rows]:
            print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())

    def python_code(
        self,
        root_module: str,
        *,
        verbose=None,
        include_stride=False,
        include_device=False,
        colored=False,
    ) -> PythonCode:
        """The source of `def forward(<root_module>, ...)` running this graph, and its
        globals."""
        return emit_forward(self, root_module)

    def __deepcopy__(self, memo: dict) -> Graph:
        """A copy of every node (without recursing along the node list)."""
        copied = Graph(tracer_cls=self._tracer_cls)
        value, output = copied.graph_copy(self, memo, return_output_node=True)
        copied.output(value, type_expr=output.type).meta = dict(output.meta)
        return copied

    def __reduce__(self):
        """Pickled as a flat list of node records (Node arguments as indices), so a long
        graph pickles without deep recursion."""
        nodes = list(self.nodes)
        index = {n: i for i, n in enumerate(nodes)}
        records = [
            _NodeRecord(
                n.op,
                n.target,
                map_arg(n.args, lambda a: _Ref(index[a])),
                map_arg(n.kwargs, lambda a: _Ref(index[a])),
                n.name,
                n.type,
                n.meta,
            )
            for n in nodes
        ]
        return (_unpickle_graph, (self._tracer_cls, records))

    def __str__(self) -> str:
        lines = ["graph():"] + [f"    {n.format_node()}" for n in self.nodes]
        return "\n".join(lines)
