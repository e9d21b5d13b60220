"""The backward pass: run recorded nodes in dependency order and return the gradients.

`run_backward` is functional: it returns the gradients that reach the requested targets,
and accumulates into `.grad` only when asked (`autograd.backward`). Each node runs once,
after every consumer of its outputs has contributed, in an order computed up front from an
explicit heap (no recursion, so graphs of any depth work); among ready nodes the most recent
runs first and a leaf's gradient is complete as soon as its accumulation is ready, as in
PyTorch.

`.grad` is updated all or nothing: the executors collect the leaves' gradients, and
`_commit` stores them all (and frees the graph) once every node has run; the hooks PyTorch runs
at accumulation time (post-accumulate-grad hooks, AccumulateGrad node hooks) run after it, in
the leaves' order. An exception or an interrupt (KeyboardInterrupt) before the commit leaves
every `.grad` and the graph as they were, so a retry accumulates once.

Two executors share that schedule, the propagation loop, the per-node call (`_call_vjp`) and
the accumulation (`_entries`, `_commit`). The stepwise one calls each node's derived vjp op on
Tensors (recording it under create_graph) and runs hooks. The fused one, for a graph whose
structure was seen before and that has no hooks, traces the same calls on raw arrays into one
jitted function per structure: one XLA call for the whole backward of a hot training step.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections import OrderedDict

from .._defer import lazy as _lazy
from .._pure import dtypes as _dtypes
from .._pure import errors as _errors
from .._pure import executables
from .._pure import memory as _memory
from .._pure.op import HashedTuple, constant, lru_get, lru_put, register, vjp_of
from .._pure.sharding import keep_sharding
from .._state import modes as _grad_mode
from .._state.modes import modes
from .._state.node import AccumulateGrad, SavedRef
from .._state.tensor import LazyTensor, Tensor, program_input
from .._tape.record import apply
from . import anomaly as _anomaly
from .hooks import (
    run_node_hooks,
    run_node_prehooks,
    run_post_accumulate_hooks,
    run_tensor_hooks,
)

FUSE_AFTER = 2  # a graph structure is fused the second time it is seen
FUSE_MAX_NODES = 512  # larger graphs would spend more in XLA compilation than they save
FUSE_MAX_EDGES = 1024  # nor graphs whose nodes have more inputs in all (a wide cat, stack)
SEEN_SIZE = 1024  # structures counted towards FUSE_AFTER (an LRU)
FUSED_SIZE = 128  # fused backwards kept (an LRU of compiled functions)
_seen: OrderedDict = OrderedDict()
_fused: OrderedDict = OrderedDict()
_fused_big: dict = {}  # fused function -> whether an output may exceed memory.BLOCK_ELEMENTS
_hot: dict = {}  # a root's node class -> the structure of the last backward fused from one
_hot_grad: dict = {}  # ... -> (structure, target places) of the last autograd.grad recorded whole
# `.grad` accumulation is a read-modify-write: backwards in several threads into one leaf must
# not lose a term (PyTorch locks per AccumulateGrad). One lock; held for the add and store only.
_accumulation = threading.RLock()


class _Tasks(threading.local):
    """The backward calls running in this thread, innermost last: (id, nodes to run, whether
    it runs the whole graph: no `inputs` of backward, not autograd.grad)."""

    def __init__(self) -> None:
        self.stack: list = []


_tasks = _Tasks()
_task_ids = itertools.count()


def current_task_id() -> int:
    """An id for the innermost backward running in this thread, -1 outside one."""
    return _tasks.stack[-1][0] if _tasks.stack else -1


def runs_whole_graph() -> bool:
    """Whether the innermost running backward (if any) was given no targets: what a reentrant
    checkpoint needs (PyTorch's torch.autograd._is_checkpoint_valid)."""
    return not _tasks.stack or _tasks.stack[-1][2]


def will_execute(node) -> bool:
    """Whether the innermost running backward will run `node` (for multi-grad hooks)."""
    return bool(_tasks.stack) and node in _tasks.stack[-1][1]


# ----------------------------------------------------------------------------- schedule
def _discover(roots: list) -> dict:
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
                    push(edge[0])
    for node, _ in roots:
        waiting[node] -= 1
    return waiting


def _needed(waiting: dict, targets) -> dict:
    """`waiting` (see `_discover`) restricted to the nodes from which some target node can be
    reached (the ones worth running); their consumers are all among them."""
    parents: dict = {}
    for node in waiting:
        for edge in node.edges:
            if edge is not None:
                parents.setdefault(edge[0], []).append(node)
    needed: set = set()
    stack = [t for t in targets if t in waiting]
    while stack:
        node = stack.pop()
        if node not in needed:
            needed.add(node)
            stack.extend(parents.get(node, ()))
    return {node: count for node, count in waiting.items() if node in needed}


def _order(waiting: dict) -> tuple[list, dict]:
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
        node = heapq.heappop(ready)[2]
        while node is not None:
            append(node)
            alone = None  # the one node made ready while the heap is empty
            for edge in node.edges:
                count = None if edge is None else waiting.get(edge[0])
                if count is None:
                    continue
                waiting[edge[0]] = count - 1
                if count == 1:
                    if alone is None and not ready:
                        alone = edge[0]
                        continue
                    if alone is not None:  # not alone after all: it goes first among ties
                        heapq.heappush(ready, (-alone.seq, next(tiebreak), alone))
                        alone = None
                    heapq.heappush(ready, (-edge[0].seq, next(tiebreak), edge[0]))
            node = alone
    return order, dict(zip(order, range(len(order))))


def _survey(order: list, position: dict) -> tuple:
    """One pass over the scheduled nodes before any runs: PyTorch's checks of each node (a
    freed graph, a saved value modified in place since), and what the executors read of it.

    Returns the outputs per node (0 marks a leaf's AccumulateGrad: one input, no call); per
    node where each of its input gradients goes (`(index of the child in the order,
    output_nr)`, or None: no gradient or a child not run); the leaves' indices; each node's
    step (`_step`); and whether the fused executor may not run the graph (hooks, custom
    Function nodes, too many edges)."""
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
            for entry in node.versions:
                if entry[0][0] != entry[1]:
                    _check_versions(node)
            arities.append(len(node.out_meta))
            node_edges = node.edges
            edges += len(node_edges)
            routes.append(
                tuple(
                    [
                        None if e is None or e[0] not in position else (position[e[0]], e[1])
                        for e in node_edges
                    ]
                )
            )
            steps.append(_step(node))
            if node.custom or node.pre_hooks or node.retained:
                stepwise = True
        if node.hooks or node.prehooks_node:
            stepwise = True
    return tuple(arities), routes, leaves, steps, stepwise or edges > FUSE_MAX_EDGES


def _schedule(roots: list, grads: list, targets, accumulate: bool, create_graph: bool) -> tuple:
    """A backward's schedule, found from the graph alone: its order, each node's index in it,
    the plan the executors follow (`_propagate`'s arguments but the callbacks, with the indices
    of the leaves that accumulate), the fused function to run it with (`_fused_for`) or None,
    the saved values for it (None: `_run_fused` reads them) and the nodes to release after it.
    Raises PyTorch's errors for a node that cannot run (`_survey`) before any runs."""
    waiting = _discover(roots)
    target_edges = [t._grad_edge() for t in targets] if targets is not None else []
    if targets is not None:
        waiting = _needed(waiting, {n for n, _ in target_edges})
    order, position = _order(waiting)
    seeds = [(position[n], nr, g) for (n, nr), g in zip(roots, grads) if n in position]
    captures: dict = {}
    for target_index, (node, output_nr) in enumerate(target_edges):
        if node in position:
            captures.setdefault(position[node], []).append((output_nr, target_index))
    arities, routes, leaves, steps, stepwise = _survey(order, position)
    sinks = [i for i in leaves if targets is None or i in captures] if accumulate else []
    plan = (arities, routes, seeds, captures, sinks, len(target_edges))
    fused = None
    if not stepwise and _may_fuse(create_graph):
        structure = _structure(steps, order, plan)
        fused = _fused_for(structure)
        if fused is not None and targets is None and accumulate and len(roots) == 1:
            _remember(order, _hot, structure)
    elif not stepwise and _may_record_whole(create_graph, accumulate) and _reaches_all(plan):
        structure = _structure(steps, order, plan)
        if _fused_for(structure) is not None:
            fused = structure
            if len(roots) == 1:
                places = tuple([(position[n], nr) for n, nr in target_edges])
                _remember(order, _hot_grad, (structure, places))
    return order, position, plan, fused, None, order


def _remember(order: list, table: dict, entry) -> None:
    """Keep a backward's `entry` (its structure, or what `_hot_schedule` needs of an
    `autograd.grad`'s) in `table` (`_hot`, `_hot_grad`) as the one `_hot_schedule` tries for
    the next graph whose root is a node of the same class, if its order is sure to repeat on a
    graph of that structure: its nodes but the leaves' ran newest first (the case of any graph
    recorded by ops: a node is newer than its inputs), so that no choice between ready nodes
    depended on more than that."""
    seqs = [node.seq for node in order if not isinstance(node, AccumulateGrad)]
    if all(newer > older for newer, older in zip(seqs, seqs[1:])):
        table[type(order[0])] = entry


def _hot_schedule(root_edge: tuple, grad: Tensor, targets=None) -> tuple | None:
    """`_schedule`'s result for a backward from one root that accumulates into every leaf
    (`targets` None), or for a create_graph `autograd.grad` of `targets` recorded as one op,
    found in one pass when its graph has the structure `_remember` kept for its root's class
    (the backward of a training step, met again); None when it may not (then `_schedule` runs,
    and raises any error).

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
    computed unless a segment is open: see `_run_fused`; not for `targets`, whose op takes
    them as they are) and lists the nodes that have some to release."""
    root, output_nr = root_edge
    places: tuple = ()
    if targets is None:
        structure = _hot.get(type(root))
    else:
        structure, places = _hot_grad.get(type(root), (None, ()))
    if structure is None:
        return None
    steps, arities, routes, seed_key, capture_key, n_targets, sinks, existing = structure
    stored = grad._stored
    if seed_key[0] != (0, output_nr, stored.shape, stored.dtype):
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
        for entry in node.versions:
            if entry[0][0] != entry[1]:
                return None
        values = node.saved
        if values is None:  # a freed graph: `_survey` raises PyTorch's error
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
            if where is None:
                if edge is not None:
                    if targets is None or type(edge[0]) is not AccumulateGrad:
                        return None
                    pruned.append(edge[0])
                continue
            if edge is None or edge[1] != where[1]:
                return None
            k = where[0]
            placed = order[k]
            if placed is None:
                order[k] = edge[0]
            elif placed is not edge[0]:
                return None
    position = dict(zip(order, range(len(order))))
    if len(position) != len(order):  # a node in two places
        return None
    if targets is None:
        if tuple([order[i].variable._grad is not None for i in sinks]) != existing:
            return None
        fused = lru_get(_fused, structure)
    else:
        if not _targets_lie(targets, places, order) or any(n in position for n in pruned):
            return None
        fused = structure if lru_get(_fused, structure) is not None else None
    if fused is None:
        return None
    captures = {i: list(values) for i, values in capture_key}
    plan: tuple = (arities, routes, [(0, output_nr, grad)], captures, list(sinks), n_targets)
    return order, position, plan, fused, saved, releases


def _targets_lie(targets, places: tuple, order: list) -> bool:
    """Whether each target's gradient edge is (node at `places`' index in `order`,
    output_nr), where `_remember` found it."""
    if len(targets) != len(places):
        return False
    for target, (index, output_nr) in zip(targets, places):
        edge = target._grad_edge()
        if edge is None or edge[1] != output_nr or order[index] is not edge[0]:
            return False
    return True


def _propagate(arities, routes, seeds, captures: dict, n_targets: int, ready, call) -> list:
    """Route cotangents through the schedule, the loop both executors share; returns the
    gradient that reached each target.

    `seeds`: (index, output_nr, cotangent) for the roots; `captures`: index -> (output_nr,
    target index). `ready(i, cts)` sees a node's complete cotangents, may replace them and
    accumulates a leaf's; `call(i, cts)` returns the node's input gradients.
    """
    captured: list = [None] * n_targets
    buffers: dict = {}

    def deliver(index: int, output_nr: int, ct) -> None:
        slots = buffers.setdefault(index, [None] * max(arities[index], 1))
        slots[output_nr] = _add(slots[output_nr], ct)

    for seed in seeds:
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
                deliver(route[0], route[1], grad)
    return captured


# ----------------------------------------------------------------------------- checks
def _check_versions(node) -> None:
    """PyTorch's error when a value a node saved was modified in place since."""
    for counter, expected, ref, *result_label in node.versions:
        if counter[0] != expected:
            tensor = ref()
            producer, type_name = "", "?"
            shape: list | str = "?"
            if tensor is not None:
                shape = list(tensor.shape)
                type_name = f"torch.{_dtypes.LEGACY_TYPE_NAMES[tensor.dtype]}"
                if result_label:  # a saved result is named by the node that made it
                    producer = f", which is output 0 of {result_label[0]}"
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


# ----------------------------------------------------------------------------- entry point
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
        if targets is None and accumulate and _may_fuse(create_graph):
            scheduled = _hot_schedule(roots[0], grads[0])
        elif targets is not None and _may_record_whole(create_graph, accumulate):
            scheduled = _hot_schedule(roots[0], grads[0], targets)
    if scheduled is None:
        scheduled = _schedule(roots, grads, targets, accumulate, create_graph)
    order, position, plan, fused, saved, releases = scheduled
    _, _, seeds, _, sinks, n_targets = plan
    # Grad mode and the task stack are set inside the `try` and restored in its `finally`
    # inline: a context manager's __enter__/__exit__ are Python calls, where an interrupt
    # (KeyboardInterrupt from a signal handler) can land before the flag is restored.
    state = _grad_mode._state
    previous = state.enabled
    stack = _tasks.stack
    depth = len(stack)
    try:
        stack.append((next(_task_ids), position, targets is None))
        state.enabled = create_graph
        if type(fused) is _Structure:  # a create_graph autograd.grad, recorded as one op
            captured = _record_whole(fused, order, seeds)
            _commit([], releases, retain_graph)
        elif fused is None:
            if not create_graph:  # one call computes every deferred value the nodes saved;
                _lazy.flush_current()  # under create_graph, the vjp ops defer on them
            captured, pending, after = _run_stepwise(order, plan, create_graph)
            if not create_graph:  # the gradients, computed by one call (`_defer/lazy`); under
                _lazy.flush_current()  # create_graph they join the next backward's program
            if accumulate and n_targets:
                pending.extend(_target_grads(targets, captured))
            with _accumulation:
                _commit(_entries(pending, create_graph), releases, retain_graph)
            _run_after_hooks(after)
        else:
            with _accumulation:  # existing grads are read, summed into and stored as one step
                captured, entries = _run_fused(fused, order, saved, seeds, sinks, retain_graph)
                if accumulate and n_targets:
                    entries += _entries(_target_grads(targets, captured), False)
                _commit(entries, releases, retain_graph)
    finally:
        state.enabled = previous
        del stack[depth:]
    return captured


def _target_grads(targets, captured) -> list:
    """(tensor, gradient) for the non-leaf targets of `backward(inputs=...)` to accumulate."""
    return [
        (tensor, grad)
        for tensor, grad in zip(targets, captured)
        if tensor.grad_fn is not None and not tensor._retains_grad and grad is not None
    ]


# ----------------------------------------------------------------------------- node call
def _step(node) -> tuple | None:
    """What a node's backward call depends on besides its values; None for a leaf."""
    if isinstance(node, AccumulateGrad):
        return None
    step = node.hot  # (the same tuple as the last graph's, where the recorder shares it)
    if step is None:
        step = node.op, node.static, node.saved_mask, node.placeholders, node.out_meta
    return step


def _call_vjp(run, step: tuple, primals, cts: list, requires: tuple) -> list:
    """A node's backward, the call both executors make: its derived vjp op from the output
    cotangents (None: zero) to one gradient per input, None where `requires` is False.

    `run(op, *args, **static)` is `apply` stepwise (Tensors or arrays; recorded under
    create_graph) and `_traced` inside the fused function (raw arrays).
    """
    op, static, saved_mask, placeholders, _ = step
    grads = iter(
        run(
            vjp_of(op),
            *primals,
            *[ct for ct in cts if ct is not None],
            static=static,
            requires=requires,
            saved_mask=saved_mask,
            placeholders=placeholders,
            ct_mask=tuple(ct is not None for ct in cts),
        )
    )
    return [next(grads) if r else None for r in requires]


def _traced(op, *args, **static):
    """Call an op's pure function directly: inside a trace there is nothing to record."""
    return op.fn(*args, **static)


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


def _graph_primals(node) -> list:
    """A node's saved primals as Tensors that keep their places in the graph (`_saved_primal`),
    deferred ones still deferred: what a create_graph backward records its ops on."""
    saved_index = [i for i, s in enumerate(node.saved_mask) if s]
    return [_saved_primal(node, v, i) for v, i in zip(node.saved_values(), saved_index)]


def _call_node(node, cts: list, create_graph: bool) -> list:
    """A node's backward in the stepwise executor: a custom Function's own, or the vjp op on
    the saved values (as Tensors in the graph under create_graph). One gradient per edge."""
    if node.custom:
        return node._call_backward(cts, create_graph)
    if create_graph:  # (deferred values stay deferred: the recorded vjp ops chain on them)
        primals = _graph_primals(node)
    else:
        primals = node.check_saved()
    requires = tuple(edge is not None for edge in node.edges)
    step = _step(node)
    assert step is not None  # only a Node is called (a leaf's AccumulateGrad never is)
    return _call_vjp(apply, step, primals, cts, requires)


# ----------------------------------------------------------------------------- accumulate
def _add(a, b):
    """Sum two gradients (Tensors, or arrays in the fused trace); None is zero."""
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _entries(pending: list, create_graph: bool) -> list:
    """The `.grad` updates of one backward, computed without storing any: `pending` holds
    (tensor, gradient) in accumulation order; returns (tensor, new `.grad` object, value to
    write into it or None, its version after the write) per tensor, for `_commit`.

    As PyTorch's AccumulateGrad: under create_graph the sum is out of place and keeps the graph
    (grad mode is on here then); otherwise an existing `.grad` object is written in place.
    Call under `_accumulation` and inside the backward's grad mode.
    """
    sums: dict = {}
    for tensor, grad in pending:
        key = id(tensor)
        base = sums[key][1] if key in sums else tensor._grad
        sums[key] = (tensor, _add(base, grad))
    entries = []
    for tensor, total in sums.values():
        if create_graph:
            entries.append((tensor, total, None, 0))
        else:
            entries.append(_array_entry(tensor, total._value))
    return entries


def _array_entry(tensor: Tensor, total) -> tuple:
    """`_entries`' row for a finished sum (an array), kept on the leaf's mesh if it has one.
    A new `.grad` object even where the gradient array is shared with another tensor."""
    total = keep_sharding(total, tensor._value)
    old = tensor._grad
    if old is None:
        return (tensor, Tensor._wrap(total), None, 0)
    return (tensor, old, total, old._version_counter[0] + 1)


def _store(entries: list, releases: list, retain_graph: bool) -> None:
    """Write every `.grad` update and free the graph (`releases`: its nodes, or those of them
    that saved values); idempotent (safe to run twice)."""
    for tensor, grad, value, version in entries:
        tensor._grad = grad
        if value is not None:  # in place: the same object stays, even one with a grad_fn
            grad._set_value(value)
            grad._version_counter[0] = version
    if not retain_graph:
        for node in releases:
            node.release()


def _commit(entries: list, releases: list, retain_graph: bool) -> None:
    """The commit point of a backward: store all `.grad` updates and free the graph. An
    exception inside (an interrupt from a signal handler) first finishes the (idempotent)
    store, then propagates: `.grad` is never left half-accumulated, and a backward that
    stored its gradients has freed its graph, so a retry cannot count them twice."""
    try:
        _store(entries, releases, retain_graph)
    except BaseException:
        _store(entries, releases, retain_graph)
        raise


def _run_after_hooks(after: list) -> None:
    """The hooks PyTorch runs after a leaf's accumulation (post-accumulate-grad hooks, then
    the AccumulateGrad node's hooks), in the order the leaves were accumulated."""
    for node, leaf_cts, accumulated in after:
        if accumulated:
            run_post_accumulate_hooks(node.variable)
        run_node_hooks(node, [], leaf_cts)


# ----------------------------------------------------------------------------- stepwise
def _run_stepwise(order: list, plan: tuple, create_graph: bool) -> tuple:
    """Run the backward node by node on Tensors, with hooks, recording under create_graph (the
    caller sets grad mode). Stores nothing: returns the captured gradients, the `.grad`
    updates (tensor, gradient) in PyTorch's accumulation order, and the accumulation-time
    hooks to run once they are stored (all or nothing, see `_commit`)."""
    arities, routes, seeds, captures, sinks, n_targets = plan
    sink_set = set(sinks)
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

    captured = _propagate(arities, routes, seeds, captures, n_targets, ready, call)
    return captured, pending, after


# ----------------------------------------------------------------------------- fused
class _Structure(HashedTuple):
    """A backward's structure as a cache key (its hash computed once)."""


def _may_fuse(create_graph: bool) -> bool:
    """Whether the fused executor may run a backward now: not under create_graph, anomaly mode
    or an autograd.functional trace."""
    return not (create_graph or modes.anomaly or (modes.tracing and modes.traces))


def _may_record_whole(create_graph: bool, accumulate: bool) -> bool:
    """Whether a backward may be recorded as one op (`_record_whole`) now: an `autograd.grad`
    under create_graph (no `.grad` to accumulate), outside anomaly mode and
    autograd.functional traces; its graph must also reach every target (`_reaches_all`)."""
    return (
        create_graph and not accumulate and not (modes.anomaly or (modes.tracing and modes.traces))
    )


def _reaches_all(plan: tuple) -> bool:
    """Whether a plan's backward reaches every target (else one gets None: allow_unused)."""
    captures, n_targets = plan[3], plan[5]
    return sum(len(v) for v in captures.values()) == n_targets


def _whole_backward(*flat, structure: _Structure):
    """A backward of `structure` as one pure function: (the saved primals of its nodes in
    order, flattened; the seeds) -> the gradient at each target, as the fused executor
    computes them. Recorded as an op (`_record_whole`), its vjp is the double backward."""
    steps = structure[0]
    saved: list = []
    k = 0
    for step in steps:
        n = 0 if step is None else sum(step[2])  # (step[2]: the node's saved mask)
        saved.append(tuple(flat[k : k + n]))
        k += n
    _, captured = _backward_of(structure)(saved, list(flat[k:]), [])
    return tuple(captured)


_WHOLE_BACKWARD = register("_internal.whole_backward", _whole_backward, node="GradBackward")


def _record_whole(structure: _Structure, order: list, seeds: list) -> list:
    """Run a create_graph `autograd.grad` as one recorded op on the nodes' saved primals (as
    Tensors in the graph, `_saved_primal`) and the seeds: one node for the whole backward,
    and, its outputs being small, one deferred op that the next backward computes in its own
    program. Returns the gradient at each target."""
    inputs: list = []
    for node in order:
        if not isinstance(node, AccumulateGrad):
            inputs.extend(_graph_primals(node))
    inputs.extend(g for _, _, g in seeds)
    return list(apply(_WHOLE_BACKWARD, *inputs, structure=structure))


def _structure(steps: list, order: list, plan: tuple) -> _Structure:
    """A backward's structure (the key of its fused function): what each node's call depends
    on besides its values, the plan, and which leaves have a `.grad` to add to."""
    arities, routes, seeds, captures, sinks, n_targets = plan
    seed_key = tuple((i, nr, g._stored.shape, g._stored.dtype) for i, nr, g in seeds)
    capture_key = tuple(sorted((i, tuple(v)) for i, v in captures.items()))
    existing = tuple(order[i].variable._grad is not None for i in sinks)
    return _Structure(
        (
            tuple(steps),
            arities,
            tuple(routes),
            seed_key,
            capture_key,
            n_targets,
            tuple(sinks),
            existing,
        )
    )


def _fused_for(structure: _Structure):
    """The fused function for a backward of this structure whose nodes allow it (see `_survey`
    and `_may_fuse`), or None to run it stepwise: the first `FUSE_AFTER - 1` times a structure
    is seen."""
    fused = lru_get(_fused, structure)
    if fused is None:
        count = _seen.get(structure, 0) + 1
        if count < FUSE_AFTER:
            lru_put(_seen, structure, count, SEEN_SIZE)
            return None
        fused = _fused_backward(structure)
        lru_put(_fused, structure, fused, FUSED_SIZE)
        _seen.pop(structure, None)
    return fused


def _fused_backward(structure: tuple):
    """The pure function of a whole backward (`_backward_of`), jitted."""
    return executables.jit(_backward_of(structure))


def _backward_of(structure: tuple):
    """The pure function of a whole backward: (saved, seeds, existing grads) -> (new leaf
    grads, target grads), the stepwise propagation traced on raw arrays."""
    steps, arities, routes, seed_key, capture_key, n_targets, sinks, _ = structure
    captures = dict(capture_key)
    sink_position = {index: k for k, index in enumerate(sinks)}

    def backward(saved, seeds, existing):
        totals: list = [None] * len(sinks)

        def ready(index: int, cts: list) -> list:
            if index in sink_position and cts[0] is not None:
                k = sink_position[index]
                totals[k] = _add(existing[k], cts[0])
            return cts

        def call(index: int, cts: list) -> list:
            requires = tuple(route is not None for route in routes[index])
            return _call_vjp(_traced, steps[index], saved[index], cts, requires)

        seed_list = [(i, nr, ct) for (i, nr, _, _), ct in zip(seed_key, seeds)]
        captured = _propagate(arities, routes, seed_list, captures, n_targets, ready, call)
        return totals, captured

    return backward


def _run_fused(fused, order: list, saved, seeds: list, sinks: list, retain_graph: bool) -> tuple:
    """Run the backward as one call of its fused function (call under `_accumulation`) on the
    nodes' saved values (None: read here): the captured gradients and the leaves' `.grad`
    updates, for `_commit`. Deferred ops whose values the nodes saved run in the same call
    (`_defer/lazy.call_with_deferred`)."""
    leaves = [order[i].variable for i in sinks]
    segment = _lazy.open_segment()
    existing = [None if leaf._grad is None else leaf._grad._value for leaf in leaves]
    args = ([program_input(g) for _, _, g in seeds], existing)  # (`y.backward(tensor(v))`'s
    # host copy goes to the program as it is: no device array of our own, see HostTensor)
    if segment is not None and segment.closed:  # a deferred `.grad` (`zero_()`) or seed was
        segment = saved = None  # read: its run is computed; the saved values are read below
    result = None
    if segment is not None:  # the values the nodes saved may be deferred: one call for both
        if saved is None:
            saved = [() if isinstance(n, AccumulateGrad) else n.saved_values() for n in order]
        result = _lazy.call_with_deferred(segment, fused, saved, args, retain_graph)
        saved = None  # (when there is no result, the call computed the deferred values)
    if result is None:
        if saved is None:
            saved = [() if isinstance(n, AccumulateGrad) else n.check_saved() for n in order]
        try:
            result = fused(saved, *args)
        except _memory.DISPATCH_ERRORS as failure:  # an allocation that failed at dispatch
            _memory.raise_exhausted(failure)
    totals, captured = result
    big = _fused_big.get(fused)
    if big is None:  # per structure (its shapes are fixed): may an output be big?
        if len(_fused_big) > FUSED_SIZE:  # bounded like the fused functions it describes
            _fused_big.clear()
        arrays = [a for a in (*totals, *captured) if a is not None]
        big = _fused_big[fused] = any(a.size > _memory.BLOCK_ELEMENTS for a in arrays)
    if big:  # a gradient that does not fit fails here, before any `.grad` is stored
        _memory.settle_all(totals)
        _memory.settle_all(captured)
    entries = [_array_entry(leaf, t) for leaf, t in zip(leaves, totals) if t is not None]
    return [None if c is None else Tensor._wrap(c) for c in captured], entries


def release_graph(outputs) -> None:
    """Free the saved values of every node reachable from `outputs` (no retain_graph)."""
    roots = [edge for edge in (o._grad_edge() for o in outputs) if edge is not None]
    for node in _discover(roots):
        node.release()
