"""The fused executor: a whole backward as one jitted function of raw arrays.

For a graph whose `Structure` was seen before (`FUSE_AFTER`) and that has no hooks, the
stepwise propagation (`_tape/propagate`) is traced on raw arrays into one jitted function per
structure: one XLA call for the whole backward of a hot training step. Where the forward is
deferred, that function is compiled with it, as one program (`_defer/lazy.call_with_deferred`),
once the forward's run is met often enough or has run long enough op by op; until then the
backward runs stepwise (`Stepwise`) rather than compile the backward alone for the few steps
before that program supersedes it (nanoGPT's: 1.6 s of compile for its second step). Only a
structure that meets more than `COMBINED_KEYS` different forwards compiles on its own. A
create_graph `autograd.grad` met again without hooks applies that pure function as one recorded op
(`WHOLE_BACKWARD`, node `GradBackward`: its vjp is the next derivative).
"""

from __future__ import annotations

import time
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from typing import NamedTuple

from .._defer import lazy as _lazy
from .._pure import executables
from .._pure import memory as _memory
from .._pure.op import HashedTuple, lru_get, lru_put, register
from .._state.modes import modes
from .._state.node import AccumulateGrad
from .._state.tensor import Tensor, program_input
from .accumulate import array_entry
from .propagate import add, call_vjp, graph_count, graph_primals, propagate
from .record import apply
from .schedule import Plan

FUSE_AFTER = 2  # a graph structure is fused the second time it is seen
SEEN_SIZE = 1024  # structures counted towards FUSE_AFTER (an LRU)
FUSED_SIZE = 128  # fused backwards kept (an LRU of compiled functions)
COMBINED_KEYS = 2  # forwards a fused backward waits for to be compiled with (see the doc)
seen: OrderedDict = OrderedDict()  # structure -> times seen, until it is fused
programs: OrderedDict = OrderedDict()  # structure -> its fused function
_big: dict = {}  # fused function -> whether an output may exceed memory.BLOCK_ELEMENTS
_forwards: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # fused function -> the
# keys of the programs with a forward it waits for (`_waits_for_forward`)


class Stepwise(NamedTuple):
    """`run_fused`'s answer where the backward is to run stepwise: `segment`, the forward's
    run, has been computed op by op, and the stepwise run's time counts towards compiling
    both as one program (`_defer/lazy.backward_paid`)."""

    segment: _lazy.Segment


class _StructureFields(NamedTuple):
    steps: tuple  # each node's `Step` (None for a leaf), in the order they run
    arities: tuple  # as `Plan.arities`
    routes: tuple  # as `Plan.routes`
    seed_key: tuple  # (index, output_nr, shape, dtype) of each root's seed
    capture_key: tuple  # `Plan.captures`' items, sorted
    n_targets: int
    sinks: tuple  # as `Plan.sinks`
    existing: tuple  # per sink, whether its leaf has a `.grad` to add to


class Structure(_StructureFields, HashedTuple):
    """A backward's structure, the key of its fused function (its hash computed once): what
    each node's call depends on besides its values, the plan, and which leaves have a `.grad`
    to add to."""


def structure_of(steps: list, order: list, plan: Plan) -> Structure:
    """The `Structure` of a scheduled backward (`steps`: each node's `Step`)."""
    seed_key = tuple((i, nr, g._stored.shape, g._stored.dtype) for i, nr, g in plan.seeds)
    capture_key = tuple(sorted((i, tuple(v)) for i, v in plan.captures.items()))
    existing = tuple(order[i].variable._grad is not None for i in plan.sinks)
    return Structure(
        tuple(steps),
        plan.arities,
        tuple(plan.routes),
        seed_key,
        capture_key,
        plan.n_targets,
        tuple(plan.sinks),
        existing,
    )


def _node_by_node() -> bool:
    """Whether a mode wants every backward run node by node: anomaly mode, an
    autograd.functional trace or the deterministic mode."""
    return modes.anomaly or modes.deterministic or bool(modes.tracing and modes.traces)


def may_fuse(create_graph: bool) -> bool:
    """Whether the fused executor may run a backward now: not under create_graph, nor in a
    mode that wants it node by node (`_node_by_node`)."""
    return not (create_graph or _node_by_node())


def may_record_whole(create_graph: bool, accumulate: bool) -> bool:
    """Whether a backward may be recorded as one op (`record_whole`) now: an `autograd.grad`
    under create_graph (no `.grad` to accumulate), outside the modes of `_node_by_node`; its
    graph must also reach every target (`reaches_all`)."""
    return create_graph and not accumulate and not _node_by_node()


def reaches_all(plan: Plan) -> bool:
    """Whether a plan's backward reaches every target (else one gets None: allow_unused)."""
    return sum(len(v) for v in plan.captures.values()) == plan.n_targets


def fused_for(structure: Structure):
    """The fused function for a backward of this structure whose nodes allow it (see
    `schedule.survey` and `may_fuse`), or None to run it stepwise: the first `FUSE_AFTER - 1`
    times a structure is seen."""
    fused = lru_get(programs, structure)
    if fused is None:
        count = seen.get(structure, 0) + 1
        if count < FUSE_AFTER:
            lru_put(seen, structure, count, SEEN_SIZE)
            return None
        fused = fused_backward(structure)
        lru_put(programs, structure, fused, FUSED_SIZE)
        seen.pop(structure, None)
    return fused


