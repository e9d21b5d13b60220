"""A backward's schedule, found from the graph alone, before any node runs.

Each node runs once, after every consumer of its outputs has contributed, in an order computed
up front from an explicit heap (no recursion, so graphs of any depth work); among ready nodes
the most recent runs first and a leaf's gradient is complete as soon as its accumulation is
ready, as in PyTorch. The `Plan` says where each gradient goes in that order; `Schedule` is
what the executors (`_tape/engine`, `_tape/fused`) are given. The survey of the scheduled nodes
raises PyTorch's errors for a node that cannot run (a freed graph, a saved value modified in
place since) before any runs.

An edge is a `(node, output_nr)` pair, as PyTorch's `next_functions` lists them.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence
from typing import Any, NamedTuple

from .._pure import dtypes as _dtypes
from .._pure import errors as _errors
from .._state.node import AccumulateGrad, SavedRef, Step, watches_result

FUSE_MAX_NODES = 512  # larger graphs would spend more in XLA compilation than they save
FUSE_MAX_EDGES = 1024  # nor graphs whose nodes have more inputs in all (a wide cat, stack)


class Plan(NamedTuple):
    """Where each gradient of a scheduled backward goes (what `_tape/propagate.propagate`
    follows), each node named by its index in the order."""

    arities: tuple  # the outputs of each node (0 marks a leaf's AccumulateGrad: no call)
    routes: Sequence  # per node, where each input gradient goes: (index, output_nr) or None
    seeds: list  # (index, output_nr, gradient) of each root
    captures: dict  # index -> [(output_nr, target index)] of the targets' gradients
    sinks: Sequence  # the indices of the leaves whose `.grad` accumulates
    n_targets: int


class Schedule(NamedTuple):
    """A backward's schedule: what `run_backward` runs, and how."""

    order: list  # the nodes in the order they run
    position: dict  # each node's index in `order`
    plan: Plan
    fused: Any  # the fused function (`_tape/fused`), a `Structure` to record whole, or None
    saved: list | None  # the nodes' saved values for the fused function (None: read them)
    releases: list  # the nodes to release after it (no retain_graph)


class Survey(NamedTuple):
    """What the executors read of the scheduled nodes (`survey`)."""

    arities: tuple  # as `Plan.arities`
    routes: list  # as `Plan.routes`
    leaves: list  # the indices of the leaves' AccumulateGrad nodes
    steps: list  # each node's `Step` (`step_of`)
    stepwise: bool  # whether the fused executor may not run the graph


def discover(roots: list) -> dict:
    """Every node reachable from the roots (depth first, in the order the schedule breaks ties
    by), mapped to its number of consumers: the edges into it from the others."""
    waiting: dict = {}
    stack = [node for node, _ in roots]
    push = stack.append
    while stack:
        node = stack.pop()
        if node in waiting:
            waiting[node] += 1  # each push but a root's is one edge into the node
        else:
            waiting[node] = 1
            for edge in node.edges:
                if edge is not None:
                    child, _ = edge
                    push(child)
    for node, _ in roots:
        waiting[node] -= 1
    return waiting


def needed(waiting: dict, targets) -> dict:
    """`waiting` (see `discover`) restricted to the nodes from which some target node can be
    reached (the ones worth running); their consumers are all among them."""
    parents: dict = {}
    for node in waiting:
        for edge in node.edges:
            if edge is not None:
                child, _ = edge
                parents.setdefault(child, []).append(node)
    found: set = set()
    stack = [t for t in targets if t in waiting]
    while stack:
        node = stack.pop()
        if node not in found:
            found.add(node)
            stack.extend(parents.get(node, ()))
    return {node: count for node, count in waiting.items() if node in found}


