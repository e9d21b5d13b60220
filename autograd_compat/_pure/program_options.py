"""XLA:CPU compile options chosen per eager program from what the program computes.

XLA:CPU's fusion emitters run a binary elementwise op on a (8, 64, 256) float32 array in
~47 us where its legacy loop emitters take ~25 us (tanh 49 -> 36 us), while a softmax runs
slower with the legacy ones (56 -> 70 us). So an op's program that is elementwise only (every
primitive of its jaxpr in `ELEMENTWISE`, no reduction, product, convolution, gather, scatter,
sort or loop) with an output of `LARGE` elements or more compiles with `LEGACY_EMITTERS`;
every other program keeps XLA's defaults. `ELEMENTWISE` holds only primitives whose results
are bit-identical under both emitters at float32 and float64 (and the integer and boolean
types): tan, atan, cbrt, erfc and erf_inv round differently in the last bit, and a program
holding a 16-bit float or a complex value keeps the defaults (log, rsqrt and log1p on float16
round differently). `tests/runtime/test_program_options.py` checks both.

`FirstCall(fn, keep)` is what `Op.compiled` hands out: its first call outside every trace
traces `fn` on the arguments (the trace `jax.jit` reuses when it compiles), makes the jitted
function with the options that program gets, gives it to `keep` (the op's cache: later calls
go straight to it) and calls it. The choice holds for every shape of that (op, static
arguments): an op's primitives do not change with its input shapes.
"""

from __future__ import annotations

from . import executables
from .jax_internals import ClosedJaxpr, Jaxpr, trace_ctx

LEGACY_EMITTERS = {"xla_cpu_use_fusion_emitters": False}
LARGE = 16384  # elements of an output from which the emitters matter (1 us at 16384 float32)
# Primitives computed value by value (and the shape-only ones that broadcast or reshape).
ELEMENTWISE = frozenset(
    (
        "abs acos acosh add and asin asinh atan2 atanh broadcast_in_dim ceil clamp "
        "convert_element_type copy copy_p cos cosh digamma div eq erf exp exp2 expand_dims "
        "expm1 floor ge gt integer_pow is_finite le lgamma log log1p logistic lt max min mul "
        "ne neg nextafter not or pow reduce_precision rem reshape round rsqrt select_n "
        "shift_left shift_right_arithmetic shift_right_logical sign sin sinh sqrt square "
        "squeeze sub tanh xor"
    ).split()
)
# Calls whose body is another jaxpr, inspected in turn.
CALLS = frozenset(("pjit", "jit", "closed_call", "custom_jvp_call", "custom_vjp_call"))


def _plain_dtype(aval) -> bool:
    """Whether `aval` has a type both emitters round alike: no 16-bit float, no complex."""
    dtype = getattr(aval, "dtype", None)
    if dtype is None:
        return False
    return dtype.kind in "biu" or (dtype.kind == "f" and dtype.itemsize >= 4)


def elementwise_only(jaxpr: Jaxpr) -> bool:
    """Whether every primitive of `jaxpr` (and of the calls in it) is in `ELEMENTWISE` and
    every value it holds has a plain dtype."""
    for var in (*jaxpr.invars, *jaxpr.outvars):
        if hasattr(var, "aval") and not _plain_dtype(var.aval):
            return False
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name in CALLS:
            bodies = [p for p in eqn.params.values() if isinstance(p, (ClosedJaxpr, Jaxpr))]
            for body in bodies:
                if not elementwise_only(body.jaxpr if isinstance(body, ClosedJaxpr) else body):
                    return False
        elif name not in ELEMENTWISE:
            return False
        for var in eqn.outvars:
            if not _plain_dtype(var.aval):
                return False
    return True


def options_for(jaxpr: Jaxpr) -> dict:
    """The XLA compile options of the program `jaxpr`: the legacy emitters for an elementwise
    program with an output of `LARGE` elements or more (below, the dispatch outweighs the
    loop, and `Chosen`'s call would cost more than the emitters save)."""
    sizes = [getattr(var.aval, "size", 0) for var in jaxpr.outvars]
    if max(sizes, default=0) >= LARGE and elementwise_only(jaxpr):
        return LEGACY_EMITTERS
    return {}


class Chosen:
    """A program compiled with its own options, and the plain jitted function for calls
    inside a trace (JAX refuses compiler options on a nested `jax.jit`)."""

    __slots__ = ("top", "plain")

    def __init__(self, top, plain) -> None:
        self.top = top
        self.plain = plain

    def __call__(self, *args):
        if trace_ctx.is_top_level():
            return self.top(*args)
        return self.plain(*args)


class FirstCall:
    """A jitted function not chosen yet: its first call outside every trace chooses its
    options (module doc); calls inside a trace run the plain jitted function."""

    __slots__ = ("fn", "keep", "plain")

    def __init__(self, fn, keep) -> None:
        self.fn = fn
        self.keep = keep
        self.plain = executables.jit(fn)

    def __call__(self, *args):
        plain = self.plain
        if not trace_ctx.is_top_level():
            return plain(*args)
        options = options_for(plain.trace(*args).jaxpr.jaxpr)
        chosen = (
            Chosen(executables.jit(self.fn, compiler_options=options), plain) if options else plain
        )
        self.keep(chosen)
        return chosen(*args)
