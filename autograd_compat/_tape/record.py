"""Recording: `apply(op, *inputs, **static)` runs an op on Tensors and records a Node.

The forward is the op's jitted function; when grad mode is on and an input requires grad, a
`Node` keeps what the op's vjp will read (see `Op.saves`) and the version counters that catch
in-place changes of saved values. A slow path serves the modes that change what an op does:
forward-mode AD, anomaly detection, saved-tensor hooks, autograd.functional traces and
autocast (its input casts, `_tape/autocast`).

A node is made from a `Recipe`: what every node of an op shares at given input shapes, dtypes
and requires_grad flags (its `Step`, whether it holds saved primals, its class, what it
watches). For an op `_defer/lazy` knows at those shapes the recipe is made once and kept with
the op's `Known`, so its step is the same object node after node: the engine's hot pass
(`_tape/hot`) compares steps by identity.
"""

from __future__ import annotations

import functools
import os
import threading
import time
import traceback
import weakref
from collections import OrderedDict
from math import prod
from typing import Any, NamedTuple, NoReturn

import jax

from .._defer import lazy as _lazy
from .._defer.lazy import Known, Pending
from .._pure import executables
from .._pure import memory as _memory
from .._pure import residuals as _residuals
from .._pure.device import pytorch_device_error
from .._pure.dtype_rules import Checks
from .._pure.op import INEXACT, JVP_PER_OP, Op, jvp_pure, lru_get, lru_put, stuck_trace
from .._pure.shapes import pytorch_shape_error
from .._state import modes as _grad_mode
from .._state.modes import modes
from .._state.node import Step, node_class, saved_ref, watches_result
from .._state.tensor import LazyTensor, MetaTensor, MetaValueError, Tensor
from . import autocast as _autocast
from . import hooks as _hooks

_BLOCK_ELEMENTS = _memory.BLOCK_ELEMENTS
# A NamedTuple's own `__new__` is a Python call (~120 ns); an op the deferral does not know makes
# its recipe at each call, with tuple's (`_new_record(Recipe, fields)`, ~60 ns).
_new_record = tuple.__new__
_MASKS: dict = {}  # (op.saves, requires) -> (saved mask, whether the node has saved primals)
_MASKS_MAX_INPUTS = 8  # masks of ops with more inputs are computed each time, not cached
_SAVING: OrderedDict = OrderedDict()  # residual-saving ops' recipes (`_saving_entry`)
_SAVING_SIZE = 1024


def _saved_mask(saves: str, requires: tuple) -> tuple:
    n = len(requires)
    if saves == "all" or saves == "output":
        return (True,) * n
    if saves == "none":
        return (False,) * n
    if saves == "positions":
        return (False,) * (n - 1) + (True,)
    needed = sum(requires)
    return tuple([needed - r > 0 for r in requires])  # "others": another input needs a grad


def _mask_of(saves: str, requires: tuple) -> tuple:
    """The saved mask for these inputs and whether the node will hold saved primals (a view
    op's positions are metadata, as PyTorch's sizes: never freed); cached, ops are few."""
    entry = _MASKS.get((saves, requires))
    if entry is None:
        mask = _saved_mask(saves, requires)
        entry = (mask, True in mask and saves != "positions")
        if len(requires) <= _MASKS_MAX_INPUTS:
            _MASKS[(saves, requires)] = entry
    return entry


# What an op's call raises that `_raise_op_error` turns into PyTorch's error.
_OP_ERRORS = (*_memory.DISPATCH_ERRORS, TypeError)


def _raise_op_error(failure: Exception) -> NoReturn:
    """Raise what an op's program raised at its call as PyTorch does: a shape JAX refused, or
    inputs on different devices, as PyTorch's RuntimeError, a failed allocation as
    OutOfMemoryError, anything else as it is."""
    translated = pytorch_shape_error(failure) or pytorch_device_error(failure)
    if translated is not None:
        raise translated from None
    _memory.raise_exhausted(failure)


