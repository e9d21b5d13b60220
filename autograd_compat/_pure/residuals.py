"""Saved residuals: an op's backward that reads what its forward computed instead of redoing it.

An op registered with `residuals=True` runs, when a node is recorded, its derived forward
`saving_of(op)`: `jax.vjp` of its function in the forward's program, which returns the op's
outputs and the pullback's residuals (the leaves of the `jax.tree_util.Partial` that
`jax.vjp` returns). The node saves those leaves; its backward is `pullback_of(op)`, which
rebuilds the pullback from them and applies it to the cotangents: softmax's backward reads
its saved result and never computes `exp` again, an LSTM layer's reads its saved gates and
never runs the forward recurrence again.

A `Layout` says, per leaf, whether it is one of the op's inputs, one of its outputs, or a new
array the forward program returns after the outputs: an input or an output is saved as the
same array, never a copy, and so is an input the function reshaped (group norm's grouped
view of its input), which the backward reshapes again. It is found once per (op, static
arguments, input avals, requires_grad pattern) by tracing the forward (`layout_of`): tracing
is deterministic, so the forward program's residuals are the leaves of that trace's pullback,
in its order.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .op import Op, _restricted, conj_complex, lru_get, lru_put

LAYOUTS_PER_OP = 64  # layouts kept per op (an LRU): one per static key, shapes and pattern

INPUT, OUTPUT, NEW = 0, 1, 2  # where a residual leaf comes from (`Layout.sources`)


class Layout(NamedTuple):
    """Where each residual leaf of an op's pullback comes from, and how to rebuild it."""

    tree: Any  # the pullback's pytree structure (`jax.tree_util.Partial`'s)
    sources: tuple  # per leaf, (INPUT, input index), (OUTPUT, output index) or (NEW, k)
    new: tuple  # the leaf positions the forward returns after its outputs, in that order
    tupled: bool  # whether the op's function returns a tuple
    out_meta: tuple  # the (shape, dtype) of each output
    shapes: tuple  # per leaf, the shape an input is reshaped to for it, else None

    @property
    def connected(self) -> bool:
        """Whether every leaf is an input or an output: then the pullback applied to them as
        tensors in the graph is differentiable again (create_graph), as PyTorch's backward
        from a saved result is."""
        return not self.new


def _pullback(fn, static: tuple, values, requires: tuple):
    """The outputs of `fn` at `values` and the pullback of those inputs that require grad."""
    index = [i for i, r in enumerate(requires) if r]
    return jax.vjp(_restricted(fn, static, values, index), *(values[i] for i in index))


def layout_of(op: Op, static: tuple, avals: tuple, requires: tuple) -> Layout:
    """The `Layout` of `op`'s residuals at these input avals ((shape, dtype) pairs) and
    requires_grad pattern; traced once, kept per op (an LRU of `LAYOUTS_PER_OP`)."""
    key = (static, avals, requires)
    layout = lru_get(op._layouts, key)
    if layout is None:
        layout = _trace_layout(op.fn, static, avals, requires)
        lru_put(op._layouts, key, layout, LAYOUTS_PER_OP)
    return layout


def _trace_layout(fn, static: tuple, avals: tuple, requires: tuple) -> Layout:
    found: dict = {}

    def forward(*values):
        out, pullback = _pullback(fn, static, values, requires)
        leaves, found["tree"] = jax.tree.flatten(pullback)
        found["tupled"] = type(out) is tuple
        return out, leaves

    shapes = [jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in avals]
    closed, (out_shapes, _) = jax.make_jaxpr(forward, return_shape=True)(*shapes)
    jaxpr = closed.jaxpr
    n_out = len(jax.tree.leaves(out_shapes))
    position: dict = {}  # variable (by identity) -> its source; an equal constant is as good
    for i, var in enumerate(jaxpr.invars):
        position.setdefault(id(var), (INPUT, i))
    for j, var in enumerate(jaxpr.outvars[:n_out]):
        position.setdefault(id(var), (OUTPUT, j))
    reshaped = _reshaped_inputs(jaxpr)
    sources: list = []
    reshapes: list = []
    new: list = []
    for k, var in enumerate(jaxpr.outvars[n_out:]):
        source = position.get(id(var))
        shape = None
        if source is None and id(var) in reshaped:
            source, shape = reshaped[id(var)]
        if source is None:
            source = position[id(var)] = (NEW, len(new))
            new.append(k)
        sources.append(source)
        reshapes.append(shape)
    out_meta = tuple((s.shape, s.dtype) for s in jax.tree.leaves(out_shapes))
    tree, tupled = found["tree"], found["tupled"]
    return Layout(tree, tuple(sources), tuple(new), tupled, out_meta, tuple(reshapes))


def _reshaped_inputs(jaxpr) -> dict:
    """Variable (by identity) -> ((INPUT, input index), shape) for each plain reshape of an
    input in `jaxpr`."""
    inputs = {id(var): i for i, var in enumerate(jaxpr.invars)}
    found = {}
    for eqn in jaxpr.eqns:
        if eqn.primitive.name != "reshape" or eqn.params.get("dimensions") is not None:
            continue
        operand = eqn.invars[0]
        if id(operand) in inputs:
            shape = tuple(eqn.outvars[0].aval.shape)
            found[id(eqn.outvars[0])] = ((INPUT, inputs[id(operand)]), shape)
    return found


def _saving_pure(*values, fn, static, requires, new):
    """(inputs...) -> (outputs..., the new residual leaves at positions `new`...)."""
    out, pullback = _pullback(fn, static, values, requires)
    leaves = jax.tree.leaves(pullback)
    outs = out if type(out) is tuple else (out,)
    return (*outs, *[leaves[k] for k in new])


def saving_of(op: Op) -> Op:
    """The derived op that runs `op` and also returns its pullback's new residuals."""
    if op._saving_op is None:
        fn = functools.partial(_saving_pure, fn=op.fn)
        op._saving_op = Op(op.name, fn, differentiable=False, deferrable=op.deferrable)
    return op._saving_op


def _zero(shape, dtype):
    if np.dtype(dtype).kind in "fc":
        return jnp.zeros(shape, dtype)
    return np.zeros(shape, jax.dtypes.float0)


def _pullback_pure(*args, layout: Layout, ct_mask: tuple):
    """(residual leaves..., present cotangents...) -> one gradient per input that requires
    grad, complex ones in PyTorch's convention (`op.conj_complex`)."""
    n = len(layout.sources)
    leaves = [a if s is None else a.reshape(s) for a, s in zip(args[:n], layout.shapes)]
    pullback = jax.tree.unflatten(layout.tree, leaves)
    cts = iter(args[n:])
    ct = []
    for present, (shape, dtype) in zip(ct_mask, layout.out_meta):
        ct.append(conj_complex(next(cts)) if present else _zero(shape, dtype))
    return tuple(conj_complex(g) for g in pullback(tuple(ct) if layout.tupled else ct[0]))


def pullback_of(op: Op) -> Op:
    """The derived op whose forward is the pullback of `op` from its saved residuals: the
    backward of `op`'s residual nodes."""
    if op._pullback_op is None:
        op._pullback_op = Op(f"{op.name}Backward", _pullback_pure, deferrable=op.deferrable)
    return op._pullback_op
