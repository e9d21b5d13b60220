"""torch.fx.interpreter: running a GraphModule node by node (`Interpreter`), and rewriting it
by running it on Proxies (`Transformer`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..nn.modules.module import Module
from .graph import Graph
from .graph_module import GraphModule
from .node import Argument, Node, Target, last_uses, map_aggregate, map_arg
from .proxy import Proxy, TracerBase

__all__ = ["Interpreter", "Transformer"]


class Interpreter:
    """Runs a GraphModule one node at a time: `run_node` dispatches to the method named by
    the node's op (placeholder, get_attr, call_function, call_method, call_module, output),
    which subclasses override to change what a node does."""

    def __init__(
        self, module: Module, garbage_collect_values: bool = True, graph: Graph | None = None
    ) -> None:
        self.module = module
        self.submodules = dict(module.named_modules())
        self.graph = graph if graph is not None else module.graph
        self.env: dict[Node, Any] = {}
        self.name = "Interpreter"
        self.garbage_collect_values = garbage_collect_values
        self.extra_traceback = True
        self.user_to_last_uses = last_uses(self.graph.nodes) if garbage_collect_values else {}

    def run(
        self, *args, initial_env: dict[Node, Any] | None = None, enable_io_processing: bool = True
    ) -> Any:
        """Run the graph on `args` and return its output."""
        self.env = dict(initial_env or {})
        self.args_iter: Iterator[Any] = iter(args)
        for node in self.graph.nodes:
            if node in self.env:
                continue
            try:
                self.env[node] = self.run_node(node)
            except Exception as e:
                if self.extra_traceback:
                    note = f"While executing {node.format_node()}"
                    e.args = (f"{e.args[0]}\n\n{note}" if e.args else note, *e.args[1:])
                raise
            if self.garbage_collect_values:
                for to_delete in self.user_to_last_uses.get(node, []):
                    self.env.pop(to_delete, None)
            if node.op == "output":
                return self.env[node]
        return None

    def boxed_run(self, args_list: list) -> Any:
        """`run` taking its arguments in a list that it empties."""
        args = list(args_list)
        args_list.clear()
        return self.run(*args)

    def run_node(self, n: Node) -> Any:
        """Run one node: fetch its arguments, call the method named by its op."""
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        return getattr(self, n.op)(n.target, args, kwargs)

    def placeholder(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """The next input (or the placeholder's default; the rest for `*args`)."""
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration as si:
            if args:
                return args[0]
            raise RuntimeError(
                f"Expected positional argument for parameter {target}, but one was not passed in!"
            ) from si

    def get_attr(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """The module's attribute at dotted path `target`."""
        return self.fetch_attr(target)

    def call_function(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """Call the function `target`."""
        return target(*args, **kwargs)

    def call_method(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """Call method `target` of `args[0]`."""
        self_obj, *rest = args
        return getattr(self_obj, target)(*rest, **kwargs)

    def call_module(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """Call the submodule at dotted path `target`."""
        return self.fetch_attr(target)(*args, **kwargs)

    def output(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """The graph's return value."""
        return args[0]

    def fetch_attr(self, target: str) -> Any:
        """The attribute at dotted path `target` of the module."""
        obj: Any = self.module
        for i, atom in enumerate(target.split(".")):
            if not hasattr(obj, atom):
                done = ".".join(target.split(".")[:i])
                raise RuntimeError(f"Node referenced nonexistent target {done or target}")
            obj = getattr(obj, atom)
        return obj

    def fetch_args_kwargs_from_env(self, n: Node) -> tuple[tuple, dict]:
        """`n`'s args and kwargs with each Node replaced by its value."""
        return self.map_nodes_to_values(n.args, n), self.map_nodes_to_values(n.kwargs, n)

    def map_nodes_to_values(self, args: Argument, n: Node) -> Argument:
        """`args` with each Node replaced by its value in the environment."""

        def load(n_arg: Node) -> Any:
            if n_arg not in self.env:
                raise RuntimeError(
                    f"Node {n} referenced nonexistent value {n_arg}! Run Graph.lint() to "
                    "diagnose such issues"
                )
            return self.env[n_arg]

        return map_arg(args, load)


class _TransformerTracer(TracerBase):
    """Records into a Transformer's new graph; no module is a leaf candidate to trace."""

    def __init__(self, graph: Graph, root: Module) -> None:
        self.graph = graph
        self.root = root
        self.tensor_attrs: dict = {}
        self.module_stack = {}
        self.node_name_to_scope = {}

    def is_leaf_module(self, _, __) -> bool:
        return True


class Transformer(Interpreter):
    """Rewrites a GraphModule: runs it on Proxies, so each overridden per-op method decides
    what the new graph records; `transform()` returns the new GraphModule."""

    def __init__(self, module: GraphModule) -> None:
        super().__init__(module)
        self.new_graph = Graph()
        self.new_graph._tracer_cls = getattr(module.graph, "_tracer_cls", None)
        self.tracer = _TransformerTracer(self.new_graph, module)

    def placeholder(self, target: Target, args: tuple, kwargs: dict) -> Proxy:
        """A placeholder of the new graph (keeping the default value)."""
        node = self.new_graph.create_node("placeholder", target, args)
        return Proxy(node, self.tracer)

    def get_attr(self, target: Target, args: tuple, kwargs: dict) -> Proxy:
        """A get_attr node of the new graph."""
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_module(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """A call_module node of the new graph."""
        return self.tracer.create_proxy("call_module", target, args, kwargs)

    def call_function(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """A call_function node of the new graph."""
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def call_method(self, target: Target, args: tuple, kwargs: dict) -> Any:
        """A call_method node of the new graph."""
        return self.tracer.create_proxy("call_method", target, args, kwargs)

    def transform(self) -> GraphModule:
        """Run the graph on Proxies and return a GraphModule of the recorded graph."""
        result = super().run(enable_io_processing=False)
        if result is not None:
            self.new_graph.output(
                map_aggregate(result, lambda a: a.node if isinstance(a, Proxy) else a)
            )
        return GraphModule(self.module, self.new_graph)
