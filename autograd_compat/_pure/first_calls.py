"""An op's call at input shapes it never met, computed on the host without compiling.

`Op.first_call` hands such a call here (outside every trace, on arrays on one CPU device or
host arrays). `run` traces the op at the call's shapes, the trace its compile would start with
and reuse, and where that jaxpr is exact on the host (`host_rules`), `host_jaxpr` evaluates it
with numpy: nothing compiles. A sequence grown a token at a time meets such a call at every
token for each op that reads it, and the trace then costs more than the numpy (1.3 ms for an
embedding's `jnp.take`, six nested jitted functions, against 0.1 ms). So the second time an op
meets new shapes of one *pattern* (each input's dtype and rank; its dimensions of size 0 and 1;
which dimensions are equal), it is traced once more over symbolic dimensions
(`jax.export.symbolic_shape`: one variable per group of equal dimensions of 2 or more), and
every later call of that pattern evaluates that jaxpr, compiled once for the host
(`host_jaxpr.Program`), with the call's dimensions, tracing nothing. That jaxpr is kept only
where it is the concrete trace's at the call's shapes: the same primitives in the same order on
the same dtypes, with the same parameters once its dimensions are given their ints (its
`dim_as_value` reads, and the casts of them, stand for the concrete trace's literals); a
function that branches on a dimension, or that JAX cannot trace over symbolic ones, keeps the
concrete trace for every call (`PATTERNS` of them kept), as does an op whose trace reads
tensors' state (`Op.deferrable` False: a torch.compile'd call), traced no more often than its
program would be."""

from __future__ import annotations

import functools
from collections import OrderedDict
from typing import Any, NamedTuple

import jax
import numpy as np
from jax.sharding import SingleDeviceSharding

from . import host_jaxpr, host_rules
from .device import commit, host_to_device
from .jax_internals import ArrayImpl, ClosedJaxpr, Jaxpr, Literal
from .program_options import CALLS

PATTERNS = 1024  # (op, static arguments, pattern) entries kept, an LRU
_SEEN = "seen"  # a pattern met once: the next new shapes of it trace it symbolically
_NOWHERE = "nowhere"  # `_target`'s answer where the host may not compute the call
_patterns: OrderedDict = OrderedDict()


class Generic(NamedTuple):
    """An op's jaxpr over symbolic dimensions (one variable per group of equal dimensions),
    exact on the host, compiled for evaluation at each group's size, and its output
    structure."""

    jaxpr: ClosedJaxpr
    program: host_jaxpr.Program
    out_tree: Any


class Pattern(NamedTuple):
    """What a trace over symbolic dimensions fixes of a call's inputs (module doc), and the
    call's group sizes (the ints the pattern's variables take)."""

    key: tuple
    sizes: tuple


def _pattern(values) -> Pattern:
    """The inputs' pattern: per input its dtype, weak type and dimensions, each 0, 1 or the
    index of its group of equal sizes (2 or more)."""
    groups: dict[int, int] = {}
    key = []
    for value in values:
        dims = []
        for size in value.shape:
            dims.append(size if size < 2 else ~groups.setdefault(size, len(groups)))
        weak = type(value) is ArrayImpl and value.aval.weak_type
        key.append((value.dtype, weak, tuple(dims)))
    return Pattern(tuple(key), tuple(groups))


def _target(values):
    """Where the program would put the outputs: None for JAX's default placement (no input
    committed to a device), else the CPU device the committed inputs are on; `_NOWHERE` where
    an input is neither a host array nor a concrete array on one CPU device, or committed
    inputs disagree (the program raises PyTorch's error)."""
    target = None
    for value in values:
        kind = type(value)
        if kind is np.ndarray:
            continue
        if kind is not ArrayImpl:
            return _NOWHERE
        sharding = value.sharding
        if type(sharding) is not SingleDeviceSharding or sharding._device.platform != "cpu":
            return _NOWHERE
        if value._committed:
            if target is not None and sharding._device != target:
                return _NOWHERE
            target = sharding._device
    return target