def check_dtypes(checks: Checks, inputs: tuple, static: dict) -> None:
    """PyTorch's error where an op's dtype rules (`_pure/dtype_rules`) refuse its tensor
    inputs' dtypes; tensor inputs all of one dtype that passes them skip the rules."""
    arrays = []  # (a loop: a comprehension is a call on Python 3.11)
    first = None
    same = True
    for x in inputs:
        if isinstance(x, Tensor):
            stored = x._stored
            arrays.append(stored)
            if first is None:
                first = stored.dtype
            elif stored.dtype != first:
                same = False
        else:
            arrays.append(None)
    if same and first in checks.uniform:
        return
    for rule in checks.rules:
        rule.check(arrays, static)


def apply(op: Op, *inputs, **static):
    """Run `op` on Tensors and constant arrays; record a Node when a gradient is needed.

    Returns one Tensor, or a tuple of Tensors when the op's function returns a tuple.
    Outputs of integer or bool dtype never require grad.

    It reads in four steps: gather the inputs' values, run the op now or defer it
    (`_defer/lazy`), record a node, wrap the results. They are written out in one function:
    this is every op's path, and on Python 3.11 a call per step would cost more than the
    steps themselves (`bench/python_bytecodes.py`).
    """
    if modes.special:
        return _apply_special(op, inputs, static)
    if op.dtype_rules is not None:
        check_dtypes(op.dtype_rules, inputs, static)
    # gather: each input's value, whether it requires grad, whether one is still deferred
    values = []
    requires = []
    live = pending = False
    try:  # (free in Python 3.11 until it raises)
        for x in inputs:
            if isinstance(x, Tensor):
                if type(x) is LazyTensor:
                    values.append(x._stored)  # its Pending: deferred ops chain on it
                    pending = True
                else:
                    values.append(x._value)
                if x._requires_grad:
                    live = True
                    requires.append(True)
                    continue
            else:
                values.append(x)
            requires.append(False)
    except MetaValueError:  # an input on the meta device: a result of the right shape only
        return apply_meta(op, inputs, static)
    # defer: a Pending result (a tuple of them), or `defer`'s answer to run it now
    key = tuple(static.items())
    saving = None
    run = op  # what computes the outputs: `op`, or its forward that returns residuals too
    if live and op.residuals is not None and _grad_mode._state.enabled:
        saving = _saving_entry(op, key, values, tuple(requires))
        if saving is not None and not saving.plain:
            run, key = saving.forward, saving.forward_key
    deferred: Any = _lazy.defer(run, key, values) if _lazy.ENABLED else None
    kind = type(deferred)
    if kind is Pending or kind is tuple:
        if live and op.differentiable and _grad_mode._state.enabled:  # record
            if saving is not None:
                return _saving_node(op, inputs, values, deferred, saving, LazyTensor)
            known = deferred.known if kind is Pending else deferred[0].known
            needs = tuple(requires)  # (the recipe lookup inline: two calls fewer per op)
            recipe = known.notes.get(needs) or _known_recipe(op, known, needs)
            return _make_node(op, inputs, values, deferred, needs, recipe, LazyTensor)
        if kind is tuple:  # wrap
            return _wrap_all(LazyTensor, deferred)
        return LazyTensor._wrap(deferred)
    # run now
    if pending:
        values = _lazy.resolved(values, deferred is _lazy.LEARN)
    try:
        if deferred is _lazy.LEARN:  # a shape met once computes on the host where exact
            out = run.first_call(key, values)
        else:
            out = run.compiled(key)(*values)
    except _OP_ERRORS as failure:
        _raise_op_error(failure)
    except RecursionError as failure:
        out = _traced_anew(run, key, values, failure)
    if deferred is _lazy.LEARN:
        _lazy.learn(run, key, values, out)
    if type(out) is tuple:
        _memory.settle_all(out)
    elif prod(out.aval.shape) > _BLOCK_ELEMENTS:  # a big output fails here, at its op
        _memory.settle(out)  # (see _pure/memory); `aval.shape` is `shape` without a call
    # record
    if live and op.differentiable and _grad_mode._state.enabled:
        if saving is not None:
            return _saving_node(op, inputs, values, out, saving, Tensor)
        if kind is Known:  # (its recipes are kept with it, as a deferred op's are)
            needs = tuple(requires)
            recipe = deferred.notes.get(needs) or _known_recipe(op, deferred, needs)
            return _make_node(op, inputs, values, out, needs, recipe, Tensor)
        return _record(op, key, inputs, values, out, tuple(requires))
    # wrap
    if type(out) is tuple:
        return _wrap_all(Tensor, out)
    return Tensor._wrap(out)


