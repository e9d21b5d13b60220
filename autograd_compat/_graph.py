"""The recorded graph: Node (a tensor's grad_fn) and AccumulateGrad (a leaf's sink).

A Node keeps what its backward needs: the op and its static arguments, the primal inputs
the op's vjp reads (released after backward unless retain_graph), and one edge per array
input, `(node, output_nr)` or None, which is what `next_functions` shows. The backward itself
lives in the engine; this module is data.
"""

from __future__ import annotations

import itertools
import weakref

from . import _errors

_sequence = itertools.count()


class Node:
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
        "seq",
        "had_saved",
        "pre_hooks",
        "hooks",
        "prehooks_node",
        "retained",
        "metadata",
        "__weakref__",
    )

    def __init__(self, op, static, edges, saved, saved_mask, placeholders, versions, out_meta):
        self.op = op
        self.static = static
        self.edges = edges
        self.saved = saved
        self.saved_mask = saved_mask
        self.placeholders = placeholders
        self.versions = versions
        self.out_meta = out_meta
        self.had_saved = any(saved_mask)
        self.seq = next(_sequence)
        self.pre_hooks = None  # output_nr -> list of tensor hooks (register_hook on non-leaves)
        self.retained = None  # output_nr -> weakref of a tensor that called retain_grad()
        self.hooks = None
        self.prehooks_node = None
        self.metadata = {}

    def name(self) -> str:
        """PyTorch's name for this node, e.g. "MulBackward0"."""
        return self.op.name

    @property
    def next_functions(self) -> tuple:
        """One `(node, output_nr)` pair per array input; `(None, 0)` where no gradient flows."""
        return tuple(edge if edge is not None else (None, 0) for edge in self.edges)

    def release(self) -> None:
        """Free the saved primals (after a backward without retain_graph)."""
        self.saved = None

    def check_saved(self) -> tuple:
        """The saved primals, or PyTorch's 'backward a second time' error once released."""
        if self.saved is None:
            if self.had_saved:
                raise RuntimeError(_errors.BACKWARD_TWICE)
            return ()
        return self.saved

    def __repr__(self) -> str:
        return f"<{self.name()} object at {hex(id(self))}>"


class AccumulateGrad:
    """The sink of a leaf tensor: gradients reaching it are summed into the leaf's `.grad`."""

    __slots__ = (
        "variable",
        "seq",
        "pre_hooks",
        "hooks",
        "prehooks_node",
        "retained",
        "post_accumulate_hooks",
        "metadata",
        "__weakref__",
    )
    edges = ()
    next_functions = ()
    had_saved = False

    def __init__(self, variable) -> None:
        self.variable = variable
        self.seq = 2**63  # PyTorch runs leaf accumulation as soon as it is ready
        self.pre_hooks = None
        self.retained = None
        self.hooks = None
        self.prehooks_node = None
        self.post_accumulate_hooks = None
        self.metadata = {}

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def release(self) -> None:
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
