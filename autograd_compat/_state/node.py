"""The recorded graph: Node (a tensor's grad_fn) and AccumulateGrad (a leaf's sink).

A Node keeps what its backward needs: its `Step` (the op, its static arguments, which inputs
it saved, the shapes of those it did not, its outputs' shapes, the layout of its residuals),
the primal inputs the op's vjp reads, or the residuals its forward saved (`_pure/residuals`)
followed, where those are not all inputs and outputs, by those primal inputs (released after
backward unless retain_graph), its version watches, and one edge per
array input, a `(node, output_nr)` pair or None, which is what `next_functions` shows.

A version watch is a `(counter, version, ref)` triple per saved tensor: its version counter
(shared by its views), the version it must still be at when the backward reads it (else
PyTorch's "modified by an inplace operation" error), and a weak reference to it for that error
(a `SavedRef` for a view). A node whose op saves its result (`Op.saves == "output"`) watches
that result instead (`watches_result`). The recorder makes one per saved tensor per op: a plain
tuple, read only by unpacking (a NamedTuple's `__new__` is a Python call, ~120 ns more).

The backward itself lives in the engine; this module is data, plus the node-level hook
registration.
"""

from __future__ import annotations

import itertools
import weakref
from collections import OrderedDict
from typing import Any, NamedTuple

from .._defer.lazy import Pending, resolved
from .._pure import dtypes as _dtypes
from .._pure import errors as _errors

_sequence = itertools.count()


class Step(NamedTuple):
    """What a node's backward call depends on besides its values: one tuple shared by every
    node of an op the recorder knows at these shapes (`_tape/record._recipe`)."""

    op: Any  # the `Op` whose derived vjp is the backward
    static: tuple  # its static arguments, as (name, value) pairs
    saved_mask: tuple  # per input, whether the node saved its value
    placeholders: tuple  # the (shape, dtype) of each input not saved
    out_meta: tuple  # the (shape, dtype) of each output
    residuals: Any  # the `_pure/residuals.Layout` of a node that saved residuals, else None


def watches_result(node) -> bool:
    """Whether `node` watches the version of its result (its op saves its output), not of its
    inputs."""
    return node.op is not None and node.op.saves == "output"


class RemovableHandle:
    """A handle that removes a hook from the dict(s) it was registered in.

    Example::

        >>> module = torch.nn.Linear(2, 1)
        >>> def hook(module, args, output):
        ...     print("forward:", tuple(output.shape))
        >>> handle = module.register_forward_hook(hook)
        >>> _ = module(torch.ones(3, 2))
        forward: (3, 1)
        >>> handle.remove()
        >>> _ = module(torch.ones(3, 2))  # the hook no longer runs
    """

    _next_id = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._next_id)
        if extra_dict is None:
            extra_dict = []
        elif isinstance(extra_dict, dict):
            extra_dict = [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self) -> None:
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            extra = ref()
            if extra is not None and self.id in extra:
                del extra[self.id]

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *args) -> None:
        self.remove()


def _register(node, attribute: str, hook, prepend: bool = False):
    table = getattr(node, attribute)
    if table is None:
        table = OrderedDict()  # a handle holds its table weakly, as PyTorch's does
        setattr(node, attribute, table)
        node.hot = None  # (see `_NodeMethods`)
    handle = RemovableHandle(table)
    table[handle.id] = hook
    if prepend:
        items = list(table.items())
        table.clear()
        table[handle.id] = hook
        table.update(items)
    return handle


class _NodeMethods:
    """What Node and AccumulateGrad share (PyTorch's Node interface): their run order, hook
    tables and metadata, and hook registration.

    `hot`: the `Step` by which the engine's hot pass (`_tape/hot.hot_schedule`)
    matches this node against a backward it ran before; None where it may not: a leaf's sink,
    a custom Function's node, and a node since it got a hook table or packed saved values. So
    that pass reads one field where it read the five of the step, the four hook tables and
    the node's class."""

    __slots__ = (
        "seq",
        "hot",
        "pre_hooks",
        "hooks",
        "prehooks_node",
        "retained",
        "_metadata",
        "__weakref__",
    )

    def _init_hooks(self, seq: int) -> None:
        """Number this node for the engine's order and start with no hooks."""
        self.seq = seq
        self.hot: Step | None = None
        self.pre_hooks = None  # output_nr -> list of tensor hooks (register_hook on non-leaves)
        self.retained = None  # output_nr -> weakref of a tensor that called retain_grad()
        self.hooks = None
        self.prehooks_node = None
        self._metadata: dict | None = None

    @property
    def metadata(self) -> dict:
        """PyTorch's free-form dict on a node, made on first use (most nodes never need one)."""
        metadata = self._metadata
        if metadata is None:
            metadata = self._metadata = {}
        return metadata

    def register_hook(self, fn):
        """Call `fn(grad_inputs, grad_outputs)` after this node's backward; it may return
        new grad_inputs. Returns a handle whose `remove()` unregisters it."""
        return _register(self, "hooks", fn)

    def register_prehook(self, fn):
        """Call `fn(grad_outputs)` before this node's backward; it may return new
        grad_outputs. Returns a handle whose `remove()` unregisters it."""
        return _register(self, "prehooks_node", fn)

    def _sequence_nr(self) -> int:
        return self.seq


