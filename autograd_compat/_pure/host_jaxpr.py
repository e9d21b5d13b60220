"""A jaxpr evaluated with numpy on the host, where numpy gives XLA:CPU's bits exactly
(`host_rules` says where, and holds the rule of each primitive).

An `exact` jaxpr becomes a `Program`: one Python function written out from it, run at the
sizes of its dimension variables, so an op met at many shapes (a sequence grown a token at a
time) is traced and written out once per pattern of shapes, and nothing compiles.
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import Any, NamedTuple

import numpy as np
from jax.export import is_symbolic_dim

from .host_rules import INTEGER, MOVES, OWNED_BYTES, Refused, body
from .jax_internals import Affine, ClosedJaxpr, Jaxpr, Literal, affine, dim_value
from .program_options import CALLS

MAX_ELEMENTS = 1 << 20  # a value bigger than this is left to XLA (its copy costs ~1 ms)


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