def _traced_anew(op: Op, key: tuple, values: list, failure: RecursionError):
    """The op's outputs from a new jitted function where JAX refuses the old one, whose first
    trace an interrupt cut short (`stuck_trace`); any other RecursionError is raised."""
    if not stuck_trace(failure):
        raise failure
    op.forget(key)
    return op.compiled(key)(*values)


def _wrap_all(cls: type[Tensor], outputs: tuple) -> tuple:
    """An op's tuple of outputs as Tensors of `cls` that no node produced."""
    wrapped = []  # (a loop: this call replaces a comprehension's, which costs one in 3.11)
    for out in outputs:
        wrapped.append(cls._wrap(out))
    return tuple(wrapped)


def apply_meta(op: Op, inputs: tuple, static: dict):
    """`apply` with an input on the meta device: the outputs' shapes and dtypes from
    `jax.eval_shape`, nothing computed. The node is recorded as PyTorch records it (its
    grad_fn shows); a backward from it is `meta_backward`'s."""
    values = []
    expected = None  # the first tensor's device, which PyTorch expects of the others
    for x in inputs:
        if isinstance(x, Tensor):
            if expected is None:
                expected = x.device
            if isinstance(x, MetaTensor) is not (expected.type == "meta") and x._stored.ndim:
                raise RuntimeError(  # (CPU scalars may join, as in PyTorch)
                    f"Tensor on device {x.device} is not on the expected device {expected}!"
                )
            x = jax.ShapeDtypeStruct(x._stored.shape, x._stored.dtype)
        values.append(x)
    out = jax.eval_shape(functools.partial(op.fn, **static), *values)
    requires = _requires(inputs)
    if True in requires and op.differentiable and _grad_mode._state.enabled:
        many = out if type(out) is tuple else (out,)
        out_meta = tuple([(o.shape, o.dtype) for o in many])
        recipe = _recipe(op, tuple(static.items()), requires, values, out_meta)
        return _make_node(op, inputs, values, out, requires, recipe, MetaTensor)
    if type(out) is tuple:
        return _wrap_all(MetaTensor, out)
    return MetaTensor._wrap(out)


class Recipe(NamedTuple):
    """What every node of an op at given input shapes, dtypes and requires_grad flags shares."""

    step: Step
    had_saved: bool  # whether the node holds saved primals (a view's positions are none)
    node_class: type
    watch_inputs: bool  # whether it watches its saved inputs' versions (else its result's)
    inexact: tuple  # per output, whether its dtype is inexact (only those get the node)


def _recipe(op: Op, static: tuple, requires: tuple, inputs_meta, out_meta: tuple) -> Recipe:
    """The `Recipe` of `op` with these static arguments and requires_grad flags on inputs of
    these shapes and dtypes (`inputs_meta`: each input's (shape, dtype), or what has them) and
    outputs of these (`out_meta`)."""
    saved_mask, had_saved = _mask_of(op.saves, requires)
    placeholders, inexact = [], []  # (loops: an op lazy does not know makes one each call)
    for m, s in zip(inputs_meta, saved_mask):
        if not s:
            placeholders.append(m if type(m) is tuple else (m.shape, m.dtype))
    for _, dtype in out_meta:
        inexact.append(dtype in INEXACT)
    step = _new_record(Step, (op, static, saved_mask, tuple(placeholders), out_meta, None))
    return _new_record(
        Recipe, (step, had_saved, node_class(op), op.saves != "output", tuple(inexact))
    )


def _requires(inputs: tuple) -> tuple:
    """Whether each input is a Tensor that requires grad."""
    requires = []  # (a loop: a comprehension costs a function call in Python 3.11)
    for x in inputs:
        requires.append(isinstance(x, Tensor) and x._requires_grad)
    return tuple(requires)


def _known_recipe(op: Op, known: Known, requires: tuple) -> Recipe:
    """The node `Recipe` of `op` where `_defer/lazy` knows it at these input shapes
    (`known`), for this requires_grad pattern: made once and kept with `known`, so its tuples
    are the same objects node after node (the engine's hot pass compares steps by identity)."""
    recipe = known.notes[requires] = _recipe(op, known.static, requires, known.inputs, known.meta)
    return recipe