def order_of(waiting: dict) -> tuple[list, dict]:
    """The nodes of `waiting` (each mapped to its consumers still to run; consumed) in Kahn's
    order, the newest ready node first, and each node's index in it. A node that becomes the
    only ready one skips the heap (a chain's every node): it is the next either way."""
    # Ties (leaf accumulations share one sequence number) run in the order they became
    # ready, which is deterministic (not id-based) and PyTorch's for a node's edges.
    tiebreak = itertools.count()
    ready = [(-node.seq, next(tiebreak), node) for node, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order: list = []
    append = order.append
    while ready:
        _, _, node = heapq.heappop(ready)
        while node is not None:
            append(node)
            alone = None  # the one node made ready while the heap is empty
            for edge in node.edges:
                if edge is None:
                    continue
                child, _ = edge
                count = waiting.get(child)
                if count is None:
                    continue
                waiting[child] = count - 1
                if count == 1:
                    if alone is None and not ready:
                        alone = child
                        continue
                    if alone is not None:  # not alone after all: it goes first among ties
                        heapq.heappush(ready, (-alone.seq, next(tiebreak), alone))
                        alone = None
                    heapq.heappush(ready, (-child.seq, next(tiebreak), child))
            node = alone
    return order, dict(zip(order, range(len(order))))


def survey(order: list, position: dict) -> Survey:
    """One pass over the scheduled nodes before any runs: PyTorch's checks of each node (a
    freed graph, a saved value modified in place since), and what the executors read of it;
    the graph runs stepwise when a node has hooks, a custom backward or a retained grad, or
    the graph is too big to fuse."""
    arities = []
    routes: list = []
    leaves = []
    steps: list = []
    stepwise = len(order) > FUSE_MAX_NODES
    edges = 0
    for index, node in enumerate(order):
        if isinstance(node, AccumulateGrad):
            arities.append(0)
            routes.append(())
            leaves.append(index)
            steps.append(None)
            variable = node.variable
            if variable._hooks_leaf or variable._post_accumulate_hooks:
                stepwise = True
        else:
            if node.saved is None:  # only a freed graph fails check_alive
                node.check_alive()
            for counter, version, _ in node.versions:
                if counter[0] != version:
                    label = node.op._result_label if watches_result(node) else None
                    check_versions(node.versions, label)
            arities.append(len(node.out_meta))
            node_edges = node.edges
            edges += len(node_edges)
            route: list = []  # (where each input gradient goes: a child run in this backward)
            for edge in node_edges:
                if edge is None:
                    route.append(None)
                    continue
                child, child_nr = edge
                route.append((position[child], child_nr) if child in position else None)
            routes.append(tuple(route))
            steps.append(step_of(node))
            if node.custom or node.pre_hooks or node.retained:
                stepwise = True
        if node.hooks or node.prehooks_node:
            stepwise = True
    return Survey(tuple(arities), routes, leaves, steps, stepwise or edges > FUSE_MAX_EDGES)


def step_of(node) -> Step | None:
    """What a node's backward call depends on besides its values; None for a leaf."""
    if isinstance(node, AccumulateGrad):
        return None
    step = node.hot  # (the same tuple as the last graph's, where the recorder shares it)
    if step is None:
        step = Step(
            node.op,
            node.static,
            node.saved_mask,
            node.placeholders,
            node.out_meta,
            node.residuals,
        )
    return step


def check_versions(versions, result_label: str | None) -> None:
    """PyTorch's error when a value a node saved (`versions`: its version watches, see
    `_state/node`) was modified in place since; `result_label`: the name of the node that
    made a watched result."""
    for counter, expected, ref in versions:
        if counter[0] != expected:
            tensor = ref()
            producer, type_name = "", "?"
            shape: list | str = "?"
            if tensor is not None:
                shape = list(tensor.shape)
                type_name = f"torch.{_dtypes.LEGACY_TYPE_NAMES[tensor.dtype]}"
                if result_label is not None:  # a saved result is named by the node that made it
                    producer = f", which is output 0 of {result_label}"
                elif tensor.grad_fn is not None:
                    name = tensor.grad_fn.name().removesuffix("Backward0")
                    producer = f", which is output {tensor.output_nr} of {name}"
            elif isinstance(ref, SavedRef):  # a saved view that is gone since
                type_name, shape, producer = ref.type_name, ref.shape, ref.producer
            message = _errors.MODIFIED_INPLACE.format(
                type_name=type_name,
                shape=shape,
                producer=producer,
                version=counter[0],
                expected=expected,
            )
            if not producer:  # PyTorch: "[torch.FloatTensor [2]] is at version 1"
                message = message.replace("], is at version", "] is at version", 1)
            raise RuntimeError(message)
