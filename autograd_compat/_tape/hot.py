"""The hot pass: a backward met again (a training step's) scheduled in one walk of its graph.

After a backward from one root is fused (or a create_graph `autograd.grad` recorded whole),
`remember_backward`/`remember_grad` keep its `Structure` for the class of its root node.
`hot_schedule` then walks the next graph from a root of that class along that structure and
checks that it fits: each node's step is the remembered one (compared by identity first: the
recorder shares one `Step` among the nodes of an op it knows, `_tape/record.Recipe`), its
edges go where the structure's did, and nothing (a hook, a freed or modified saved value)
keeps it off the fused executor. Where it fits, the schedule is the remembered one and the
general scheduler (`_tape/schedule`) does not run.
"""

from __future__ import annotations

from typing import NamedTuple

from .._defer import lazy as _lazy
from .._pure.op import lru_get
from .._state.node import AccumulateGrad
from .._state.tensor import Tensor
from .fused import Structure, programs
from .schedule import Plan, Schedule


class _HotGrad(NamedTuple):
    """What the hot pass needs of an `autograd.grad` recorded whole."""

    structure: Structure
    places: tuple  # (index in the order, output_nr) of each target


_backwards: dict = {}  # a root's node class -> the structure of the last backward fused from one
_grads: dict = {}  # ... -> the `_HotGrad` of the last autograd.grad recorded whole


def remember_backward(order: list, structure: Structure) -> None:
    """Keep a fused backward's structure for the next graph from a root of its class."""
    _remember(order, _backwards, structure)


def remember_grad(order: list, structure: Structure, places: tuple) -> None:
    """Keep an `autograd.grad` recorded whole (its structure, where its targets lay)."""
    _remember(order, _grads, _HotGrad(structure, places))


def _remember(order: list, table: dict, entry) -> None:
    """Keep a backward's `entry` in `table` as the one `hot_schedule` tries for the next graph
    whose root is a node of the same class, if its order is sure to repeat on a graph of that
    structure: its nodes but the leaves' ran newest first (the case of any graph recorded by
    ops: a node is newer than its inputs), so that no choice between ready nodes depended on
    more than that."""
    seqs = [node.seq for node in order if not isinstance(node, AccumulateGrad)]
    if all(newer > older for newer, older in zip(seqs, seqs[1:])):
        table[type(order[0])] = entry


def hot_schedule(root_edge: tuple, grad: Tensor, targets=None) -> Schedule | None:
    """The `Schedule` of a backward from one root that accumulates into every leaf (`targets`
    None), or of a create_graph `autograd.grad` of `targets` recorded as one op, found in one
    pass when its graph has the structure remembered for its root's class (the backward of a
    training step, met again); None when it may not (then the general scheduler runs, and
    raises any error).

    The pass walks that structure's order and checks the graph against it: each node's step
    (its `hot` field, None once it has hooks, a retained grad or saved tensors hooks, whose
    unpack would run before the graph is known to fit), its edges and where they go (which
    places every node, each in one place), no hooks on the leaves, no saved value freed or
    modified in place, and its nodes but the leaves newest first. Kahn's order of a
    graph of one structure is then the same (it depends on the structure and on how the
    sequence numbers of the nodes compare, and these compare alike), as are the plan and the
    fused function. For `targets`, each target must lie where it lay, and an edge the schedule
    pruned (no target reached through it) must lead to a leaf outside the order: a leaf has no
    edges, so no target lies beyond it. The pass also reads the saved values (deferred ones
    computed unless a segment is open: see `fused.run_fused`; not for `targets`, whose op
    takes them as they are) and lists the nodes that have some to release."""
    root, output_nr = root_edge
    places: tuple = ()
    if targets is None:
        structure = _backwards.get(type(root))
    else:
        hot_grad = _grads.get(type(root))
        structure, places = (None, ()) if hot_grad is None else hot_grad
    if structure is None:
        return None
    steps, arities, routes, seed_key, capture_key, n_targets, sinks, existing = structure
    stored = grad._stored
    if seed_key[0] != (0, output_nr, stored.shape, stored.dtype):  # (the one root's seed)
        return None
    order: list = [None] * len(steps)  # each node, placed by the first edge to it
    order[0] = root
    saved: list = []
    releases: list = []
    pruned: list = []  # (for targets) the leaves behind edges no target is reached through
    keep, release = saved.append, releases.append
    resolve = targets is None and _lazy.open_segment() is None
    newest = 2**63  # a leaf's AccumulateGrad's number, above every Node's
    for node, step, route in zip(order, steps, routes):  # (order fills up ahead of the loop)
        if step is None:
            if type(node) is not AccumulateGrad or node.hooks or node.prehooks_node:
                return None
            variable = node.variable
            if variable._hooks_leaf or variable._post_accumulate_hooks:
                return None
            keep(())
            continue
        seq = node.seq
        hot = node.hot  # (None for a node with hooks, packed saved values, a custom backward)
        if seq >= newest or (hot is not step and hot != step):
            return None
        newest = seq
        for counter, version, _ in node.versions:
            if counter[0] != version:
                return None
        values = node.saved
        if values is None:  # a freed graph: the survey raises PyTorch's error
            return None
        if resolve:
            for value in values:
                if type(value) is _lazy.Pending:  # (check_saved computes them all)
                    values = node.check_saved()
                    break
        keep(values)
        if node.had_saved:
            release(node)
        edges = node.edges
        if len(edges) != len(route):
            return None
        for edge, where in zip(edges, route):
            if edge is None:
                if where is not None:
                    return None
                continue
            source, source_nr = edge
            if where is None:
                if targets is None or type(source) is not AccumulateGrad:
                    return None
                pruned.append(source)
                continue
            child, child_nr = where
            if source_nr != child_nr:
                return None
            placed = order[child]
            if placed is None:
                order[child] = source
            elif placed is not source:
                return None
    position = dict(zip(order, range(len(order))))
    if len(position) != len(order):  # a node in two places
        return None
    if targets is None:
        if tuple([order[i].variable._grad is not None for i in sinks]) != existing:
            return None
        fused = lru_get(programs, structure)
    else:
        if not _targets_lie(targets, places, order) or any(n in position for n in pruned):
            return None
        fused = structure if lru_get(programs, structure) is not None else None
    if fused is None:
        return None
    captures = {i: list(values) for i, values in capture_key}
    plan = Plan(arities, routes, [(0, output_nr, grad)], captures, list(sinks), n_targets)
    return Schedule(order, position, plan, fused, saved, releases)


def _targets_lie(targets, places: tuple, order: list) -> bool:
    """Whether each target's gradient edge is (node at `places`' index in `order`,
    output_nr), where `_remember` found it."""
    if len(targets) != len(places):
        return False
    for target, (index, output_nr) in zip(targets, places):
        edge = target._grad_edge()
        if edge is None:
            return False
        source, source_nr = edge
        if source_nr != output_nr or order[index] is not source:
            return False
    return True