def _record(op: Op, key: tuple, inputs: tuple, values: list, out, requires: tuple):
    """Make the Node for one op application and wrap its outputs as its results (`requires`:
    whether each input is a Tensor that requires grad)."""
    if type(out) is tuple:
        out_meta = tuple([(o.aval.shape, o.aval.dtype) for o in out])
    else:
        aval = out.aval
        out_meta = ((aval.shape, aval.dtype),)
    recipe = _recipe(op, key, requires, values, out_meta)
    return _make_node(op, inputs, values, out, requires, recipe, Tensor)


def _make_node(op: Op, inputs, values, out, requires, recipe: Recipe, cls: type[Tensor]):
    """The Node of one op application, made from its `recipe`, and its results, of `cls`."""
    step, had_saved, node_cls, watch_inputs, inexact = recipe
    saved_mask = step.saved_mask
    if modes.inference_seen:
        check_inference_saved(inputs, saved_mask)
    edges: list = []  # (one loop, not comprehensions: see `_requires`)
    saved, versions = [], []
    for x, value, r, s in zip(inputs, values, requires, saved_mask):
        if not r:
            edges.append(None)
        elif x._storage is None and x._grad_fn is not None:  # (`grad_edge` of a non-view)
            edges.append((x._grad_fn, x.output_nr))
        else:
            edges.append(x._grad_edge())
        if s:
            saved.append(value)
            if watch_inputs and isinstance(x, Tensor):
                counter = x._version_counter
                ref = weakref.ref(x) if x._storage is None else saved_ref(x)  # (`saved_ref`)
                versions.append((counter, counter[0], ref))
    node = node_cls(step, tuple(edges), tuple(saved), tuple(versions), had_saved)
    if type(out) is tuple:
        return tuple(
            [cls._wrap(o, node, nr) if inexact[nr] else cls._wrap(o) for nr, o in enumerate(out)]
        )
    if not inexact[0]:
        return cls._wrap(out)
    result = cls._wrap(out, node, 0)
    if not watch_inputs:
        node.versions = ((result._version_counter, 0, weakref.ref(result)),)
    return result


class Saving(NamedTuple):
    """How a residual-saving op records at given inputs (`_saving_entry`)."""

    recipe: Recipe  # its node's, the step holding the residuals' layout
    forward: Op  # the op run instead: `op` that also returns the new residuals (`saving_of`)
    forward_key: tuple  # its static arguments, as `apply` keys them
    requires: tuple  # whether each input requires grad
    plain: bool  # every residual is an input or an output: the op's own forward serves


def _saving_entry(op: Op, key: tuple, values: list, requires: tuple) -> Saving | None:
    """The node `Recipe` of a residual-saving op (`Op.residuals`) at these inputs, its step
    holding the residuals' layout, and the forward that returns them (`saving_of`); None
    where the op saves residuals only if they are its inputs and outputs and they are not.
    Made once per op, static arguments, input avals and requires_grad pattern (an LRU)."""
    avals = []  # (a loop: a comprehension is a call on Python 3.11)
    for v in values:
        avals.append((v.shape, v.dtype))
    cache_key = (op, key, tuple(avals), requires)
    entry = _SAVING.get(cache_key, _SAVING)  # (the dict itself: not made yet)
    if entry is _SAVING:
        layout = _residuals.layout_of(op, key, cache_key[2], requires)
        entry = None
        if layout.connected or op.residuals == "all":
            recipe = _recipe(op, key, requires, avals, layout.out_meta)
            step = recipe.step._replace(residuals=layout)
            forward_key = (("static", key), ("requires", requires), ("new", layout.new))
            entry = Saving(
                recipe._replace(step=step),
                _residuals.saving_of(op),
                forward_key,
                requires,
                not layout.new,
            )
        lru_put(_SAVING, cache_key, entry, _SAVING_SIZE)
    else:
        _SAVING.move_to_end(cache_key)
    return entry


