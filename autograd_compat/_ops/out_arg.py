"""PyTorch's `out=` argument, one mechanism for every function that takes it.

`@takes_out` wraps a front end: without `out` it calls the front end at once; with `out` it
computes the result out of place and commits it into `out` in place through
`_tape/args.commit_inplace` (version counter, views and their base), then returns `out`
itself (a tuple `out=(a, b)` for functions returning several tensors, returned as
PyTorch's `torch.return_types.<name>_out` named tuple of those tensors). PyTorch's rules:
an `out` of another shape is resized (with PyTorch's UserWarning when it had elements), the
result must be castable to `out`'s dtype (or of `out`'s dtype exactly, for the functions
named in `EXACT_DTYPE` and `FOUND_DTYPE`), and `out=` refuses autograd while grad mode is
on, the result is differentiable and an argument or `out` requires grad (except where
PyTorch composes the function of other ops: `COMPOSED`).
"""

from __future__ import annotations

import functools
import warnings

from .._pure import dtypes as _dtypes
from .._pure.dtype_rules import cpp_name
from .._state import modes as _grad_mode
from .._state.tensor import Tensor
from .._tape.args import check_inplace, commit_inplace

__all__ = ["takes_out", "without_out"]

CAST = "cast"  # the result is cast to out's dtype where PyTorch can cast it
EXACT = "exact"  # "Expected out tensor to have dtype float, but got double instead"
FOUND = "found"  # "Found dtype Double but expected Float"

# Front ends (by `__name__`) whose `out` must have the result's dtype, as PyTorch's kernels
# check it (some with texts of their own: these raise the common one).
EXACT_DTYPE = frozenset(
    """addbmm addmm amax amin aminmax baddbmm bmm complex cross cummax cummin diag dot
    float_power frexp gather hash_tensor heaviside histc index_select inner inv_ex inverse kthvalue
    linalg_cholesky linalg_cholesky_ex linalg_cross linalg_det linalg_eigh linalg_eigvalsh
    linalg_inv linalg_qr linalg_slogdet linalg_solve linalg_svd linalg_svdvals logcumsumexp
    lu_factor lu_factor_ex masked_select matmul matrix_norm median mm mode msort multi_dot mv
    nan_to_num nanmedian nanquantile nonzero_static norm polar qr quantile solve_ex sort svd
    tensordot topk triangular_solve tril triu vdot vecdot vector_norm where""".split()
)
# Front ends whose kernels check `out`'s dtype with "Found dtype ... but expected ...".
FOUND_DTYPE = frozenset(
    "abs ceil conj_physical floor frac ifft ihfft lerp neg round sgn sign trunc".split()
)
# Front ends PyTorch composes of other ops: under autograd `out` takes the result's graph.
COMPOSED = frozenset(
    """conj_physical cond diag ihfft ifft inner lu matrix_norm nanquantile quantile special_ndtr
    tensordot tensorsolve""".split()
)
# Factories: without `dtype=` they make `out`'s dtype; a `dtype=` must be `out`'s.
FACTORIES = frozenset(
    "arange empty eye full linspace logspace ones rand randint randn randperm zeros".split()
)


