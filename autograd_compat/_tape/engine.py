"""The backward pass: run recorded nodes in dependency order and return the gradients.

`run_backward` is functional: it returns the gradients that reach the requested targets,
and accumulates into `.grad` only when asked (`autograd.backward`), all or nothing
(`_tape/accumulate`). A backward is scheduled from the graph alone (`_tape/schedule`), or in
one walk when its graph has a structure met before (`_tape/hot`), then run by one of two
executors that share the propagation loop and the per-node call (`_tape/propagate`): the
stepwise one here calls each node's derived vjp op on Tensors (recording it under
create_graph) and runs hooks; the fused one (`_tape/fused`) runs a hot backward as one jitted
function.
"""

from __future__ import annotations

import itertools
import threading
import time
from typing import NamedTuple

from .._defer import lazy as _lazy
from .._pure import errors as _errors
from .._pure.op import constant
from .._state import modes as _grad_mode
from .._state.modes import modes
from .._state.tensor import Tensor
from . import anomaly as _anomaly
from .accumulate import accumulation, commit, entries, run_after_hooks
from .fused import (
    Stepwise,
    Structure,
    fused_for,
    may_fuse,
    may_record_whole,
    reaches_all,
    record_whole,
    run_fused,
    structure_of,
)
from .hooks import run_node_hooks, run_node_prehooks, run_tensor_hooks
from .hot import hot_schedule, remember_backward, remember_grad
from .propagate import call_vjp, graph_primals, propagate
from .record import apply
from .schedule import Plan, Schedule, discover, needed, order_of, step_of, survey


class _Task(NamedTuple):
    """A backward call running in a thread."""

    id: int
    position: dict  # the nodes it runs, each mapped to its index in the order
    whole_graph: bool  # whether it runs the whole graph: no `inputs` of backward, not grad


class _Tasks(threading.local):
    """The backward calls running in this thread (`_Task`s), innermost last."""

    def __init__(self) -> None:
        self.stack: list = []


_tasks = _Tasks()
_task_ids = itertools.count()


def current_task_id() -> int:
    """An id for the innermost backward running in this thread, -1 outside one."""
    return _tasks.stack[-1].id if _tasks.stack else -1


def runs_whole_graph() -> bool:
    """Whether the innermost running backward (if any) was given no targets: what a reentrant
    checkpoint needs (PyTorch's torch.autograd._is_checkpoint_valid)."""
    return not _tasks.stack or _tasks.stack[-1].whole_graph


def will_execute(node) -> bool:
    """Whether the innermost running backward will run `node` (for multi-grad hooks)."""
    return bool(_tasks.stack) and node in _tasks.stack[-1].position


# ----------------------------------------------------------------------------- schedule
def _schedule(roots: list, grads: list, targets, accumulate: bool, create_graph: bool) -> Schedule:
    """A backward's `Schedule`, found from the graph alone, with the fused function to run it
    with (`fused.fused_for`) or None, or the `Structure` to record it whole; the saved values
    are left to the executor to read, and every node is released after it. Raises PyTorch's
    errors for a node that cannot run (`schedule.survey`) before any runs."""
    waiting = discover(roots)
    target_edges = [t._grad_edge() for t in targets] if targets is not None else []
    if targets is not None:
        waiting = needed(waiting, {n for n, _ in target_edges})
    order, position = order_of(waiting)
    seeds = [(position[n], nr, g) for (n, nr), g in zip(roots, grads) if n in position]
    captures: dict = {}
    for target_index, (node, output_nr) in enumerate(target_edges):
        if node in position:
            captures.setdefault(position[node], []).append((output_nr, target_index))
    found = survey(order, position)
    sinks = [i for i in found.leaves if targets is None or i in captures] if accumulate else []
    plan = Plan(found.arities, found.routes, seeds, captures, sinks, len(target_edges))
    fused = None
    if not found.stepwise and may_fuse(create_graph):
        structure = structure_of(found.steps, order, plan)
        fused = fused_for(structure)
        if fused is not None and targets is None and accumulate and len(roots) == 1:
            remember_backward(order, structure)
    elif not found.stepwise and may_record_whole(create_graph, accumulate) and reaches_all(plan):
        structure = structure_of(found.steps, order, plan)
        if fused_for(structure) is not None:
            fused = structure
            if len(roots) == 1:
                places = tuple([(position[n], nr) for n, nr in target_edges])
                remember_grad(order, structure, places)
    return Schedule(order, position, plan, fused, None, order)


