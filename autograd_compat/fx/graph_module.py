"""torch.fx.graph_module: `GraphModule`, an nn.Module running a captured program, and the
helpers libraries import with it."""

from __future__ import annotations

import copy
import itertools
import linecache
from typing import Any

from .._state.tensor import Tensor
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from .codegen import PythonCode
from .graph import Graph

__all__ = ["GraphModule"]

_USER_PRESERVED_ATTRIBUTES_KEY = "_user_preserved_attributes"
_keys = itertools.count()


class GraphModule(Module):
    """An nn.Module running an fx Graph: its `forward` is the Python code generated from
    the graph (`code`), remade by `recompile()` and whenever `graph` is set. Each instance
    has its own class, so that forward can be set per instance."""

    def __new__(cls, *args, **kwargs):
        base = next(t for t in cls.__mro__ if t.__qualname__.split(".")[-1] != "GraphModuleImpl")

        class GraphModuleImpl(base):
            pass

        return super().__new__(GraphModuleImpl)

    def __init__(
        self, root: Module | dict[str, Any], graph: Graph, class_name: str = "GraphModule"
    ) -> None:
        super().__init__()
        type(self).__name__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError(
                            f"Node {node} referenced target {node.target} but "
                            "that target was not provided in ``root``!"
                        )
                    _assign_attr(root[node.target], self, node.target)
        else:
            raise RuntimeError("Unsupported type " + str(root) + " passed for root!")
        self.graph = graph
        self._tracer_cls = graph._tracer_cls
        self.meta: dict[str, Any] = {}

    @property
    def graph(self) -> Graph:
        """The Graph this module runs; setting it recompiles."""
        return self._graph

    @graph.setter
    def graph(self, g: Graph) -> None:
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph instance, but got {type(g)}")
        self.__dict__["_graph"] = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self) -> str:
        """The Python source of this module's forward."""
        if not hasattr(self, "_code"):
            raise RuntimeError("Code has not been generated! Please report a bug to PyTorch")
        return self._code

    def recompile(self) -> PythonCode:
        """Generate `forward` from the graph again (after editing it)."""
        python_code = self._graph.python_code(root_module="self")
        self.__dict__["_code"] = python_code.src
        key = f"<eval_with_key>.{next(_keys)}"
        linecache.cache[key] = (len(python_code.src), None, python_code.src.splitlines(True), key)
        namespace = dict(python_code.globals)
        exec(compile(python_code.src, key, "exec"), namespace)  # noqa: S102
        type(self).forward = namespace["forward"]  # type: ignore[method-assign]
        return python_code

    def print_readable(
        self,
        print_output: bool = True,
        include_stride: bool = False,
        include_device: bool = False,
        colored: bool = False,
        **kwargs,
    ) -> str:
        """The module's code as a class definition (printed unless `print_output=False`)."""
        body = "\n".join(
            f"    {line}" if line else line for line in self.code.strip("\n").splitlines()
        )
        text = f"class {type(self).__name__}(torch.nn.Module):\n{body}\n"
        if print_output:
            print(text)
        return text

    def __deepcopy__(self, memo):
        copied = GraphModule.__new__(type(self))
        Module.__init__(copied)
        memo[id(self)] = copied
        state = {k: copy.deepcopy(v, memo) for k, v in self.__dict__.items() if k != "_graph"}
        copied.__dict__.update(state)
        type(copied).__name__ = type(self).__name__
        copied.graph = copy.deepcopy(self._graph)
        return copied

    def __reduce__(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("_graph", "_code")}
        base = type(self).__mro__[1]
        return (_rebuild, (base, type(self).__name__, state, self._graph))

    def __copy__(self):
        return GraphModule(self, self._graph, type(self).__name__)

    def __str__(self) -> str:
        return super().__str__() + "\n\n" + self.code


def _rebuild(base: type, class_name: str, state: dict, graph: Graph) -> GraphModule:
    """A pickled GraphModule again: its state, its graph, its code generated anew."""
    module = GraphModule.__new__(base)
    Module.__init__(module)
    module.__dict__.update(state)
    type(module).__name__ = class_name
    module.graph = graph
    return module


class _CodeOnlyModule(Module):
    """The module holding a GraphModule's state (its `__dict__`) when it is deep-copied."""

    def __init__(self, body: dict) -> None:
        super().__init__()
        self.__dict__ = body


def _assign_attr(value: Any, to_module: Module, target: str) -> None:
    """Set the attribute at dotted path `target` of `to_module`, creating parent Modules."""
    *parents, field = target.split(".")
    for name in parents:
        if not hasattr(to_module, name):
            setattr(to_module, name, Module())
        to_module = getattr(to_module, name)
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        to_module.register_buffer(field, value)
    else:
        setattr(to_module, field, value)


def _copy_attr(from_module: Module, to_module: Module, target: str) -> None:
    """Copy the attribute at dotted path `target` of `from_module` to `to_module`, creating
    empty Modules for missing parents; a plain tensor becomes a buffer."""
    *parents, field = target.split(".")
    for name in parents:
        source, destination = getattr(from_module, name), getattr(to_module, name, None)
        if source is destination:
            return
        if destination is None:
            destination = Module()
            setattr(to_module, name, destination)
        from_module, to_module = source, destination
    value = getattr(from_module, field)
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        to_module.register_buffer(field, value)
    else:
        setattr(to_module, field, value)
