"""torch.fx.graph_module: `GraphModule`, an nn.Module running a captured program, and the
helpers libraries import with it."""

from __future__ import annotations

from .._state.tensor import Tensor
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ._unavailable import unavailable

__all__ = ["GraphModule"]

_USER_PRESERVED_ATTRIBUTES_KEY = "_user_preserved_attributes"


class GraphModule(Module):
    """An nn.Module generated from an fx Graph: constructing one raises (fx program capture
    is not available yet); subclasses and isinstance checks work."""

    def __init__(self, root, graph, class_name: str = "GraphModule") -> None:
        raise unavailable(type(self).__qualname__)


class _CodeOnlyModule(Module):
    """The module holding a GraphModule's code when it is deep-copied or pickled."""

    def __init__(self, body) -> None:
        raise unavailable("graph_module._CodeOnlyModule")


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
