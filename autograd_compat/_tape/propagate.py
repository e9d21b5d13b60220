"""What both executors of a backward share: the loop that routes cotangents through a `Plan`
(`propagate`), a node's vjp call (`call_vjp`) and the sum of two gradients (`add`).

The stepwise executor (`_tape/engine`) runs them on Tensors, recording under create_graph;
the fused one (`_tape/fused`) traces them on raw arrays into one jitted function.
"""

from __future__ import annotations

from .._defer import lazy as _lazy
from .._pure.op import vjp_of
from .._state.node import AccumulateGrad, Step
from .._state.tensor import LazyTensor, Tensor
from .schedule import Plan


def add(a, b):
    """Sum two gradients (Tensors, or arrays in the fused trace); None is zero."""
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def propagate(plan: Plan, ready, call) -> list:
    """Route cotangents through a scheduled backward (`plan`), the loop both executors share;
    returns the gradient that reached each target.

    `ready(i, cts)` sees a node's complete cotangents, may replace them and accumulates a
    leaf's; `call(i, cts)` returns the node's input gradients.
    """
    arities, routes, captures = plan.arities, plan.routes, plan.captures
    captured: list = [None] * plan.n_targets
    buffers: dict = {}

    def deliver(index: int, output_nr: int, ct) -> None:
        slots = buffers.setdefault(index, [None] * max(arities[index], 1))
        slots[output_nr] = add(slots[output_nr], ct)

    for seed in plan.seeds:
        deliver(*seed)
    for index, arity in enumerate(arities):
        cts = ready(index, buffers.pop(index, None) or [None] * max(arity, 1))
        for output_nr, target_index in captures.get(index, ()):
            captured[target_index] = cts[output_nr]
        if arity == 0 or all(ct is None for ct in cts):
            continue
        if all(route is None for route in routes[index]):
            continue
        for route, grad in zip(routes[index], call(index, cts)):
            if route is not None and grad is not None:
                child, child_nr = route
                deliver(child, child_nr, grad)
    return captured


def call_vjp(run, step: Step, primals, cts: list, requires: tuple) -> list:
    """A node's backward, the call both executors make: its derived vjp op from the output
    cotangents (None: zero) to one gradient per input, None where `requires` is False.

    `run(op, *args, **static)` is `apply` stepwise (Tensors or arrays; recorded under
    create_graph) and `fused.traced` inside the fused function (raw arrays).
    """
    grads = iter(
        run(
            vjp_of(step.op),
            *primals,
            *[ct for ct in cts if ct is not None],
            static=step.static,
            requires=requires,
            saved_mask=step.saved_mask,
            placeholders=step.placeholders,
            ct_mask=tuple(ct is not None for ct in cts),
        )
    )
    return [next(grads) if r else None for r in requires]


def _saved_primal(node, value, index: int) -> Tensor:
    """A saved primal as a Tensor that keeps its place in the graph (for create_graph)."""
    edge = node.edges[index]
    cls = LazyTensor if type(value) is _lazy.Pending else Tensor
    if edge is None:
        return cls._wrap(value)
    source, output_nr = edge
    if isinstance(source, AccumulateGrad):
        return source.variable
    return cls._wrap(value, source, output_nr)


def graph_primals(node) -> list:
    """A node's saved primals as Tensors that keep their places in the graph (`_saved_primal`),
    deferred ones still deferred: what a create_graph backward records its ops on."""
    saved_index = [i for i, s in enumerate(node.saved_mask) if s]
    return [_saved_primal(node, v, i) for v, i in zip(node.saved_values(), saved_index)]