def _saving_node(op: Op, inputs, values, out, saving: Saving, cls: type[Tensor]):
    """The node of a residual-saving op and its results: `out` is what its forward gave (a
    value, a tuple, deferred or not), the outputs followed by the new residuals where the
    forward returns them. The node saves the pullback's residuals (inputs, outputs and the
    new ones), then, where they are not all inputs and outputs, the primals a create_graph
    backward differentiates (see `_tape/propagate.call_vjp`)."""
    recipe = saving.recipe
    layout = recipe.step.residuals
    if saving.plain:
        outs, new = (out if layout.tupled else (out,)), ()
    else:
        n_out = len(layout.out_meta)
        outs, new = out[:n_out], out[n_out:]
        out = tuple(outs) if layout.tupled else outs[0]
    leaves = []
    for kind, index in layout.sources:
        if kind == _residuals.INPUT:
            leaves.append(values[index])
        elif kind == _residuals.OUTPUT:
            leaves.append(outs[index])
        else:
            leaves.append(new[index])
    if not layout.connected:
        for value, s in zip(values, recipe.step.saved_mask):
            if s:
                leaves.append(value)
    result = _make_node(op, inputs, values, out, saving.requires, recipe, cls)
    _node_of(result).saved = tuple(leaves)
    return result


def watch_written(node, result: Tensor, target: Tensor) -> None:
    """After an in-place op (`y.exp_()`) whose node watches its result: watch `target`, the
    tensor the result was written into, at its new version, as PyTorch's saved result does."""
    if len(node.versions) != 1 or not watches_result(node):
        return
    ((_, _, ref),) = node.versions
    if ref() is result:
        counter = target._version_counter
        node.versions = ((counter, counter[0], weakref.ref(target)),)


# ----------------------------------------------------------------------------- slow path
# `apply` tests `modes.special`; it is set while a mode that changes what an op does is on
# (see `_Modes.refresh_special`). Inference mode needs no slow path.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`."
)


def check_inference_saved(inputs, saved_mask) -> None:
    """PyTorch's error when a node would save an inference tensor."""
    for x, s in zip(inputs, saved_mask):
        if s and isinstance(x, Tensor) and x._is_inference:
            raise RuntimeError(INFERENCE_SAVED)


def _jvp_call(op: Op, key: tuple, values: list, tangents: dict):
    """Forward and output tangents of one op application (jitted, cached per op/static/mask)."""
    index = tuple(tangents)
    cache_key = (key, index, len(values))
    fn = lru_get(op._jvp, cache_key)
    if fn is None:
        fn = executables.jit(
            functools.partial(jvp_pure, fn=op.fn, static=key, n=len(values), tangent_index=index)
        )
        lru_put(op._jvp, cache_key, fn, JVP_PER_OP)
    tans = []
    for i, t in tangents.items():
        value = t._value
        if value.dtype != values[i].dtype:
            value = value.astype(values[i].dtype)
        tans.append(value)
    return fn(*values, *tans)


def set_tangent(tensor: Tensor, tangent) -> None:
    """Attach a forward-AD tangent (a Tensor) to `tensor` at the current level."""
    if tensor._fw_grad is None:  # a WeakSet compares members with ==: add each tensor once
        modes.duals.add(tensor)
    tensor._fw_grad = tangent


def forward_traceback() -> list:
    """The user's stack at an op call (frames inside this package dropped), as PyTorch keeps
    it for anomaly mode."""
    frames = traceback.extract_stack()
    while frames and frames[-1].filename.startswith(_PACKAGE_DIR):
        frames.pop()
    return traceback.format_list(frames)


def decorate_node(node, inputs) -> None:
    """What the slow modes add to a new node: packed saved values, anomaly metadata."""
    hooks = _hooks.current_saved_hooks() if modes.saved_hooks else None
    if hooks is not None and node.saved and not node.custom:
        saved = list(node.saved)
        k = 0
        for x, s in zip(inputs, node.saved_mask):
            if s:
                if isinstance(x, Tensor):
                    saved[k] = _hooks.pack_value(x, hooks)
                k += 1
        node.saved = tuple(saved)
        node.__class__ = _hooks.PackedNode
        node.hot = None  # (its saved values are unpacked by hooks: see `_state/node`)
    if modes.anomaly:
        node.metadata["traceback_"] = forward_traceback()
        if modes.executing:
            node.metadata["parent_"] = modes.executing[-1]


def _node_of(result):
    if type(result) is tuple:
        for t in result:
            if t._grad_fn is not None:
                return t._grad_fn
        return None
    return result._grad_fn


class OpEvent(NamedTuple):
    """One op run that an observer (`modes.observers`) is told of, timed to its result."""

    op: Op
    static: dict
    inputs: tuple
    result: Any
    start_ns: int
    end_ns: int