class Node(_NodeMethods):
    """A recorded op application, the `grad_fn` of the tensors it produced."""

    __slots__ = (
        "op",
        "static",
        "edges",
        "saved",
        "saved_mask",
        "placeholders",
        "versions",
        "out_meta",
        "residuals",
        "had_saved",
    )
    custom = False  # True for nodes whose backward is user Python code (autograd.Function)

    def __init__(self, step: Step, edges, saved, versions, had_saved) -> None:
        """`step`: what its backward call depends on besides its values (`Step`); `versions`:
        its version watches (see the module's docstring)."""
        self.op, self.static, self.saved_mask, self.placeholders, self.out_meta, _ = step
        self.residuals = step.residuals
        self.hot = step
        self.edges = edges
        self.saved = saved
        self.versions = versions
        self.had_saved = had_saved  # saved primals to free (a view op's positions are not)
        self.seq = next(_sequence)  # (`_init_hooks` inline: a node is made per op)
        self.pre_hooks = self.retained = self.hooks = self.prehooks_node = None
        self._metadata = None

    def name(self) -> str:
        """PyTorch's name for this node, e.g. "MulBackward0"."""
        return self.op.name

    @property
    def next_functions(self) -> tuple:
        """One `(node, output_nr)` pair per differentiable input; `(None, 0)` where no gradient
        flows. Index arrays are inputs of the op but not of PyTorch's node: not listed. A
        CopySlices node lists, as PyTorch's, its base's edge and then the edges of the in-place
        op it wraps except the first (the view written to): that op's node is internal."""
        edges = self.edges
        name = self.name()
        if name == COPY_SLICES_NAME:
            base_edge, (wrapped, _) = edges[:2]  # the base's and the wrapped in-place op's
            return (_pair(base_edge),) + wrapped.next_functions[1:]
        op = self.op  # None for a custom Function's node: it lists all its inputs
        if op is not None and op.shown_inputs is not None:
            edges = [edges[i] for i in op.shown_inputs if i < len(edges)]
        return tuple(_pair(edge) for edge in edges)

    def release(self) -> None:
        """Free the saved primals (after a backward without retain_graph)."""
        if self.had_saved:
            self.saved = None

    def check_alive(self) -> None:
        """PyTorch's 'backward a second time' error if the saved values were freed."""
        if self.saved is None and self.had_saved:
            raise RuntimeError(_errors.BACKWARD_TWICE)

    def saved_values(self) -> tuple:
        """The saved primals as stored (deferred ones may be `_defer/lazy.Pending`), or
        PyTorch's 'backward a second time' error once released."""
        saved = self.saved
        if saved is None:
            if self.had_saved:
                raise RuntimeError(_errors.BACKWARD_TWICE)
            return ()
        return saved

    def check_saved(self) -> tuple:
        """The saved primals (deferred ones computed), or PyTorch's 'backward a second time'
        error once released."""
        saved = self.saved_values()
        for value in saved:
            if type(value) is Pending:
                saved = self.saved = tuple(resolved(saved))
                break
        return saved

    def __repr__(self) -> str:
        return f"<{type_name(self)} object at {hex(id(self))}>"


COPY_SLICES_NAME = "torch::autograd::CopySlices"


def _pair(edge) -> tuple:
    return edge if edge is not None else (None, 0)


_node_classes: dict = {}


def node_class(op) -> type:
    """The class of an op's nodes: a Node subclass of its own, so `type(node).__name__` is
    PyTorch's class name ("MulBackward0", "CopySlices"); made once per name."""
    name = op.name
    cls = _node_classes.get(name)
    if cls is None:
        cls = _node_classes[name] = type(name.rpartition("::")[2], (Node,), {"__slots__": ()})
    return cls


def type_name(node) -> str:
    """The class name PyTorch's reprs show for a node: its name() without a C++ namespace
    ("torch::autograd::CopySlices" -> "CopySlices")."""
    return node.name().rpartition("::")[2]


class SavedRef(weakref.ref):
    """A node's weak reference to a saved view that also keeps what PyTorch's version error
    prints about it ("[torch.FloatTensor [3]], which is output 0 of AsStrided"): a saved view
    is often a temporary (`a[0] * c`), gone by the time backward finds its base modified."""

    __slots__ = ("type_name", "shape", "producer")

    def __init__(self, t) -> None:
        super().__init__(t)  # type: ignore[call-arg]  # typeshed has no ref.__init__
        self.type_name = f"torch.{_dtypes.LEGACY_TYPE_NAMES[t.dtype]}"
        self.shape = list(t.shape)
        # once its version moved, a view in the graph has a regenerated AsStrided node
        in_graph = t._requires_grad and not t._storage.leaf
        self.producer = ", which is output 0 of AsStrided" if in_graph else ""


def saved_ref(t):
    """The weak reference a node keeps to saved input `t` (a SavedRef for views)."""
    rec = t._storage
    return weakref.ref(t) if rec is None or rec.base is None else SavedRef(t)


class AccumulateGrad(_NodeMethods):
    """The sink of a leaf tensor: gradients reaching it are summed into the leaf's `.grad`."""

    __slots__ = ("variable",)
    edges = ()
    next_functions = ()
    had_saved = False
    custom = False

    def __init__(self, variable) -> None:
        self.variable = variable
        self._init_hooks(2**63)  # PyTorch runs leaf accumulation as soon as it is ready

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def release(self) -> None:
        pass

    def check_alive(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"


def accumulator_of(leaf) -> AccumulateGrad:
    """A leaf's AccumulateGrad, made on first use (held weakly by the leaf)."""
    ref = leaf._accumulator
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(leaf)
        leaf._accumulator = weakref.ref(node)
    return node