# ----------------------------------------------------------------------------- stepwise
def _run_stepwise(order: list, plan: Plan, create_graph: bool) -> tuple:
    """Run the backward node by node on Tensors, with hooks, recording under create_graph (the
    caller sets grad mode). Stores nothing: returns the captured gradients, the `.grad`
    updates (tensor, gradient) in PyTorch's accumulation order, and the accumulation-time
    hooks to run once they are stored (all or nothing, see `accumulate.commit`)."""
    sink_set = set(plan.sinks)
    pending: list = []
    after: list = []

    def ready(index: int, cts: list) -> list:
        node = order[index]
        cts = run_tensor_hooks(node, cts)
        if node.retained:
            for output_nr, ref in node.retained.items():
                tensor = ref()
                if tensor is not None and cts[output_nr] is not None:
                    pending.append((tensor, cts[output_nr]))
        if index in sink_set and cts[0] is not None:
            leaf_cts = run_node_prehooks(node, cts)
            if leaf_cts[0] is not None:
                pending.append((node.variable, leaf_cts[0]))
            after.append((node, leaf_cts, leaf_cts[0] is not None))
        return cts

    def call(index: int, cts: list) -> list:
        node = order[index]
        cts = run_node_prehooks(node, cts)
        if modes.anomaly:
            grads = _anomaly.call_node(_call_node, node, cts, create_graph)
        else:
            grads = _call_node(node, cts, create_graph)
        run_node_hooks(node, grads, cts)
        return grads

    captured = propagate(plan, ready, call)
    return captured, pending, after


def _call_node(node, cts: list, create_graph: bool) -> list:
    """A node's backward in the stepwise executor: a custom Function's own, or the vjp op on
    the saved values (as Tensors in the graph under create_graph). One gradient per edge."""
    if node.custom:
        return node._call_backward(cts, create_graph)
    if create_graph:  # (deferred values stay deferred: the recorded vjp ops chain on them)
        primals = graph_primals(node)
    else:
        primals = node.check_saved()
    requires = tuple(edge is not None for edge in node.edges)
    step = step_of(node)
    assert step is not None  # only a Node is called (a leaf's AccumulateGrad never is)
    return call_vjp(apply, step, primals, cts, requires, create_graph)


# ----------------------------------------------------------------------------- entry point
def _validate_root(index: int, output: Tensor, grad) -> Tensor:
    """Check (or create) the gradient of one root output, as PyTorch's validate_outputs."""
    if grad is None:
        meta = output._stored
        if meta.size != 1:
            raise RuntimeError(_errors.IMPLICIT_GRAD)
        one = constant(1, meta.dtype)
        return Tensor._wrap(one if meta.ndim == 0 else one.reshape(meta.shape))
    if not isinstance(grad, Tensor):
        raise TypeError(f"gradients can be either Tensors or None, but got {type(grad).__name__}")
    if grad.shape != output.shape:
        raise RuntimeError(
            _errors.GRAD_SHAPE_MISMATCH.format(
                index=index, grad_shape=grad.shape, out_shape=output.shape
            )
        )
    if grad.dtype is not output.dtype:
        grad = grad.to(output.dtype)
    return grad


