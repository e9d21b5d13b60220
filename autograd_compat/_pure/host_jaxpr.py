"""A jaxpr evaluated with numpy on the host, where numpy gives XLA:CPU's bits exactly.

An eager op met at input shapes never seen before would compile a program for them (10-300
ms); a sequence grown a token at a time meets a new shape at every token. Where every
primitive of the op's jaxpr (and of the calls in it) is one whose numpy result is XLA:CPU's
bit for bit, `evaluate` computes the outputs on the host instead and nothing compiles.

What is exact: moving data (slices, gathers, concatenation, reshapes, broadcasts, transposes,
pads, selects, iota) of any dtype, and integer and boolean arithmetic, logic and comparisons
(two's complement wraps alike), and conversions between integer and boolean types and from
them to float32/float64. No float arithmetic or comparison: XLA:CPU flushes subnormal floats
to zero (a comparison or a max reads 1e-40 as 0, a widening cast writes 0) and contracts a
multiply feeding an add into one fused multiply-add, so even `neg` inside a fused loop differs
from numpy's. Out-of-range starts are clamped as XLA clamps them; a FILL_OR_DROP gather fills
as JAX lowers it (its indices cast to the operand's index type first).
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import Any, NamedTuple

import numpy as np
from jax.export import is_symbolic_dim
from jax.extend.core import ClosedJaxpr, Jaxpr, Literal
from jax.lax import GatherScatterMode

from .device import host_buffer
from .jax_internals import Affine, affine, dim_value
from .program_options import CALLS

MAX_ELEMENTS = 1 << 20  # a value bigger than this is left to XLA (its copy costs ~1 ms)
OWNED_BYTES = 1 << 14  # a result this big becomes a device buffer without a copy if it can
_INT32_MAX = 2**31 - 1


class Refused(Exception):
    """A jaxpr holds what numpy does not compute as XLA:CPU does."""


def _clamped(starts, limit):
    """Integer `starts` clamped into [0, limit] as XLA clamps a start index, in their own
    dtype (a huge unsigned start stays huge), as platform integers."""
    starts = np.asarray(starts)
    if starts.dtype.kind == "i":
        starts = np.maximum(starts, 0)
    return np.minimum(starts, limit).astype(np.intp)


def _slice(x, *, start_indices, limit_indices, strides):
    steps = strides or (1,) * x.ndim
    return x[tuple(map(slice, start_indices, limit_indices, steps))]


def _start(start, limit: int) -> int:
    """An integer start index clamped into [0, limit] as XLA clamps it (a huge unsigned start
    stays huge, and clamps to `limit`)."""
    return min(max(int(start), 0), limit)


def _dynamic_slice(x, *starts, slice_sizes):
    at = [_start(s, d - n) for s, d, n in zip(starts, x.shape, slice_sizes)]
    return x[tuple([slice(a, a + n) for a, n in zip(at, slice_sizes)])]


def _dynamic_update_slice(x, update, *starts):
    at = [_start(s, d - n) for s, d, n in zip(starts, x.shape, update.shape)]
    out = np.array(x)
    out[tuple([slice(a, a + n) for a, n in zip(at, update.shape)])] = update
    return out


def _gather(x, indices, *, dimension_numbers, slice_sizes, mode, fill_value, **_):
    """XLA's gather (index vector last, as JAX emits it): every batch position's window of
    `slice_sizes` at its clamped start, collapsed dims dropped, offset dims placed."""
    dnums = dimension_numbers
    if dnums.operand_batching_dims:
        raise Refused("gather with batching dims")
    starts = tuple(dnums.start_index_map)
    batch = indices.shape[:-1]
    if _rows_only(x.shape, dnums, slice_sizes) and _within(indices, x.shape, starts):
        out = _rows(x, indices, starts)  # (an embedding's or `x[i]`'s lookup in range: nothing
    else:  # is clamped or filled, whatever the mode)
        out = _clamped_gather(x, indices, dnums, slice_sizes, mode, fill_value)
    ndim = out.ndim
    if tuple(dnums.offset_dims) != tuple(range(len(batch), ndim)):  # (else already in place)
        batch_at = [i for i in range(ndim) if i not in dnums.offset_dims]
        out = np.moveaxis(out, range(ndim), batch_at + list(dnums.offset_dims))
    return out


def _within(indices, shape: tuple, starts: tuple) -> bool:
    """Whether every index of a gather taking single positions lies in its dimension."""
    if not indices.size:
        return False
    if len(starts) == 1:
        return bool(indices.min() >= 0) and bool(indices.max() < shape[starts[0]])
    flat = indices.reshape(-1, len(starts))
    limits = np.array([shape[d] for d in starts])
    return bool((flat.min(axis=0) >= 0).all()) and bool((flat.max(axis=0) < limits).all())


def _rows(x, indices, starts: tuple):
    """Fancy indexing at `indices` (in range) along the dimensions `starts`: batch dimensions
    first, then the others in the operand's order. Along one dimension (an embedding's
    lookup) the rows go to a `host_buffer`, which a result may become without a copy."""
    lead = x if starts == tuple(range(len(starts))) else np.moveaxis(x, starts, range(len(starts)))
    if len(starts) == 1:
        out = _buffer(indices.shape[:-1] + lead.shape[1:], lead.dtype)
        return np.take(lead, indices[..., 0], axis=0, out=out, mode="clip")
    return lead[tuple([indices[..., k] for k in range(len(starts))])]


def _concatenate(*xs, dimension):
    """XLA's concatenate (one dtype), into a `host_buffer` where it is big (see `_rows`)."""
    shape = list(xs[0].shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return np.concatenate(xs, axis=dimension, out=_buffer(tuple(shape), xs[0].dtype))


def _buffer(shape: tuple, dtype: np.dtype):
    """A `host_buffer` for a result of `OWNED_BYTES` or more, else None (numpy allocates)."""
    return host_buffer(shape, dtype) if prod(shape) * dtype.itemsize >= OWNED_BYTES else None


def _clamped_gather(x, indices, dnums, slice_sizes, mode, fill_value):
    """A gather's windows at their clamped starts, those out of range filled in FILL_OR_DROP
    mode, batch dimensions first (`_gather` places them)."""
    fill = mode == GatherScatterMode.FILL_OR_DROP
    if fill:  # JAX's lowering: indices cast to the index type, a window out of range filled
        index_type = np.int64 if max(x.shape, default=0) > _INT32_MAX else np.int32
        indices = indices.astype(index_type)
        upper = np.array([x.shape[d] - slice_sizes[d] for d in dnums.start_index_map])
        inside = ((indices >= 0) & (indices <= upper.astype(index_type))).all(axis=-1)
    batch = indices.shape[:-1]
    if _rows_only(x.shape, dnums, slice_sizes):
        limits = [x.shape[d] - 1 for d in dnums.start_index_map]
        columns = [_clamped(indices[..., k], limit) for k, limit in enumerate(limits)]
        out = _rows(x, np.stack(columns, axis=-1), tuple(dnums.start_index_map))
    else:
        out = _windows(x, indices, dnums, slice_sizes, batch)
    if fill:
        mask = inside.reshape(batch + (1,) * (out.ndim - len(batch)))
        out = np.where(mask, out, np.asarray(fill_value).astype(out.dtype))
    return out


def _rows_only(shape, dnums, slice_sizes) -> bool:
    """Whether a gather takes single positions along the dimensions it indexes (each then
    collapsed) and every other dimension whole: plain fancy indexing."""
    indexed = set(dnums.start_index_map)
    if indexed != set(dnums.collapsed_slice_dims) or len(indexed) != len(dnums.start_index_map):
        return False
    return all(size == (1 if d in indexed else shape[d]) for d, size in enumerate(slice_sizes))


def _windows(x, indices, dnums, slice_sizes, batch):
    """A gather's windows at their clamped starts, batch dimensions first, collapsed
    dimensions dropped, the others in the operand's order."""
    grids = []
    for d, size in enumerate(slice_sizes):
        start = np.zeros(batch, np.intp)
        if d in dnums.start_index_map:
            column = indices[..., dnums.start_index_map.index(d)]
            start = _clamped(column, x.shape[d] - size)
        window = start[..., None] + np.arange(size)
        grids.append(window.reshape(batch + (1,) * d + (size,) + (1,) * (x.ndim - d - 1)))
    return x[tuple(grids)].squeeze(tuple(len(batch) + d for d in dnums.collapsed_slice_dims))


def _broadcast_in_dim(x, *, shape, broadcast_dimensions, **_):
    kept = [1] * len(shape)
    for axis, d in enumerate(broadcast_dimensions):
        kept[d] = x.shape[axis]
    out = x.reshape(kept)
    return out if out.shape == shape else np.broadcast_to(out, shape)


def _squeeze(x, *, dimensions):
    return x.reshape([n for d, n in enumerate(x.shape) if d not in dimensions])


def _reshape(x, *, new_sizes, dimensions=None, **_):
    if dimensions is not None:
        raise Refused("reshape with dimensions")
    return x.reshape(new_sizes)


def _pad(x, padding_value, *, padding_config):
    """XLA's pad: `interior` values between elements, then edges that may be negative (a
    crop)."""
    grown = [d + max(d - 1, 0) * inner for d, (_, _, inner) in zip(x.shape, padding_config)]
    spread = np.full(grown, padding_value, x.dtype)
    spread[tuple(slice(None, None, inner + 1) for _, _, inner in padding_config)] = x
    edges = [(max(lo, 0), max(hi, 0)) for lo, hi, _ in padding_config]
    out = np.pad(spread, edges, constant_values=padding_value)
    crop = [
        slice(max(-lo, 0), n - max(-hi, 0)) for (lo, hi, _), n in zip(padding_config, out.shape)
    ]
    return out[tuple(crop)]


def _iota(*, dtype, shape, dimension, **_):
    line = np.arange(shape[dimension], dtype=dtype)
    return np.broadcast_to(
        line.reshape([-1 if d == dimension else 1 for d in range(len(shape))]), shape
    )


def _select_n(which, *cases):
    if len(cases) == 1:
        return cases[0]
    if which.dtype == np.bool_:
        return np.where(which, cases[1], cases[0])
    return np.choose(which, np.broadcast_arrays(*cases))


def _convertible(source: np.dtype, target: np.dtype) -> bool:
    """Whether numpy casts `source` to `target` as XLA:CPU does: between integer and boolean
    types (wrapping, or `!= 0`), or from one to float32/float64 (rounded to nearest)."""
    return source.kind in "biu" and (target.kind in "biu" or target in (np.float32, np.float64))


def _shift(kind):
    """XLA's shifts: an amount of the bit width or more (or negative) gives 0, or the sign
    for an arithmetic right shift, where numpy's is undefined."""

    def shift(x, amount):
        bits = x.dtype.itemsize * 8
        wide = (amount < 0) | (amount >= bits)
        safe = np.where(wide, 0, amount).astype(x.dtype)
        if kind == "left":
            return np.where(wide, np.zeros_like(x), np.left_shift(x, safe))
        if kind == "arithmetic":
            return np.where(wide, np.where(x < 0, -1, 0).astype(x.dtype), np.right_shift(x, safe))
        unsigned = x.view(np.dtype(f"u{x.dtype.itemsize}"))
        return np.where(wide, 0, np.right_shift(unsigned, safe.view(unsigned.dtype))).view(x.dtype)

    return shift


# Primitives that move data: exact on every dtype.
MOVES: dict[str, Callable[..., Any]] = {
    "slice": _slice,
    "dynamic_slice": _dynamic_slice,
    "dynamic_update_slice": _dynamic_update_slice,
    "gather": _gather,
    "concatenate": _concatenate,
    "reshape": _reshape,
    "broadcast_in_dim": _broadcast_in_dim,
    "transpose": lambda x, *, permutation: np.transpose(x, permutation),
    "squeeze": _squeeze,
    "pad": _pad,
    "rev": lambda x, *, dimensions: np.flip(x, tuple(dimensions)),
    "iota": _iota,
    "split": lambda x, *, sizes, axis: np.split(x, np.cumsum(sizes)[:-1], axis=axis),
    "select_n": _select_n,
    "copy": np.array,
    "convert_element_type": lambda x, *, new_dtype, **_: x.astype(new_dtype),
    "dim_as_value": lambda *, dim: np.asarray(dim, np.int64),  # (a symbolic dimension's int)
}
# Primitives exact on integer and boolean values only (every input and output checked).
INTEGER: dict[str, Callable[..., Any]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "neg": np.negative,
    "abs": np.abs,
    "max": np.maximum,
    "min": np.minimum,
    "clamp": lambda low, x, high: np.minimum(np.maximum(x, low), high),
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
    "not": np.invert,
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "shift_left": _shift("left"),
    "shift_right_arithmetic": _shift("arithmetic"),
    "shift_right_logical": _shift("logical"),
}
BOOLEAN = frozenset("and or xor not eq ne lt le gt ge max min".split())  # also exact on bool


def body(params) -> ClosedJaxpr:
    """The jaxpr a call primitive runs (as a closed jaxpr)."""
    for value in params.values():
        if isinstance(value, ClosedJaxpr):
            return value
        if isinstance(value, Jaxpr):
            return ClosedJaxpr(value, ())
    raise Refused("a call without a body")


def refusal(jaxpr: Jaxpr) -> str | None:
    """Why numpy may not evaluate `jaxpr` exactly (its first primitive or dtype that is not
    exact), or None where it may. Sizes are checked as it runs (`MAX_ELEMENTS`)."""
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        avals: list[Any] = [v.aval for v in (*eqn.invars, *eqn.outvars)]
        if not all(hasattr(a, "dtype") for a in avals):
            return f"{name} of a value that is no array"
        if name in CALLS:
            try:
                why = refusal(body(eqn.params).jaxpr)
            except Refused as failure:
                return str(failure)
            if why is not None:
                return why
        elif name in INTEGER:
            kinds = "biu" if name in BOOLEAN else "iu"
            if not all(a.dtype.kind in kinds for a in avals):
                return f"{name} of {', '.join(a.str_short() for a in avals)}"
            if any(value is not None for value in eqn.params.values()):  # (mul's out_dtype)
                return f"{name} with {eqn.params}"
        elif name not in MOVES:
            return name
        elif name == "convert_element_type" and not _convertible(avals[0].dtype, avals[1].dtype):
            return f"{name} of {avals[0].str_short()} to {avals[1].dtype}"
    return None


def exact(closed: ClosedJaxpr) -> bool:
    """Whether `evaluate` may compute `closed`: no primitive `refusal` names, no weakly typed
    output (a host array has none)."""
    if any(getattr(v.aval, "weak_type", False) for v in closed.jaxpr.outvars):
        return False
    return refusal(closed.jaxpr) is None


class Sizes:
    """The ints of a jaxpr's dimension variables (`names`), and those of the symbolic
    dimensions read so far, by identity: a jaxpr repeats the same few in its shapes and
    parameters, and each reading costs ~10 us."""

    __slots__ = ("names", "known")

    def __init__(self, names: dict[str, int]) -> None:
        self.names = names
        self.known: dict[int, int] = {}

    def of(self, expr) -> int:
        value = self.known.get(id(expr))
        if value is None:
            value = self.known[id(expr)] = dim_value(expr, self.names)
        return value


def concrete(value, sizes: Sizes | None):
    """`value` (a parameter or a shape) with each symbolic dimension replaced by its int at
    `sizes`; `value` itself where there are none (a jaxpr traced at concrete shapes)."""
    if sizes is None:
        return value
    if type(value) is tuple:
        return tuple([concrete(v, sizes) for v in value])
    if is_symbolic_dim(value):
        return sizes.of(value)
    return value


class _Dim(NamedTuple):
    """A parameter's symbolic dimension: the index of its int among a call's (`Program`),
    written out as that local."""

    at: int


class _Step(NamedTuple):
    """One primitive of a `Program`: its rule, the slots it reads and writes, its parameters
    (those holding symbolic dimensions as templates with `_Dim`s, written out with the call's
    ints), and the shapes (a symbolic dimension as ~index) and dtypes its outputs must have."""

    name: str
    rule: Callable[..., Any]
    inputs: tuple
    params: dict
    symbolic: tuple  # ((parameter name, template), ...)
    outputs: tuple
    shapes: tuple
    sized: bool  # whether a shape holds a symbolic dimension (its size is checked per call)
    dtypes: tuple
    multiple: bool


class Program:
    """A jaxpr that is `exact`, compiled for evaluation at many sizes of its dimension
    variables (`names`; none for a jaxpr at concrete shapes) into one Python function
    (`function`): calls inlined, unread steps dropped, every value a local, each symbolic
    dimension of its parameters and shapes read once per call (an `Affine` of the sizes where
    it is one): a walk of the jaxpr would read each of them per primitive (~10 us each), 3x
    the numpy work of a growing sequence's ops."""

    __slots__ = (
        "names",
        "steps",
        "initial",
        "inputs",
        "outputs",
        "dims",
        "_ids",
        "fixed",
        "function",
    )

    def __init__(self, closed: ClosedJaxpr, names: tuple = ()) -> None:
        self.names = names
        self.steps: list[_Step] = []
        self.initial: list = []  # constants and literals in their slots, None elsewhere
        self.dims: list = []  # per symbolic dimension: its Affine, else the expression
        self._ids: dict = {}  # id(expression) -> its index in `dims` (while compiling)
        self.fixed = 0  # the largest element count of a shape without symbolic dimensions
        jaxpr = closed.jaxpr
        slots = self._slots(jaxpr.constvars, [np.asarray(c) for c in closed.consts])
        self.inputs = tuple(self._new_slot(None) for _ in jaxpr.invars)
        slots.update(zip(jaxpr.invars, self.inputs))
        self._inline(jaxpr, slots)
        self.outputs = tuple(self._read(v, slots) for v in jaxpr.outvars)
        self._prune()
        del self._ids
        self.function = self._function()

    def _prune(self) -> None:
        """Drop the steps whose outputs nothing reads (a dimension read left unused)."""
        needed = set(self.outputs)
        kept = []
        for step in reversed(self.steps):
            if not needed.isdisjoint(step.outputs):
                kept.append(step)
                needed.update(step.inputs)
        self.steps = kept[::-1]

    def _new_slot(self, value) -> int:
        self.initial.append(value)
        return len(self.initial) - 1

    def _slots(self, variables, values) -> dict:
        return {var: self._new_slot(value) for var, value in zip(variables, values)}

    def _read(self, var, slots: dict) -> int:
        """The slot of a jaxpr variable, or of a new constant for a literal."""
        if isinstance(var, Literal):
            aval: Any = var.aval
            return self._new_slot(np.asarray(var.val, aval.dtype))
        return slots[var]

    def _dim(self, expr) -> int:
        index = self._ids.get(id(expr))
        if index is None:
            index = self._ids[id(expr)] = len(self.dims)
            self.dims.append(affine(expr, self.names) or expr)
        return index

    def _template(self, value):
        """`value` with each symbolic dimension a `_Dim`; `value` itself where it has none."""
        if type(value) is tuple:
            parts = tuple([self._template(v) for v in value])
            return value if all(p is v for p, v in zip(parts, value)) else parts
        return _Dim(self._dim(value)) if is_symbolic_dim(value) else value

    def _inline(self, jaxpr: Jaxpr, slots: dict) -> None:
        for eqn in jaxpr.eqns:
            name = eqn.primitive.name
            inputs = tuple(self._read(v, slots) for v in eqn.invars)
            if name in CALLS:
                inner = body(eqn.params)
                scope = self._slots(inner.jaxpr.constvars, [np.asarray(c) for c in inner.consts])
                scope.update(zip(inner.jaxpr.invars, inputs))
                self._inline(inner.jaxpr, scope)
                slots.update(zip(eqn.outvars, (self._read(v, scope) for v in inner.jaxpr.outvars)))
                continue
            params, symbolic = {}, []
            if name in MOVES:
                for key, value in eqn.params.items():
                    template = self._template(value)
                    if template is value:
                        params[key] = value
                    else:
                        symbolic.append((key, template))
            elif name not in INTEGER:
                raise Refused(name)
            shapes = []
            outvars: list[Any] = eqn.outvars
            for var in outvars:
                shape = tuple(d if type(d) is int else ~self._dim(d) for d in var.aval.shape)
                if min(shape, default=0) >= 0:
                    self.fixed = max(self.fixed, prod(shape))
                shapes.append(shape)
            outputs = tuple(self._new_slot(None) for _ in eqn.outvars)
            slots.update(zip(eqn.outvars, outputs))
            rule = MOVES[name] if name in MOVES else INTEGER[name]
            self.steps.append(
                _Step(
                    name,
                    rule,
                    inputs,
                    params,
                    tuple(symbolic),
                    outputs,
                    tuple(shapes),
                    any(min(shape, default=0) < 0 for shape in shapes),
                    tuple(v.aval.dtype for v in outvars),
                    eqn.primitive.multiple_results,
                )
            )

    def _ints(self, sizes: tuple) -> list:
        """Each symbolic dimension's int where the variables take `sizes`."""
        ints = []
        for dim in self.dims:
            if type(dim) is Affine:
                value = dim.constant
                for index, coefficient in dim.terms:
                    value += coefficient * sizes[index]
            else:
                value = dim_value(dim, dict(zip(self.names, sizes)))
            ints.append(value)
        return ints

    def run(self, args, sizes: tuple = ()) -> list | None:
        """The outputs on the concrete host arrays `args` (`sizes`: the ints of the dimension
        variables), as C-contiguous numpy arrays; None where a value would pass
        `MAX_ELEMENTS` or a rule refuses its parameters or gives another shape or dtype than
        the jaxpr's."""
        if self.fixed > MAX_ELEMENTS:
            return None
        ints = self._ints(sizes) if self.dims else ()
        try:
            with np.errstate(all="ignore"):  # integer wrap-around is the answer, not a warning
                outs = self.function(ints, MAX_ELEMENTS, *args)
        except Refused:
            return None
        return [np.array(out, order="C", copy=None) for out in outs]

    def owned(self, outs: list, args) -> list:
        """Per output of `run` on `args`, whether it is a `host_buffer` of `OWNED_BYTES` or
        more whose memory no other array shares (no input, constant or other output): the
        device buffer may then be that memory itself (`host_to_device(..., owned=True)`)."""
        flags = []
        others: list = []  # (read once an output may be owned)
        for k, out in enumerate(outs):  # (a smaller copy costs less than these checks)
            alone = out.nbytes >= OWNED_BYTES and out.flags.c_contiguous
            alone = alone and out.ctypes.data % 64 == 0  # (XLA:CPU's alignment)
            if alone and not others:
                others = [np.asarray(a) for a in args]
                others.extend(value for value in self.initial if value is not None)
            for other in others if alone else ():
                alone = alone and not np.may_share_memory(out, other)
            for j, other in enumerate(outs if alone else ()):
                alone = alone and (j == k or not np.may_share_memory(out, other))
            flags.append(alone)
        return flags

    def _function(self):
        """The steps as one Python function of (the dimensions' ints, the size bound, the
        inputs): each value a local, each parameter and shape written out, each output's
        shape and dtype checked. Interpreting the steps from a list cost twice the numpy
        work of a growing sequence's ops."""
        space: dict = {"asarray": np.asarray, "Refused": Refused}
        for slot, value in enumerate(self.initial):
            if value is not None:
                space[f"v{slot}"] = value  # (constants and literals: the function's globals)

        def named(value) -> str:
            space[f"k{len(space)}"] = value
            return f"k{len(space) - 1}"

        inputs = [f"v{slot}" for slot in self.inputs]
        lines = [f"def program(ints, limit, {', '.join(inputs)}):"]
        if self.dims:
            lines.append(f"    {', '.join(f'i{k}' for k in range(len(self.dims)))}, = ints")
        lines.extend(f"    {v} = asarray({v})" for v in inputs)
        for step in self.steps:
            refused = f"raise Refused({named(step.name)})"
            arguments = [f"v{slot}" for slot in step.inputs]
            if step.params:
                arguments.append(f"**{named(step.params)}")
            for key, template in step.symbolic:
                if not key.isidentifier():
                    raise Refused(f"{step.name} with a parameter {key!r}")
                arguments.append(f"{key}={_source(template, named)}")
            if step.sized:
                for shape in step.shapes:
                    size = " * ".join(str(d) if d >= 0 else f"i{~d}" for d in shape) or "1"
                    lines.append(f"    if {size} > limit: {refused}")
            call = f"{named(step.rule)}({', '.join(arguments)})"
            outputs = [f"v{slot}" for slot in step.outputs]
            if step.multiple:
                lines.append(f"    {', '.join(outputs)}, = {call}")
                lines.extend(f"    {v} = asarray({v})" for v in outputs)
            else:
                lines.append(f"    {outputs[0]} = asarray({call})")
            for v, shape, dtype in zip(outputs, step.shapes, step.dtypes):
                checked = f"{v}.shape != {_shape_source(shape)} or {v}.dtype != {named(dtype)}"
                lines.append(f"    if {checked}: {refused}")
        lines.append(f"    return [{', '.join(f'v{slot}' for slot in self.outputs)}]")
        exec("\n".join(lines), space)  # (source written here, from the jaxpr alone)
        return space["program"]


def _source(template, named) -> str:
    """Python source for a parameter's or a shape's template: a symbolic dimension (a `_Dim`,
    or ~index in a shape) as its local int, another value as a name in the globals."""
    if type(template) is tuple:
        return f"({''.join(f'{_source(t, named)}, ' for t in template)})"
    if type(template) is _Dim:
        return f"i{template.at}"
    if type(template) is int:
        return str(template)
    return named(template)


def _shape_source(shape: tuple) -> str:
    """Python source for an output's shape (a symbolic dimension as ~index: its local int)."""
    return f"({''.join(f'{d}, ' if d >= 0 else f'i{~d}, ' for d in shape)})"


def evaluate(closed: ClosedJaxpr, args) -> list | None:
    """The outputs of `closed`, a jaxpr that is `exact` at concrete shapes, on the concrete
    host arrays `args`, computed with numpy (`Program.run`)."""
    try:
        program = Program(closed)
    except Refused:
        return None
    return program.run(args)