def takes_out(fn):
    """Decorate a front end so that it takes PyTorch's keyword `out=` (see the module)."""
    name = fn.__name__.replace(".", "_")  # PyTorch's op names: special_entr for special.entr
    dtype = EXACT if name in EXACT_DTYPE else FOUND if name in FOUND_DTYPE else CAST

    code = fn.__code__
    positional = code.co_varnames[: code.co_argcount]
    if "out" in positional:  # PyTorch's `tensordot(a, b, dims, out)`: out may come by position
        return _positional_out(fn, name, dtype, positional.index("out"))

    @functools.wraps(fn)
    def with_out(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        return _into(out, name, dtype, fn, args, kwargs)

    with_out._without_out = fn
    return with_out


def _positional_out(fn, name: str, dtype: str, position: int):
    """`takes_out`'s wrapper of a front end whose `out` parameter is not keyword-only."""

    @functools.wraps(fn)
    def with_out(*args, **kwargs):
        out = args[position] if len(args) > position else kwargs.pop("out", None)
        if out is None:
            return fn(*args, **kwargs)
        return _into(out, name, dtype, fn, args[:position], kwargs)

    with_out._without_out = fn  # type: ignore[attr-defined]
    return with_out


def without_out(fn):
    """The front end under `@takes_out`'s wrapper (Tensor methods take no `out=`)."""
    return getattr(fn, "_without_out", fn)


def _into(out, name: str, rule: str, fn, args: tuple, kwargs: dict):
    """Run `fn` out of place and commit its result(s) into `out`; return `out`."""
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    for o in outs:
        if not isinstance(o, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(o).__name__}")
    if name in FACTORIES:
        kwargs = {**kwargs, "dtype": _factory_dtype(kwargs.get("dtype"), outs[0])}
    result = fn(*args, **kwargs)
    results = tuple(result) if isinstance(result, tuple) else (result,)
    if isinstance(out, Tensor) == isinstance(result, tuple) or len(outs) != len(results):
        raise TypeError(
            f"{name}(): argument 'out' must be "
            + (f"tuple of {len(results)} Tensors" if isinstance(result, tuple) else "Tensor")
            + f", not {type(out).__name__}"
            + (f" of {len(outs)}" if isinstance(out, (tuple, list)) else "")
        )
    if _grad_mode.is_grad_enabled():
        _check_autograd(name, outs, results)
    for o, r in zip(outs, results, strict=True):
        _commit(o, r, rule, name in FACTORIES)
    if not isinstance(result, tuple):
        return out
    return _out_type(type(result))(outs) if hasattr(result, "_fields") else outs


@functools.cache
def _out_type(cls: type) -> type:
    """PyTorch's `torch.return_types.<name>_out` for a `<name>` named tuple type."""
    name = f"{cls._name}_out"  # type: ignore[attr-defined]
    out_cls = type(name, (cls,), {"__slots__": (), "_name": name})
    out_cls.__module__, out_cls.__qualname__ = "torch.return_types", name
    return out_cls


def _check_autograd(name: str, outs: tuple, results: tuple) -> None:
    """PyTorch's refusal of `out=` where the result is differentiable and an argument or `out`
    requires grad; functions PyTorch composes of other ops write, recording the copy."""
    if name in COMPOSED:
        for o in outs:
            check_inplace(o)
        return
    for o, r in zip(outs, results, strict=True):
        if r.requires_grad or (o.requires_grad and (r.is_floating_point() or r.is_complex())):
            raise RuntimeError(
                f"{name}(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad."
            )


def _factory_dtype(dtype, out: Tensor):
    """A factory's dtype under `out=`: `out`'s, which a given `dtype` must be."""
    if dtype is not None and dtype != out.dtype:
        raise RuntimeError(
            f"dtype {_dtypes.scalar_type_name(_dtypes.as_dtype(dtype))} does not match dtype "
            f"of out parameter ({_dtypes.scalar_type_name(out.dtype)})"
        )
    return out.dtype


def _commit(out: Tensor, result: Tensor, rule: str, factory: bool) -> None:
    """Resize `out` to the result's shape (warning when it had elements, unless a factory
    made the result) and write it in."""
    if rule is not CAST and result.dtype is not out.dtype:
        if rule is EXACT:
            raise RuntimeError(
                f"Expected out tensor to have dtype {cpp_name(result.dtype.jax)}, but got "
                f"{cpp_name(out.dtype.jax)} instead"
            )
        raise RuntimeError(
            f"Found dtype {_dtypes.scalar_type_name(out.dtype)} but expected "
            f"{_dtypes.scalar_type_name(result.dtype)}"
        )
    shape = tuple(result.shape)
    if tuple(out.shape) != shape:
        if out.numel() and not factory:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out.shape)}, which does not match the required output shape "
                f"{list(shape)}. This behavior is deprecated, and in a future PyTorch release "
                "outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                "with t.resize_(0).",
                UserWarning,
                stacklevel=4,
            )
        out.resize_(shape)
    commit_inplace(out, result)