_observing = threading.local()  # whether this thread is inside an observed op


def add_observer(observer) -> None:
    """Call `observer(OpEvent)` after every op that runs from now on, in any thread."""
    modes.observers = [*modes.observers, observer]
    modes.refresh_special()


def remove_observer(observer) -> None:
    modes.observers = [o for o in modes.observers if o != observer]  # (a bound method: ==)
    modes.refresh_special()


def _observed(op: Op, inputs: tuple, static: dict):
    """`apply` while observers watch: run the op to its result (outside a trace), then report
    it; ops it applies itself (autocast's casts) are part of it."""
    try:  # (set inside the `try`: an interrupt cannot leave it set)
        _observing.active = True
        start = time.perf_counter_ns()
        result = _apply_special(op, inputs, static)
        for out in result if type(result) is tuple else (result,):
            if isinstance(out, MetaTensor):  # no data to wait for
                continue
            value = out._value
            if hasattr(value, "block_until_ready") and not isinstance(value, jax.core.Tracer):
                value.block_until_ready()
        end = time.perf_counter_ns()
    finally:
        _observing.active = False
    event = OpEvent(op, static, inputs, result, start, end)
    for observer in modes.observers:
        observer(event)
    return result


def _apply_special(op: Op, inputs: tuple, static: dict):
    """`apply` while a slow mode is on (see modes.refresh_special); same results otherwise.

    Its nodes are the fast path's, residual nodes included (`_saving_entry`): a compiled step
    then differentiates an LSTM layer from its saved gates, where a node of its primals would
    put each layer's forward recurrence in the step's program twice. Under saved-tensor hooks
    (which must see the primals) and forward AD a residual op records a node of its primals."""
    if modes.tracing and not modes.traces:  # another thread's trace binds tensors to tracers
        modes.wait_for_traces()
    if modes.observers and not getattr(_observing, "active", False):
        return _observed(op, inputs, static)
    state = _grad_mode._state
    if state.autocast:
        targets = _autocast.cast_targets(op, inputs)
        if targets is not None:
            inputs = tuple(
                x if dtype is None else apply(_autocast.CAST, x, dtype=dtype.jax)
                for x, dtype in zip(inputs, targets)
            )
    if op.dtype_rules is not None:
        check_dtypes(op.dtype_rules, inputs, static)
    grad_on = state.enabled
    forward_ad = modes.fw_level is not None and not state.inference
    traces = modes.traces
    values = []
    requires = []
    tangents: dict = {}
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor):
            if isinstance(x, MetaTensor):
                return apply_meta(op, inputs, static)
            value = x._value
            live = x._requires_grad
            if forward_ad:
                tangent = x._fw_grad
                if tangent is not None:
                    tangents[i] = tangent
        else:
            value = x
            live = False
        for trace in traces:
            value = trace.visit(value, live and grad_on, x)
        values.append(value)
        requires.append(live)
    key = tuple(static.items())
    recorded = True in requires and op.differentiable and grad_on
    saving = None
    if recorded and op.residuals is not None and not tangents and not modes.saved_hooks:
        saving = _saving_entry(op, key, values, tuple(requires))
    if tangents:
        out, out_tangent = _jvp_call(op, key, values, tangents)
    else:
        run, run_key = op, key
        if saving is not None and not saving.plain:
            run, run_key = saving.forward, saving.forward_key
        try:
            out = run.compiled(run_key)(*values)
        except _OP_ERRORS as failure:
            _raise_op_error(failure)
    _memory.settle_all(out if type(out) is tuple else (out,))
    if recorded:
        if saving is not None:
            result = _saving_node(op, inputs, values, out, saving, Tensor)
        else:
            result = _record(op, key, inputs, values, out, tuple(requires))
        node = _node_of(result)
        if node is not None:
            decorate_node(node, inputs)
    elif type(out) is tuple:
        result = _wrap_all(Tensor, out)
    else:
        result = Tensor._wrap(out)
    if tangents:
        if type(result) is tuple:
            for t, tangent in zip(result, out_tangent):
                if tangent.dtype in INEXACT:
                    set_tangent(t, Tensor._wrap(tangent))
        elif out_tangent.dtype in INEXACT:
            set_tangent(result, Tensor._wrap(out_tangent))
    return result