def run(op, static: tuple, jitted, values):
    """The outputs of `op` (its jitted function `jitted`) on `values` computed with numpy,
    placed as the program places them (committed to the device of a committed input); None
    where an input is no host array or concrete array on one CPU device, or the jaxpr is not
    exact on the host (the caller runs the program)."""
    target = _target(values)
    if target is _NOWHERE:
        return None
    pattern = _pattern(values)
    key = (op, static, pattern.key)
    entry = _patterns.get(key)
    if type(entry) is Generic:
        try:  # (another thread's `_keep` may evict `key` between the lookup and here)
            _patterns.move_to_end(key)
        except KeyError:
            pass
        outs = entry.program.run(values, pattern.sizes)
        if outs is None:
            return None
        return _on_device(entry.out_tree, outs, target, entry.program.owned(outs, values))
    traced = jitted.trace(*values)
    if len(traced.jaxpr.jaxpr.invars) != len(values) or not host_rules.exact(traced.jaxpr):
        return None  # (an input that is no array leaf, or a primitive numpy may not compute)
    outs = host_jaxpr.evaluate(traced.jaxpr, values)
    if outs is None:
        return None
    if entry is None and op.deferrable:  # (a function whose trace reads tensors' state,
        _keep(key, _SEEN)  # a torch.compile'd call, is traced no more than its program is)
    elif entry is _SEEN:
        _keep(key, _generic(op.fn, static, pattern, traced.jaxpr))
    return _on_device(traced.out_tree, outs, target, [False] * len(outs))


def _keep(key: tuple, entry) -> None:
    _patterns[key] = entry
    while len(_patterns) > PATTERNS:
        _patterns.popitem(last=False)


def _on_device(out_tree, outs: list, target, owned: list):
    """The outputs as device arrays, those `owned` (`host_jaxpr.Program.owned`) without a
    copy, placed on `target` (None: JAX's default placement)."""
    arrays = [host_to_device(out, owned=alone) for out, alone in zip(outs, owned)]
    if target is not None:
        arrays = [commit(array, target) for array in arrays]
    return jax.tree_util.tree_unflatten(out_tree, arrays)


def _generic(fn, static: tuple, pattern: Pattern, concrete: ClosedJaxpr) -> Generic | bool:
    """The jaxpr of `fn` over the pattern's symbolic dimensions where it is exact and is the
    `concrete` trace's at the pattern's sizes; else False (the pattern keeps tracing)."""
    names = tuple(f"d{i}" for i in range(len(pattern.sizes)))
    symbols = jax.export.symbolic_shape(", ".join(names)) if names else ()
    specs = []
    for dtype, weak, dims in pattern.key:
        shape = tuple(d if d >= 0 else symbols[~d] for d in dims)
        specs.append(jax.ShapeDtypeStruct(shape, dtype, weak_type=weak))
    pure = functools.partial(fn, **dict(static))
    try:
        closed, shapes = jax.make_jaxpr(pure, return_shape=True)(*specs)
    except Exception:  # noqa: BLE001 (anything JAX refuses over symbolic dimensions)
        return False
    sizes = host_jaxpr.Sizes(dict(zip(names, pattern.sizes)))
    if not host_rules.exact(closed) or _skeleton(closed.jaxpr, sizes) != _skeleton(
        concrete.jaxpr, None
    ):
        return False
    try:
        program = host_jaxpr.Program(closed, names)
    except host_rules.Refused:
        return False
    return Generic(closed, program, jax.tree_util.tree_structure(shapes))


def _skeleton(jaxpr: Jaxpr, sizes, read: frozenset = frozenset()) -> list:
    """The primitives of `jaxpr` (calls inlined) in order, each with its input and output
    dtypes and its parameters at `sizes` (`host_jaxpr.Sizes`, None for concrete shapes); a
    dimension's value read (`dim_as_value`) and its casts are left out, as they stand for a
    concrete trace's literal."""
    steps: list = []
    from_dims = set(read)
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name == "dim_as_value" or (
            name == "convert_element_type" and _in(eqn.invars[0], from_dims)
        ):
            from_dims.update(eqn.outvars)
            continue
        if name in CALLS:
            body = host_rules.body(eqn.params).jaxpr
            inner = frozenset(v for v, x in zip(body.invars, eqn.invars) if _in(x, from_dims))
            steps.extend(_skeleton(body, sizes, inner))
            continue
        params = {key: host_jaxpr.concrete(value, sizes) for key, value in eqn.params.items()}
        dtypes = tuple(getattr(v.aval, "dtype", None) for v in (*eqn.invars, *eqn.outvars))
        steps.append((name, dtypes, params))
    return steps


def _in(var, values: set) -> bool:
    """Whether the jaxpr variable `var` (not a literal, which is unhashable) is in `values`."""
    return not isinstance(var, Literal) and var in values
