"""torch.autograd.graph: the Node interface, saved-tensor hooks, multi-grad hooks, to_dot.

`Node` is an abstract base class that every grad_fn of this library is registered with, so
`isinstance(t.grad_fn, torch.autograd.graph.Node)` holds as in PyTorch. `to_dot` renders a
tensor's backward graph as Graphviz DOT text (for notebooks: `graphviz.Source(to_dot(y))`).
"""

from __future__ import annotations

import abc
import contextlib
import threading
from typing import NamedTuple

import jax
import numpy as np

from .._state import node as _graph
from .._state.node import RemovableHandle
from .._state.tensor import Tensor
from .._tape import engine as _engine
from .._tape import hooks as _hooks
from .function import BackwardCFunction

__all__ = [
    "GradientEdge",
    "Node",
    "RemovableHandle",
    "disable_saved_tensors_hooks",
    "get_gradient_edge",
    "increment_version",
    "register_multi_grad_hook",
    "save_on_cpu",
    "saved_tensors_hooks",
    "to_dot",
]


class Node(abc.ABC):
    """The interface of a backward graph node (a tensor's `grad_fn`, or a leaf's
    AccumulateGrad): `name()`, `next_functions`, `metadata`, `register_hook`,
    `register_prehook`."""

    @abc.abstractmethod
    def name(self) -> str:
        """The node's name, e.g. "MulBackward0"."""

    @property
    @abc.abstractmethod
    def next_functions(self) -> tuple:
        """`(node, output_nr)` per input of the node; `(None, 0)` where no gradient flows."""

    @property
    @abc.abstractmethod
    def metadata(self) -> dict:
        """A dict for user data (anomaly mode stores the forward traceback here)."""

    @abc.abstractmethod
    def register_hook(self, fn):
        """Register `fn(grad_inputs, grad_outputs)`, run after the node's backward."""

    @abc.abstractmethod
    def register_prehook(self, fn):
        """Register `fn(grad_outputs)`, run before the node's backward."""

    @classmethod
    def __subclasshook__(cls, subclass):
        if cls is Node and issubclass(subclass, (_graph.Node, _graph.AccumulateGrad)):
            return True
        return NotImplemented


Node.register(_graph.Node)
Node.register(_graph.AccumulateGrad)
Node.register(BackwardCFunction)


class GradientEdge(NamedTuple):
    """Where a tensor's gradient enters the graph: a node and which of its outputs."""

    node: object
    output_nr: int


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """The GradientEdge of `tensor` (its grad_fn, or a leaf's AccumulateGrad)."""
    if not tensor.requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require "
            "gradients"
        )
    node, output_nr = tensor._grad_edge()
    return GradientEdge(node, output_nr)


def increment_version(tensor) -> None:
    """Bump the version counter of a tensor (or each of several), as an in-place write does."""
    tensors = (tensor,) if isinstance(tensor, Tensor) else tuple(tensor)
    for t in tensors:
        t._version_counter[0] += 1


