"""`.grad` accumulation of a backward, all or nothing.

The executors collect the leaves' gradients; `entries` computes the `.grad` updates without
storing any, and `commit` stores them all (and frees the graph) once every node has run. An
exception or an interrupt (KeyboardInterrupt) before the commit leaves every `.grad` and the
graph as they were, so a retry accumulates once. An update is a (tensor, new `.grad` object,
value to write into it or None, its version after the write) tuple, only ever unpacked.
"""

from __future__ import annotations

import threading

from .._pure.sharding import keep_sharding
from .._state.tensor import Tensor
from .hooks import run_node_hooks, run_post_accumulate_hooks
from .propagate import add

# `.grad` accumulation is a read-modify-write: backwards in several threads into one leaf must
# not lose a term (PyTorch locks per AccumulateGrad). One lock; held for the add and store only.
accumulation = threading.RLock()


def entries(pending: list, create_graph: bool) -> list:
    """The `.grad` updates of one backward, computed without storing any: `pending` holds
    (tensor, gradient) in accumulation order; returns one update per tensor, for `commit`.

    As PyTorch's AccumulateGrad: under create_graph the sum is out of place and keeps the graph
    (grad mode is on here then); otherwise an existing `.grad` object is written in place.
    Call under `accumulation` and inside the backward's grad mode.
    """
    sums: dict = {}
    for tensor, grad in pending:
        key = id(tensor)
        if key in sums:
            _, base = sums[key]
        else:
            base = tensor._grad
        sums[key] = (tensor, add(base, grad))
    updates = []
    for tensor, total in sums.values():
        if create_graph:
            updates.append((tensor, total, None, 0))
        else:
            updates.append(array_entry(tensor, total._value))
    return updates


def array_entry(tensor: Tensor, total) -> tuple:
    """The update for a finished sum (an array), kept on the leaf's mesh if it has one. A new
    `.grad` object even where the gradient array is shared with another tensor."""
    total = keep_sharding(total, tensor._value)
    old = tensor._grad
    if old is None:
        return (tensor, Tensor._wrap(total), None, 0)
    return (tensor, old, total, old._version_counter[0] + 1)


def _store(updates: list, releases: list, retain_graph: bool) -> None:
    """Write every `.grad` update and free the graph (`releases`: its nodes, or those of them
    that saved values); idempotent (safe to run twice)."""
    for tensor, grad, value, version in updates:
        tensor._grad = grad
        if value is not None:  # in place: the same object stays, even one with a grad_fn
            grad._set_value(value)
            grad._version_counter[0] = version
    if not retain_graph:
        for node in releases:
            node.release()


def commit(updates: list, releases: list, retain_graph: bool) -> None:
    """The commit point of a backward: store all `.grad` updates and free the graph. An
    exception inside (an interrupt from a signal handler) first finishes the (idempotent)
    store, then propagates: `.grad` is never left half-accumulated, and a backward that
    stored its gradients has freed its graph, so a retry cannot count them twice."""
    try:
        _store(updates, releases, retain_graph)
    except BaseException:
        _store(updates, releases, retain_graph)
        raise


def run_after_hooks(after: list) -> None:
    """The hooks PyTorch runs after a leaf's accumulation (post-accumulate-grad hooks, then
    the AccumulateGrad node's hooks), in the order the leaves were accumulated."""
    for node, leaf_cts, accumulated in after:
        if accumulated:
            run_post_accumulate_hooks(node.variable)
        run_node_hooks(node, [], leaf_cts)
