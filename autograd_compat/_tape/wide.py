"""Wide cat and stack: many inputs without one XLA program per fan-in.

One jitted function of n inputs (and its vjp, of n outputs) takes XLA time and memory that grow
faster than n: `stack` of 1,000 tensors as one program compiles for 8 s forward and 67 s
backward, and 10,000 abort. Past `WIDE` inputs, cat and stack run in chunks of `CHUNK` inputs
(each chunk's function compiled once per chunk shape, then reused), combined by a cat of the
chunks' results; the op still records one node with one edge per input, PyTorch's
`CatBackward0` or `StackBackward0` (same name, next_functions and gradients). That node's
backward slices the output gradient, `CHUNK` pieces per call, at runtime offsets; it is a
stepwise-only node, as a custom Function's, so no fused backward is built around it.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._pure.op import INEXACT, Op, register
from .._state import modes as _grad_mode
from .._state.modes import modes
from .._state.node import Node, Step
from .._state.tensor import Tensor
from .record import apply

WIDE = 64  # more inputs than this: chunked
CHUNK = 32  # inputs per compiled chunk (forward) and gradients per slicing call (backward)


def _cat_chunk(*xs, dim, dtype):
    return jnp.concatenate([x.astype(dtype) for x in xs], axis=dim)


def _stack_chunk(*xs, dim, dtype):
    return jnp.stack([x.astype(dtype) for x in xs], axis=dim)


def _pieces(g, starts, *, sizes, dim, squeeze, dtypes):
    """Slices of the gradient `g` along `dim` at the runtime `starts` (an int64 host array),
    one per input, each cast to its input's dtype."""
    out = []
    for i, (size, dtype) in enumerate(zip(sizes, dtypes)):
        piece = lax.dynamic_slice_in_dim(g, starts[i], size, dim)
        out.append((lax.squeeze(piece, (dim,)) if squeeze else piece).astype(dtype))
    return tuple(out)


_CAT_CHUNK = register("_internal.wide_cat", _cat_chunk, node="CatBackward0", saves="none")
_STACK_CHUNK = register("_internal.wide_stack", _stack_chunk, node="StackBackward0", saves="none")
_PIECES = register(
    "_internal.wide_pieces", _pieces, node="SliceBackward0", saves="positions", shown_inputs=(0,)
)


class WideNode(Node):
    """The node of a wide cat or stack: one edge per input, a chunked slicing backward."""

    __slots__ = ("pieces",)
    custom = True  # the engine calls `_call_backward` and never fuses it
    pieces: tuple  # (starts, sizes, dtypes, dim, squeeze) of the inputs' gradients

    def _call_backward(self, cts: list, create_graph: bool) -> list:
        """One gradient per edge: slices of the output gradient, `CHUNK` per compiled call."""
        ct = cts[0]
        n = len(self.edges)
        if ct is None:
            return [None] * n
        starts, sizes, dtypes, dim, squeeze = self.pieces
        grads: list = []
        for i in range(0, n, CHUNK):
            if all(edge is None for edge in self.edges[i : i + CHUNK]):
                grads.extend([None] * len(self.edges[i : i + CHUNK]))
                continue
            chunk = apply(
                _PIECES,
                ct,
                starts[i : i + CHUNK],
                sizes=sizes[i : i + CHUNK],
                dim=dim,
                squeeze=squeeze,
                dtypes=dtypes[i : i + CHUNK],
            )
            grads.extend(chunk)
        return [g if edge is not None else None for g, edge in zip(grads, self.edges)]

    def check_saved(self) -> tuple:
        return ()


_wide_classes: dict = {}  # one subclass per node name (two: CatBackward0, StackBackward0)


def _wide_node(op: Op, edges: tuple, out) -> WideNode:
    cls = _wide_classes.get(op.name)
    if cls is None:
        cls = _wide_classes[op.name] = type(op.name, (WideNode,), {"__slots__": ()})
    step = Step(op, (), (False,) * len(edges), (), ((out.shape, out.dtype),), None)
    node = cls(step, edges, (), (), False)
    node.hot = None  # a custom backward: never fused
    return node


def _combine(values: list, chunk_op: Op, dim: int, dtype) -> jax.Array:
    """The chunked forward: `chunk_op` over chunks of `CHUNK` values, then cats of the chunk
    results (in chunks again) until one array is left."""
    op = chunk_op
    while True:
        key = (("dim", dim), ("dtype", dtype))
        values = [op.compiled(key)(*values[i : i + CHUNK]) for i in range(0, len(values), CHUNK)]
        if len(values) == 1:
            return values[0]
        op = _CAT_CHUNK


def is_wide(n: int) -> bool:
    """Whether a cat or stack of `n` tensors takes the chunked path (not in the slow modes:
    forward AD, anomaly, saved-tensor hooks and traces record through `apply`)."""
    return n > WIDE and not modes.special


def wide(node_op: Op, tensors: tuple, *, dim: int, dtype, stack: bool) -> Tensor:
    """cat (or stack) of more than `WIDE` tensors along `dim` into `dtype` (a jax dtype),
    recorded as one `node_op` node. Every input is non-empty (cat's skipped empties are not
    handled here)."""
    values = [t._value for t in tensors]
    out = _combine(values, _STACK_CHUNK if stack else _CAT_CHUNK, dim, dtype)
    requires = [t._requires_grad for t in tensors]
    if not (True in requires and node_op.differentiable and _grad_mode._state.enabled):
        return Tensor._wrap(out)
    if np.dtype(out.dtype) not in INEXACT:
        return Tensor._wrap(out)
    edges = tuple(t._grad_edge() if r else None for t, r in zip(tensors, requires))
    node = _wide_node(node_op, edges, out)
    sizes = tuple(1 if stack else v.shape[dim] for v in values)
    starts = np.cumsum((0,) + sizes[:-1], dtype=np.int64)
    node.pieces = (starts, sizes, tuple(v.dtype for v in values), dim, stack)
    return Tensor._wrap(out, node, 0)