class saved_tensors_hooks:
    """Context manager: pack every value a node saves with `pack_hook(tensor)` and get it
    back with `unpack_hook(packed) -> Tensor` when the backward reads it.

    Example (keep saved values on the host as numpy arrays)::

        >>> import numpy as np
        >>> def pack(t):
        ...     return np.asarray(t.detach().jax())
        >>> def unpack(a):
        ...     return torch.from_numpy(a)
        >>> x = torch.tensor([0.0, 1.0], requires_grad=True)
        >>> with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        ...     y = (x.exp() * x).sum()
        >>> y.backward()  # unpack runs here
        >>> x.grad
        tensor([1.0000, 5.4366])
    """

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        _hooks.push_saved_hooks(self.pack_hook, self.unpack_hook)
        return self

    def __exit__(self, *args: object) -> None:
        _hooks.pop_saved_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saved values go to host memory (numpy) in the forward and back to their device when
    the backward reads them: trades transfer time for accelerator memory.

    Args:
        pin_memory (bool): accepted for compatibility (JAX manages host buffers itself).
        device_type (str): accepted for compatibility.
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Tensor):
            value = tensor._value
            return (value.devices() if hasattr(value, "devices") else None, np.asarray(value))

        def unpack_from_cpu(packed) -> Tensor:
            devices, array = packed
            if devices:
                return Tensor._wrap(jax.device_put(array, next(iter(devices))))
            return Tensor._wrap(jax.numpy.asarray(array))

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Inside this block, registering saved-tensor hooks raises RuntimeError(error_message)."""
    state = _hooks.saved_hooks
    previous = state.disabled
    state.disabled = error_message
    try:
        yield
    finally:
        state.disabled = previous


# ----------------------------------------------------------------------------- to_dot
def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(tensors, *, params: dict | None = None, show_attrs: bool = False) -> str:
    """Graphviz DOT text of the backward graph of `tensors` (one Tensor or several).

    Roots are drawn as ovals with their shape, nodes as boxes with their name, leaves'
    AccumulateGrad nodes in blue with the leaf's shape (and its name, when `params` maps
    names to tensors), as torchviz does.

    Example::

        >>> x = torch.ones(2, requires_grad=True)
        >>> print(torch.autograd.graph.to_dot((x * 2).sum(), params={"x": x}))
        digraph {
          graph [rankdir=BT size="12,12"]
          node [align=left fontname=monospace ...]
          r0 [label="output 0...
          n0 -> r0
          n0 [label="SumBackward0" fillcolor=lightgrey]
          n1 -> n0
          n1 [label="MulBackward0" fillcolor=lightgrey]
          n2 -> n1
          n2 [label="x...(2,)" fillcolor=lightblue]
        }
    """
    roots = (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)
    names = {id(t): name for name, t in (params or {}).items()}
    lines = [
        "digraph {",
        '  graph [rankdir=BT size="12,12"]',
        "  node [align=left fontname=monospace fontsize=10 height=0.2 ranksep=0.1 "
        "shape=box style=filled]",
    ]
    ids: dict = {}

    def ident(obj) -> str:
        if id(obj) not in ids:
            ids[id(obj)] = f"n{len(ids)}"
        return ids[id(obj)]

    seen: set = set()
    stack = []
    for index, root in enumerate(roots):
        label = f"output {index}\n{tuple(root.shape)}"
        lines.append(f"  r{index} [label={_quote(label)} fillcolor=darkolivegreen1 shape=oval]")
        edge = root._grad_edge()
        if edge is not None:
            lines.append(f"  {ident(edge[0])} -> r{index}")
            stack.append(edge[0])
    keep = []  # hold visited nodes so their ids stay unique while drawing
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        keep.append(node)
        if isinstance(node, _graph.AccumulateGrad):
            variable = node.variable
            label = names.get(id(variable), "")
            label = (label + "\n" if label else "") + str(tuple(variable.shape))
            lines.append(f"  {ident(node)} [label={_quote(label)} fillcolor=lightblue]")
            continue
        label = node.name()
        if show_attrs and getattr(node, "static", None):
            label += "\n" + "\n".join(f"{k}: {v}" for k, v in node.static)
        lines.append(f"  {ident(node)} [label={_quote(label)} fillcolor=lightgrey]")
        for edge in node.edges:
            if edge is not None:
                lines.append(f"  {ident(edge[0])} -> {ident(node)}")
                stack.append(edge[0])
    lines.append("}")
    return "\n".join(lines)


class _MultiHandle:
    """The handle of a hook registered through several others (register_multi_grad_hook)."""

    def __init__(self, handles: tuple) -> None:
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()

    def __enter__(self) -> _MultiHandle:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode: str = "all"):
    """Call `fn` once per backward when the gradients of `tensors` have been computed.

    mode="all": `fn(grads)` with one entry per tensor (None for those the backward does not
    reach), after the last of them is computed. mode="any": `fn(grad)` with the first one.

    Example::

        >>> a = torch.ones(1, requires_grad=True); b = torch.ones(1, requires_grad=True)
        >>> h = torch.autograd.graph.register_multi_grad_hook((a, b), print)
        >>> (a * 2 + b).sum().backward()
        [tensor([2.]), tensor([1.])]
    """
    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    tensors = tuple(tensors)
    lock = threading.Lock()
    if mode == "all":
        count: dict = {}
        buffer: dict = {}
        expected: dict = {}
        edges = [t._grad_edge() for t in tensors]

        def inner(index):
            def hook(grad):
                task = _engine.current_task_id()
                if task == -1:
                    raise AssertionError("expected this hook to be called inside a backward call")
                with lock:
                    seen = count.get(task, 0)
                    count[task] = seen + 1
                    if seen == 0:
                        expected[task] = sum(
                            _engine.will_execute(edge[0]) for edge in edges if edge is not None
                        )
                        buffer[task] = [None] * len(tensors)
                buffer[task][index] = grad
                if seen == expected[task] - 1:
                    grads = buffer.pop(task)
                    del count[task], expected[task]
                    fn(grads)

            return hook

        handles = tuple(t.register_hook(inner(i)) for i, t in enumerate(tensors))
    else:
        ran: dict = {}

        def any_hook(grad):
            task = _engine.current_task_id()
            with lock:
                if ran.get(task):
                    return
                ran.clear()
                ran[task] = True
            fn(grad)

        handles = tuple(t.register_hook(any_hook) for t in tensors)
    return _MultiHandle(handles)