def run_backward(
    outputs, grad_outputs, *, retain_graph: bool, create_graph: bool, targets=None, accumulate: bool
) -> list:
    """Back-propagate from `outputs` weighted by `grad_outputs`.

    `targets`: None (every leaf accumulates) or the tensors whose gradients are wanted.
    With `accumulate`, gradients are summed into `.grad` of the leaves (and of non-leaf
    targets); the gradient at each target is returned either way.
    """
    roots = []
    for index, output in enumerate(outputs):
        edge = output._grad_edge()
        if edge is None:
            raise RuntimeError(_errors.NO_GRAD_FN.format(index=index))
        roots.append(edge)
    grads = [_validate_root(i, o, g) for i, (o, g) in enumerate(zip(outputs, grad_outputs))]
    scheduled = None
    if len(roots) == 1:
        if targets is None and accumulate and may_fuse(create_graph):
            scheduled = hot_schedule(roots[0], grads[0])
        elif targets is not None and may_record_whole(create_graph, accumulate):
            scheduled = hot_schedule(roots[0], grads[0], targets)
    if scheduled is None:
        scheduled = _schedule(roots, grads, targets, accumulate, create_graph)
    order, position, plan, fused, saved, releases = scheduled
    n_targets = plan.n_targets
    # Grad mode and the task stack are set inside the `try` and restored in its `finally`
    # inline: a context manager's __enter__/__exit__ are Python calls, where an interrupt
    # (KeyboardInterrupt from a signal handler) can land before the flag is restored.
    state = _grad_mode._state
    previous = state.enabled
    stack = _tasks.stack
    depth = len(stack)
    try:
        stack.append(_Task(next(_task_ids), position, targets is None))
        state.enabled = create_graph
        if type(fused) is Structure:  # a create_graph autograd.grad, recorded as one op
            captured = record_whole(fused, order, plan.seeds)
            commit([], releases, retain_graph)
        elif fused is None:
            captured = _stepwise_backward(
                scheduled, targets, accumulate, retain_graph, create_graph
            )
        else:
            with accumulation:  # existing grads are read, summed into and stored as one step
                outcome = run_fused(fused, order, saved, plan.seeds, plan.sinks, retain_graph)
                if type(outcome) is not Stepwise:
                    captured, updates = outcome
                    if accumulate and n_targets:
                        updates += entries(_target_grads(targets, captured), False)
                    commit(updates, releases, retain_graph)
            if type(outcome) is Stepwise:  # its program with its forward is on its way: its
                start = time.perf_counter()  # vjp ops' run compiles nothing meanwhile
                compiles = _lazy.runs_compile(False)
                try:
                    captured = _stepwise_backward(
                        scheduled, targets, accumulate, retain_graph, False
                    )
                finally:
                    _lazy.runs_compile(compiles)
                _lazy.backward_paid(outcome.segment, time.perf_counter() - start)
    finally:
        state.enabled = previous
        del stack[depth:]
    return captured


def _stepwise_backward(
    scheduled: Schedule, targets, accumulate: bool, retain_graph: bool, create_graph: bool
) -> list:
    """Run a scheduled backward with the stepwise executor and store its `.grad` updates; the
    gradients at the targets (inside the backward's grad mode and task)."""
    order, _, plan, _, _, releases = scheduled
    if not create_graph:  # one call computes every deferred value the nodes saved;
        _lazy.flush_current()  # under create_graph, the vjp ops defer on them
    captured, pending, after = _run_stepwise(order, plan, create_graph)
    if not create_graph:  # the gradients, computed by one call (`_defer/lazy`); under
        _lazy.flush_current()  # create_graph they join the next backward's program
    if accumulate and plan.n_targets:
        pending.extend(_target_grads(targets, captured))
    with accumulation:
        commit(entries(pending, create_graph), releases, retain_graph)
    run_after_hooks(after)
    return captured


def _target_grads(targets, captured) -> list:
    """(tensor, gradient) for the non-leaf targets of `backward(inputs=...)` to accumulate."""
    return [
        (tensor, grad)
        for tensor, grad in zip(targets, captured)
        if tensor.grad_fn is not None and not tensor._retains_grad and grad is not None
    ]


def release_graph(outputs) -> None:
    """Free the saved values of every node reachable from `outputs` (no retain_graph)."""
    roots = [edge for edge in (o._grad_edge() for o in outputs) if edge is not None]
    for node in discover(roots):
        node.release()
