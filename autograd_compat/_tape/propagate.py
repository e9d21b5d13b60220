"""What both executors of a backward share: the loop that routes cotangents through a `Plan`
(`propagate`), a node's vjp call (`call_vjp`) and the sum of two gradients (`add`).

The stepwise executor (`_tape/engine`) runs them on Tensors, recording under create_graph;
the fused one (`_tape/fused`) traces them on raw arrays into one jitted function.
"""

from __future__ import annotations

from .._defer import lazy as _lazy
from .._pure.op import INEXACT, vjp_of
from .._pure.residuals import INPUT, pullback_of
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


def call_vjp(run, step: Step, saved, cts: list, requires: tuple, graph: bool = False) -> list:
    """A node's backward, the call both executors make: from the output cotangents (None:
    zero) to one gradient per input, None where `requires` is False.

    `saved`: the node's saved values as stored, or with `graph` (create_graph) what
    `graph_primals` gives. A node that saved residuals (`step.residuals`) applies its op's
    pullback to them (`residuals.pullback_of`); under create_graph it does where they are all
    inputs and outputs (then in the graph, so the pullback is differentiable again), else the
    derived vjp op of its primals (`vjp_of`), as every other node does.
    `run(op, *args, **static)` is `apply` stepwise (Tensors or arrays; recorded under
    create_graph) and `fused.traced` inside the fused function (raw arrays).
    """
    present = [ct for ct in cts if ct is not None]
    ct_mask = tuple(ct is not None for ct in cts)
    layout = step.residuals
    if layout is not None and not (graph and not layout.connected):
        leaves = saved[: len(layout.sources)]
        grads = iter(run(pullback_of(step.op), *leaves, *present, layout=layout, ct_mask=ct_mask))
    else:
        if layout is not None and not graph:
            saved = saved[len(layout.sources) :]
        grads = iter(
            run(
                vjp_of(step.op),
                *saved,
                *present,
                static=step.static,
                requires=requires,
                saved_mask=step.saved_mask,
                placeholders=step.placeholders,
                ct_mask=ct_mask,
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


def _saved_result(node, value, index: int) -> Tensor:
    """A saved output of `node` as a Tensor whose grad_fn is `node` (for create_graph)."""
    cls = LazyTensor if type(value) is _lazy.Pending else Tensor
    if node.out_meta[index][1] in INEXACT:
        return cls._wrap(value, node, index)
    return cls._wrap(value)


def graph_primals(node) -> list:
    """What a create_graph backward of `node` records its ops on, as Tensors that keep their
    places in the graph, deferred ones still deferred: its saved primals (`_saved_primal`),
    or the residuals it saved where they are all its inputs and outputs (`call_vjp`)."""
    saved = node.saved_values()
    layout = node.residuals
    if layout is not None:
        n = len(layout.sources)
        if layout.connected:
            graph = []
            for (kind, index), value in zip(layout.sources, saved):
                at = _saved_primal if kind == INPUT else _saved_result
                graph.append(at(node, value, index))
            return graph
        saved = saved[n:]
    saved_index = [i for i, s in enumerate(node.saved_mask) if s]
    return [_saved_primal(node, v, i) for v, i in zip(saved, saved_index)]


def graph_count(step: Step) -> int:
    """How many values `graph_primals` gives for a node of this step."""
    layout = step.residuals
    if layout is not None and layout.connected:
        return len(layout.sources)
    return sum(step.saved_mask)