def fused_backward(structure: Structure):
    """The pure function of a whole backward (`_backward_of`), jitted."""
    return executables.jit(_backward_of(structure))


def traced(op, *args, **static):
    """Call an op's pure function directly: inside a trace there is nothing to record."""
    return op.fn(*args, **static)


def _backward_of(structure: Structure, graph: bool = False):
    """The pure function of a whole backward: (saved, seeds, existing grads) -> (new leaf
    grads, target grads), the stepwise propagation traced on raw arrays; with `graph`, the
    saved values are what `propagate.graph_primals` gives."""
    steps, arities, routes, seed_key, capture_key, n_targets, sinks, _ = structure
    captures = dict(capture_key)
    sink_position = {index: k for k, index in enumerate(sinks)}

    def backward(saved, seeds, existing):
        totals: list = [None] * len(sinks)

        def ready(index: int, cts: list) -> list:
            if index in sink_position and cts[0] is not None:  # (a leaf has one output)
                k = sink_position[index]
                totals[k] = add(existing[k], cts[0])
            return cts

        def call(index: int, cts: list) -> list:
            requires = tuple(route is not None for route in routes[index])
            return call_vjp(traced, steps[index], saved[index], cts, requires, graph)

        seed_list = [(i, nr, ct) for (i, nr, _, _), ct in zip(seed_key, seeds)]
        plan = Plan(arities, routes, seed_list, captures, sinks, n_targets)
        captured = propagate(plan, ready, call)
        return totals, captured

    return backward


def run_fused(fused, order: list, saved, seeds: list, sinks: Sequence, retain_graph: bool) -> tuple:
    """Run the backward as one call of its fused function (call under
    `accumulate.accumulation`) on the nodes' saved values (None: read here): the captured
    gradients and the leaves' `.grad` updates, for `accumulate.commit`. Deferred ops whose
    values the nodes saved run in the same call (`_defer/lazy.call_with_deferred`)."""
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
        if result is None and _waits_for_forward(fused, segment.combined):
            return Stepwise(segment)
    if result is None:
        if saved is None:
            saved = [() if isinstance(n, AccumulateGrad) else n.check_saved() for n in order]
        start = time.perf_counter()
        try:
            result = fused(saved, *args)
        except _memory.DISPATCH_ERRORS as failure:  # an allocation that failed at dispatch
            _memory.raise_exhausted(failure)
        if segment is not None:  # (its time counts towards compiling it with the forward)
            _lazy.backward_paid(segment, time.perf_counter() - start)
    totals, captured = result
    big = _big.get(fused)
    if big is None:  # per structure (its shapes are fixed): may an output be big?
        if len(_big) > FUSED_SIZE:  # bounded like the fused functions it describes
            _big.clear()
        arrays = [a for a in (*totals, *captured) if a is not None]
        big = _big[fused] = any(a.size > _memory.BLOCK_ELEMENTS for a in arrays)
    if big:  # a gradient that does not fit fails here, before any `.grad` is stored
        _memory.settle_all(totals)
        _memory.settle_all(captured)
    updates = [array_entry(leaf, t) for leaf, t in zip(leaves, totals) if t is not None]
    return [None if c is None else Tensor._wrap(c) for c in captured], updates


def _waits_for_forward(fused, combined) -> bool:
    """Whether a backward whose forward's program `combined` (`Segment.combined`: None where
    none is coming) is not compiled yet should run stepwise rather than compile `fused` alone:
    `fused` has no program yet and has met at most `COMBINED_KEYS` such forwards."""
    if combined is None or fused._cache_size():
        return False
    keys = _forwards.setdefault(fused, set())
    if combined in keys:
        return True
    if len(keys) >= COMBINED_KEYS:
        return False
    keys.add(combined)
    return True


# ----------------------------------------------------------------------------- recorded whole
def _whole_backward(*flat, structure: Structure):
    """A backward of `structure` as one pure function: (the saved primals of its nodes in
    order, flattened; the seeds) -> the gradient at each target, as the fused executor
    computes them. Recorded as an op (`record_whole`), its vjp is the double backward."""
    saved: list = []
    k = 0
    for step in structure.steps:
        n = 0 if step is None else graph_count(step)
        saved.append(tuple(flat[k : k + n]))
        k += n
    _, captured = _backward_of(structure, graph=True)(saved, list(flat[k:]), [])
    return tuple(captured)


WHOLE_BACKWARD = register("_internal.whole_backward", _whole_backward, node="GradBackward")


def record_whole(structure: Structure, order: list, seeds: list) -> list:
    """Run a create_graph `autograd.grad` as one recorded op on the nodes' saved primals (as
    Tensors in the graph, `propagate.graph_primals`) and the seeds: one node for the whole
    backward, and, its outputs being small, one deferred op that the next backward computes in
    its own program. Returns the gradient at each target."""
    inputs: list = []
    for node in order:
        if not isinstance(node, AccumulateGrad):
            inputs.extend(graph_primals(node))
    inputs.extend(g for _, _, g in seeds)
    return list(apply(WHOLE_BACKWARD, *inputs, structure=structure))
