"""Linear algebra: matmul (with PyTorch's node names per case), mm, bmm, mv, dot,
outer/ger, inner, kron, einsum, tensordot, addmm/addmv/addr/baddbmm/addbmm, trace,
diag/diag_embed/diagflat, tril/triu, matrix_power, cross, cov/corrcoef, the `@` operator, and
the pure functions behind torch.linalg (inv, det, solve), which lives in
autograd_compat/linalg.py. Matrix norms are reductions (reduce.py).

Ops that PyTorch composes from other ops (inner, addr...) are composed here too, so their
nodes are PyTorch's; the others are one pure JAX function each.
"""

from __future__ import annotations

import builtins
import string
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._pure import dtypes as _dtypes
from .._pure.op import constant, register
from .._pure.shapes import broadcast_shapes, normalize_dim
from .._state.tensor import Tensor
from .._tape.args import check_same_dtype, is_tracer, scalar_type_name, tensor_arg
from .._tape.record import apply
from . import factories as _factories
from .elementwise import mul
from .out_arg import takes_out
from .shape import diagonal, expand, reshape, unsqueeze

__all__ = [
    "addbmm",
    "addmm",
    "addmv",
    "addr",
    "baddbmm",
    "bmm",
    "corrcoef",
    "cov",
    "cross",
    "det",
    "diag",
    "diag_embed",
    "diagflat",
    "dot",
    "einsum",
    "ger",
    "inner",
    "inverse",
    "kron",
    "matmul",
    "matrix_power",
    "mm",
    "mv",
    "outer",
    "tensordot",
    "trace",
    "tril",
    "triu",
]


def _matmul(a, b):
    return jnp.matmul(a, b, precision="highest")


# PyTorch names the node after the kernel that matmul dispatches to for these shapes.
_MM = register("mm", _matmul, node="MmBackward0", saves="others")
_DOT = register("dot", _matmul, node="DotBackward0", saves="others")
_MV = register("mv", _matmul, node="MvBackward0", saves="others")
_VM = register("matmul.vector_matrix", _matmul, node="SqueezeBackward4", saves="others")
_BATCHED = register("matmul.batched", _matmul, node="UnsafeViewBackward0", saves="others")


def _shape_text(shape) -> str:
    return "x".join(str(s) for s in shape)


@takes_out
def matmul(input, other):
    """Matrix product with NumPy's rules for 1-D and batched operands."""
    tensor_arg(input, "matmul")
    tensor_arg(other, "matmul", "other", 2)
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {input.ndim}D "
            f"and {other.ndim}D"
        )
    a, b = tuple(input.shape), tuple(other.shape)
    if input.ndim == 1 and other.ndim == 1:
        if a != b:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{a[0]}] and src [{b[0]}] to have "
                f"the same number of elements, but got {a[0]} and {b[0]} elements respectively"
            )
        return apply(_DOT, input, other)
    if other.ndim == 1:
        if a[-1] != b[0]:
            raise RuntimeError(
                f"size mismatch, got input ({a[0]}), mat ({_shape_text(a)}), vec ({b[0]})"
            )
        return apply(_MV if input.ndim == 2 else _BATCHED, input, other)
    if input.ndim == 1:
        if a[0] != b[-2]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied (1x{a[0]} and {_shape_text(b)})"
            )
        return apply(_VM if other.ndim == 2 else _BATCHED, input, other)
    if a[-1] != b[-2]:
        if input.ndim == 2 and other.ndim == 2:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({_shape_text(a)} and {_shape_text(b)})"
            )
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{_batch(a)}, {a[-1]}] but got: [{_batch(b)}, {b[-2]}]."
        )
    try:
        jnp.broadcast_shapes(a[:-2], b[:-2])
    except ValueError:
        broadcast_shapes(a[:-2], b[:-2])
    op = _MM if input.ndim == 2 and other.ndim == 2 else _BATCHED
    return apply(op, input, other)


def _batch(shape) -> int:
    size = 1
    for s in shape[:-2]:
        size *= s
    return size


def _check_product_operands(fname: str, input, mat2, ndim: int, names: tuple, rank: str) -> None:
    """mm's and bmm's checks: both Tensors, each of rank `ndim` (else `{name} must be {rank}`)."""
    tensor_arg(input, fname)
    tensor_arg(mat2, fname, "mat2", 2)
    for name, operand in zip(names, (input, mat2)):
        if operand.ndim != ndim:
            raise RuntimeError(f"{name} must be {rank}")


@takes_out
def mm(input, mat2):
    """Product of two matrices (2-D only)."""
    _check_product_operands("mm", input, mat2, 2, ("self", "mat2"), "a matrix")
    return matmul(input, mat2)


_BMM = register("bmm", _matmul, node="BmmBackward0", saves="others")


@takes_out
def bmm(input, mat2):
    """Batched matrix product of two 3-D tensors with the same batch size (no broadcasting)."""
    _check_product_operands("bmm", input, mat2, 3, ("batch1", "batch2"), "a 3D tensor")
    a, b = tuple(input.shape), tuple(mat2.shape)
    if (b[0], b[1]) != (a[0], a[2]):
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{a[0]}, {a[2]}] but got: [{b[0]}, {b[1]}]."
        )
    return apply(_BMM, input, mat2)


@takes_out
def mv(input, vec):
    """Matrix-vector product (a 2-D and a 1-D tensor)."""
    tensor_arg(input, "mv")
    tensor_arg(vec, "mv", "vec", 2)
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({input.shape[0]}), mat "
            f"({_shape_text(input.shape)}), vec ({vec.shape[0]})"
        )
    return apply(_MV, input, vec)


def check_vector_pair(input, other, fname: str, other_name: str) -> None:
    """PyTorch's checks of dot's and vdot's operands: Tensors, 1-D, one dtype, one size."""
    tensor_arg(input, fname)
    tensor_arg(other, fname, other_name, 2)
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    n, m = input.shape[0], other.shape[0]
    if n != m:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
            f"number of elements, but got {n} and {m} elements respectively"
        )


@takes_out
def dot(input, tensor):
    """Inner product of two 1-D tensors of the same dtype and size."""
    check_vector_pair(input, tensor, "dot", "tensor")
    return apply(_DOT, input, tensor)


def _outer(a, b, *, dtype):
    return a.astype(dtype)[:, None] * b.astype(dtype)[None, :]


_OUTER = register("outer", _outer, node="MulBackward0", saves="others")


@takes_out
def outer(input, vec2):
    """Outer product of two 1-D tensors (a MulBackward0 node, as in PyTorch)."""
    tensor_arg(input, "outer")
    tensor_arg(vec2, "outer", "vec2", 2)
    if input.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.ndim}-D")
    if vec2.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    dtype = _dtypes.result_type(input, vec2)
    return apply(_OUTER, input, vec2, dtype=dtype.jax)


ger = outer


# ----------------------------------------------------------------------------- einsum
def _einsum(*operands, equation):
    return jnp.einsum(equation, *operands, precision="highest")


_EINSUM = {  # by the node name of the op PyTorch's einsum ends with
    name: register(
        f"einsum.{variant}", _einsum, node=name, saves="others" if variant != "sum" else "none"
    )
    for variant, name in (
        ("view", "ViewBackward0"),
        ("mul", "MulBackward0"),
        ("sum", "SumBackward1"),
        ("permute", "PermuteBackward0"),
    )
}


_EINSUM["DiagonalBackward0"] = register(
    "einsum.diagonal", _einsum, node="DiagonalBackward0", saves="none"
)


_LETTERS = frozenset(string.ascii_letters)


def _parse_einsum(equation: str, operands) -> tuple[str, str]:
    """Check `equation` against the operands as PyTorch does; returns (normalized, node name)."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    position = 0
    sizes: dict = {}
    for index, (term, operand) in enumerate(zip(terms, operands)):
        ellipsis = "..." in term
        letters = term.replace("...", "")
        for offset, ch in enumerate(term):
            if ch != "." and ch not in _LETTERS:
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {position + offset} in the "
                    "equation string, subscripts must be in [a-zA-Z]"
                )
        position += len(term) + 1
        if (not ellipsis and len(letters) != operand.ndim) or (
            ellipsis and len(letters) > operand.ndim
        ):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(letters)}) does not "
                f"match the number of dimensions ({operand.ndim}) for operand {index}"
                + (" and no ellipsis was given" if not ellipsis else "")
            )
        head, _, tail = term.partition("...")
        dims = list(range(len(head))) + list(range(operand.ndim - len(tail), operand.ndim))
        for ch, dim in zip(head + tail, dims):
            size = operand.shape[dim]
            seen = sizes.get(ch)
            if seen is not None and seen != size and 1 not in (seen, size):
                raise RuntimeError(
                    f"einsum(): subscript {ch} has size {size} for operand {index} which does "
                    f"not broadcast with previously seen size {seen}"
                )
            if seen is None or seen == 1:
                sizes[ch] = size
    if arrow:
        out_letters = rhs.replace("...", "")
        for ch in out_letters:
            if out_letters.count(ch) > 1:
                raise RuntimeError(
                    f"einsum(): output subscript {ch} appears more than once in the output"
                )
            if ch not in sizes:
                raise RuntimeError(
                    f"einsum(): output subscript {ch} does not appear in the equation for any "
                    "input operand"
                )
    else:
        counts = {ch: lhs.count(ch) for ch in sizes}
        out_letters = "".join(sorted(ch for ch, c in counts.items() if c == 1))
    summed = any(ch not in out_letters for ch in sizes)
    if len(operands) > 1:
        name = "ViewBackward0" if summed else "MulBackward0"
    else:
        term = terms[0].replace("...", "")
        if summed:
            name = "SumBackward1"
        elif len(set(term)) != len(term):
            name = "DiagonalBackward0"
        else:
            name = "PermuteBackward0"
    return equation, name


def einsum(equation, *operands):
    """Einstein summation, as `torch.einsum` (operands as arguments or as one list).

    The node name follows PyTorch's usual decomposition: ViewBackward0 for a contraction,
    MulBackward0 for a pure product, SumBackward1 / PermuteBackward0 for one operand.
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for i, operand in enumerate(operands):
        tensor_arg(operand, "einsum", "operands", i + 2)
    equation, name = _parse_einsum(equation, operands)
    return apply(_EINSUM[name], *operands, equation=equation)


# ----------------------------------------------------------------------------- tensordot
def _tensordot(a, b, *, axes):
    """A contracted dim of size 1 against a longer one sums the longer one, as in PyTorch."""
    for da, db in zip(*axes):
        if a.shape[da] == 1 and b.shape[db] != 1:
            b = jnp.sum(b, axis=db, keepdims=True)
        elif b.shape[db] == 1 and a.shape[da] != 1:
            a = jnp.sum(a, axis=da, keepdims=True)
    return jnp.tensordot(a, b, axes=axes, precision="highest")


_TENSORDOT = register("tensordot", _tensordot, node="ViewBackward0", saves="others")


@takes_out
def tensordot(a, b, dims=2, out=None):
    """Contract `dims` (an int: the last dims of `a` with the first of `b`; or two lists)."""
    tensor_arg(a, "tensordot", "a")
    tensor_arg(b, "tensordot", "b", 2)
    if isinstance(dims, Tensor):
        dims = dims.item() if dims.ndim == 0 else dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.ndim or dims > b.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a = list(range(a.ndim - dims, a.ndim))
        dims_b = list(range(dims))
    else:
        dims_a, dims_b = dims
        dims_a = [dims_a] if isinstance(dims_a, int) else list(dims_a)
        dims_b = [dims_b] if isinstance(dims_b, int) else list(dims_b)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    dims_a = [normalize_dim(d, a.ndim) for d in dims_a]
    dims_b = [normalize_dim(d, b.ndim) for d in dims_b]
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db] and 1 not in (a.shape[da], b.shape[db]):
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[da]} in dim "
                f"{da} and second has size {b.shape[db]} in dim {db}"
            )
    check_same_dtype(a, b, "both inputs should have same dtype", autocast=True)
    return apply(_TENSORDOT, a, b, axes=(tuple(dims_a), tuple(dims_b)))


# ----------------------------------------------------------------------------- addmm
def _addmm(input, mat1, mat2, beta, alpha, *, beta_zero):
    product = _matmul(mat1, mat2)
    product = alpha.astype(product.dtype) * product  # Scalars never promote (autocast)
    if beta_zero:  # PyTorch ignores `input` entirely (NaN and inf included) when beta == 0
        return jnp.broadcast_to(product, jnp.broadcast_shapes(input.shape, product.shape))
    return beta.astype(input.dtype) * input + product


_ADDMM = register("addmm", _addmm, node="AddmmBackward0")


def _scalar_constant(value, d: _dtypes.dtype):
    if isinstance(value, Tensor):
        value = value.item()
    if not (d.is_floating_point or d.is_complex):
        value = int(value)
    return constant(value, d.jax)


@takes_out
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """`beta * input + alpha * (mat1 @ mat2)`; `input` broadcasts to the product's shape."""
    tensor_arg(input, "addmm")
    tensor_arg(mat1, "addmm", "mat1", 2)
    tensor_arg(mat2, "addmm", "mat2", 3)
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({_shape_text(mat1.shape)} and "
            f"{_shape_text(mat2.shape)})"
        )
    target = (mat1.shape[0], mat2.shape[1])
    _check_expand(tuple(input.shape), target)
    d = input.dtype
    return apply(
        _ADDMM,
        input,
        mat1,
        mat2,
        _scalar_constant(beta, d),
        _scalar_constant(alpha, d),
        beta_zero=beta == 0,
    )


def _check_expand(shape: tuple, target: tuple) -> None:
    """PyTorch's `expand` check: `shape` must broadcast to exactly `target`."""
    ok = len(shape) <= len(target)
    padded = (1,) * (len(target) - len(shape)) + shape
    mismatch = None
    for dim, (s, t) in enumerate(zip(padded, target)):
        if s != t and s != 1:
            mismatch = dim
            break
    if not ok or mismatch is not None:
        dim = mismatch if mismatch is not None else 0
        raise RuntimeError(
            f"The expanded size of the tensor ({target[dim]}) must match the existing size "
            f"({padded[dim]}) at non-singleton dimension {dim}.  Target sizes: "
            f"{list(target)}.  Tensor sizes: {list(shape)}"
        )


# ----------------------------------------------------------------------------- trace, diag...
def _trace(x, *, dtype):
    """`dtype` None: the input's (so a cast autocast put in front of it carries through)."""
    total = jnp.trace(x)
    return total if dtype is None else total.astype(dtype)


_TRACE = register("trace", _trace, node="TraceBackward0", saves="none")


def trace(input):
    """Sum of the main diagonal of a matrix; integers give int64."""
    tensor_arg(input, "trace")
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    d = input.dtype
    if d is _dtypes.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    out = None if (d.is_floating_point or d.is_complex) else _dtypes.int64.jax
    return apply(_TRACE, input, dtype=out)


_DIAG_EMBED = register(
    "diag", lambda v, *, k: jnp.diag(v, k), node="DiagEmbedBackward0", saves="none"
)
_DIAGONAL = register(
    "diag.diagonal",
    lambda x, *, k: jnp.diagonal(x, offset=k),
    node="DiagonalBackward0_copy",
    saves="none",
)


@takes_out
def diag(input, diagonal: int = 0):
    """A 1-D tensor becomes a square matrix with it on diagonal `diagonal`; a 2-D tensor gives
    that diagonal as a 1-D tensor."""
    tensor_arg(input, "diag")
    if input.ndim == 1:
        return apply(_DIAG_EMBED, input, k=int(diagonal))
    if input.ndim == 2:
        return apply(_DIAGONAL, input, k=int(diagonal))
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


_TRIL = register("tril", lambda x, *, k: jnp.tril(x, k), node="TrilBackward0", saves="none")
_TRIU = register("triu", lambda x, *, k: jnp.triu(x, k), node="TriuBackward0", saves="none")


@takes_out
def tril(input, diagonal: int = 0):
    """The lower triangle (at and below diagonal `diagonal`) of the last two dims; rest zero."""
    tensor_arg(input, "tril")
    if input.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return apply(_TRIL, input, k=int(diagonal))


@takes_out
def triu(input, diagonal: int = 0):
    """The upper triangle (at and above diagonal `diagonal`) of the last two dims; rest zero."""
    tensor_arg(input, "triu")
    if input.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return apply(_TRIU, input, k=int(diagonal))


# ----------------------------------------------------------------------------- torch.linalg
class LinAlgError(RuntimeError):
    """A linear algebra error (singular matrix), a RuntimeError as `torch.linalg.LinAlgError`."""


LinAlgError.__module__ = "torch._C"


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"


def _zero_pivot(lu):
    """0 where U has no zero on its diagonal, else the 1-based position of the first one."""
    zero = jnp.diagonal(lu, axis1=-2, axis2=-1) == 0
    if zero.shape[-1] == 0:
        return jnp.zeros(zero.shape[:-1], jnp.int32)
    return jnp.where(jnp.any(zero, axis=-1), jnp.argmax(zero, axis=-1) + 1, 0).astype(jnp.int32)


def _inv_ex(a):
    """(inverse, info) from one LU factorization; info > 0 marks a singular matrix."""
    lu, pivots, _ = lax.linalg.lu(a)
    eye = jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    return jax.scipy.linalg.lu_solve((lu, pivots), eye), _zero_pivot(lu)


def _solve_ex(a, b, *, vector, left):
    """(X, info) solving AX = B (XA = B when not `left`) with batch broadcasting."""
    if not left:
        a = jnp.swapaxes(a, -1, -2)
        b = jnp.swapaxes(b, -1, -2)
    if vector:
        b = b[..., None]
    lu, pivots, _ = lax.linalg.lu(a)  # info has A's batch shape, as PyTorch's
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    factors = (
        jnp.broadcast_to(lu, batch + lu.shape[-2:]),
        jnp.broadcast_to(pivots, batch + pivots.shape[-1:]),
    )
    x = jax.scipy.linalg.lu_solve(factors, jnp.broadcast_to(b, batch + b.shape[-2:]))
    if vector:
        x = x[..., 0]
    elif not left:
        x = jnp.swapaxes(x, -1, -2)
    return x, _zero_pivot(lu)


_INV = register("linalg.inv_ex", _inv_ex, node="LinalgInvExBackward0")


def _det(a):
    """The determinant, with PyTorch's first derivative where it is exactly 0: PyTorch computes
    det * A^-T, which is 0 there (JAX's cofactor formula gives the adjugate)."""
    if a.shape[-1] == 0:  # 0x0 matrices: det 1, an empty gradient (JAX's derivative fails)
        return jnp.ones(a.shape[:-2], a.dtype) + jnp.sum(a, axis=(-2, -1))
    det = jnp.linalg.det(a)
    fixed = lax.stop_gradient(det)
    return jnp.where(fixed == 0, fixed, det)


_DET = register("linalg.det", _det, node="LinalgDetBackward0")
_SOLVE = register("linalg.solve_ex", _solve_ex, node="LinalgSolveExBackward0")


def _check_square(fname: str, A: Tensor, arg: str = "A", floating: bool = True) -> None:
    tensor_arg(A, fname.split(".")[-1], arg)
    if A.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor {arg} must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"{fname}: {arg} must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )
    if floating:  # (else the op's dtype rule refuses it, with its kernel's name)
        _check_floating(fname, A)


def _check_floating(fname: str, A: Tensor) -> None:
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(
            f"{fname}: Expected a floating point or complex tensor as input. Got "
            f"{scalar_type_name(A.dtype)}"
        )


def raise_for_info(
    info: Tensor, fname: str, text: str, error: type[Exception] = LinAlgError
) -> None:
    """Raise `error` for the first matrix whose `info` code (concrete values only) is nonzero,
    in PyTorch's form `fname: (Batch element b): text` (no batch part for a single matrix);
    `{code}` in `text` stands for that code."""
    if is_tracer(info._value):
        return
    codes = np.asarray(info._value).reshape(-1)
    bad = np.flatnonzero(codes)
    if bad.size:
        prefix = f"(Batch element {int(bad[0])}): " if info.ndim else ""
        raise error(f"{fname}: {prefix}" + text.format(code=int(codes[bad[0]])))


# PyTorch's texts for a singular matrix in linalg.inv(_ex) and linalg.solve(_ex).
SINGULAR_INVERSE = (
    "The diagonal element {code} is zero, the inversion could not be completed because the "
    "input matrix is singular."
)
SINGULAR_SOLVE = "The solver failed because the input matrix is singular."


@takes_out
def linalg_inv(A):
    """The inverse of each square matrix; LinAlgError if one is singular (checked eagerly)."""
    _check_square("linalg.inv", A)
    inverse, info = apply(_INV, A)
    raise_for_info(info, "linalg.inv", SINGULAR_INVERSE)
    return inverse


@takes_out
def linalg_det(A):
    """The determinant of each square matrix (gradients exact for singular ones too)."""
    _check_square("linalg.det", A)
    return apply(_DET, A)


@takes_out
def linalg_solve(A, B, *, left: bool = True):
    """The solution X of AX = B (or XA = B); B may be a vector or a batch of vectors."""
    x, info = solve_with_info(A, B, left)
    raise_for_info(info, "torch.linalg.solve", SINGULAR_SOLVE)
    return x


def solve_with_info(A, B, left: bool) -> tuple:
    """(X, info) of linalg.solve's equation, its arguments checked; info > 0 marks a singular
    matrix."""
    _check_square("linalg.solve", A)
    tensor_arg(B, "solve", "B", 2)
    if A.dtype is not B.dtype:
        raise RuntimeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{scalar_type_name(A.dtype)} and B of type {scalar_type_name(B.dtype)} instead"
        )
    vector = left and (
        B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    )
    n = A.shape[-1]
    rows = B.shape[-1] if vector or B.ndim < 2 else (B.shape[-2] if left else B.shape[-1])
    if B.ndim == 0 or rows != n or (not left and B.ndim < 2):
        if vector:
            shown = f"{B.shape[-1] if B.ndim else 0}x1"
        elif B.ndim >= 2:
            shown = _shape_text(B.shape[-2:])
        else:
            shown = f"{B.shape[-1]}x1"
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation {equation} "
            f"({n}x{n} and {shown})"
        )
    batch_b = B.shape[:-1] if vector else B.shape[:-2]
    broadcast_shapes(tuple(A.shape[:-2]), tuple(batch_b))
    return apply(_SOLVE, A, B, vector=vector, left=bool(left))


def det(input):
    """The determinant (`torch.linalg.det`)."""
    return linalg_det(input)


@takes_out
def inverse(input):
    """The matrix inverse (`torch.linalg.inv`)."""
    return linalg_inv(input)


def _rmatmul(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(other, self)


# --------------------------- products with accumulation, kron, diag_embed, matrix_power, cross, cov
def _add_product(input, a, b, beta, alpha, *, kind, beta_zero):
    """`beta * input + alpha * product(a, b)`; `input` is ignored (NaN included) when beta
    is 0, as in PyTorch."""
    if kind == "outer":
        product = jnp.outer(a, b)
    elif kind == "bmm_sum":
        product = jnp.einsum("bij,bjk->ik", a, b)
    else:
        product = jnp.matmul(a, b)
    product = alpha.astype(product.dtype) * product  # Scalars never promote (autocast)
    if beta_zero:
        return jnp.broadcast_to(product, jnp.broadcast_shapes(input.shape, product.shape))
    return beta.astype(input.dtype) * input + product


_ADD_PRODUCT = {
    "addmv": (register("addmv", _add_product, node="AddmvBackward0"), "mv", (2, 1)),
    "addr": (register("addr", _add_product, node="AddrBackward0"), "outer", (1, 1)),
    "baddbmm": (register("baddbmm", _add_product, node="BaddbmmBackward0"), "bmm", (3, 3)),
    "addbmm": (register("addbmm", _add_product, node="AddbmmBackward0"), "bmm_sum", (3, 3)),
}


def _add_product_front(fname, input, a, b, beta, alpha, names):
    """Checks shared by addmv/addr/baddbmm/addbmm, then one op node."""
    op, kind, ndims = _ADD_PRODUCT[fname]
    tensor_arg(input, fname)
    for position, (name, t, nd) in enumerate(zip(names, (a, b), ndims), start=2):
        tensor_arg(t, fname, name, position)
        if t.ndim != nd:
            raise RuntimeError(f"{name} must be a {nd}D tensor, got {t.ndim}-D tensor")
    (m, *_), (*_, p) = a.shape, b.shape
    if kind != "outer" and a.shape[-1] != b.shape[0 if kind == "mv" else 1]:
        raise RuntimeError(
            f"{fname}: shapes cannot be multiplied ({list(a.shape)} and {list(b.shape)})"
        )
    if kind == "mv":
        product_shape = (m,)
    elif kind == "outer":
        product_shape = (m, p)
    else:
        product_shape = (m, a.shape[1], p) if kind == "bmm" else (a.shape[1], p)
    jnp.broadcast_shapes(tuple(input.shape), product_shape)
    d = input.dtype
    return apply(
        op,
        input,
        a,
        b,
        _scalar_constant(beta, d),
        _scalar_constant(alpha, d),
        kind=kind,
        beta_zero=beta == 0,
    )


@takes_out
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """`beta * input + alpha * (mat @ vec)`."""
    return _add_product_front("addmv", input, mat, vec, beta, alpha, ("mat", "vec"))


@takes_out
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """`beta * input + alpha * outer(vec1, vec2)`."""
    return _add_product_front("addr", input, vec1, vec2, beta, alpha, ("vec1", "vec2"))


@takes_out
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """`beta * input + alpha * (batch1 @ batch2)`, batched."""
    return _add_product_front("baddbmm", input, batch1, batch2, beta, alpha, ("batch1", "batch2"))


@takes_out
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """`beta * input + alpha * sum over the batch of batch1[i] @ batch2[i]`."""
    return _add_product_front("addbmm", input, batch1, batch2, beta, alpha, ("batch1", "batch2"))


@takes_out
def inner(input, other):
    """The sum of products over the last dims (a product for 0-d operands)."""
    tensor_arg(input, "inner")
    tensor_arg(other, "inner", "other", 2)
    if input.ndim == 0 or other.ndim == 0:
        return mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}"
        )
    return tensordot(input, other, ([input.ndim - 1], [other.ndim - 1]))


_KRON = register("kron", jnp.kron, node="KronBackward0", saves="others")


@takes_out
def kron(input, other):
    """The Kronecker product (blocks `input[i, j] * other`)."""
    tensor_arg(input, "kron")
    tensor_arg(other, "kron", "other", 2)
    return apply(_KRON, input, other)


def _diag_embed(x, *, offset, dim1, dim2):
    out = jnp.vectorize(lambda v: jnp.diag(v, offset), signature="(n)->(m,m)")(x)
    return jnp.moveaxis(out, (-2, -1), (dim1, dim2))


_DIAG_EMBED_DIMS = register("diag_embed", _diag_embed, node="DiagEmbedBackward0", saves="none")


def diag_embed(input, offset: int = 0, dim1: int = -2, dim2: int = -1):
    """Matrices (in dims `dim1`, `dim2`) with the last dim of `input` on diagonal `offset`."""
    tensor_arg(input, "diag_embed")
    d1, d2 = (normalize_dim(d, input.ndim + 1) for d in (dim1, dim2))
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if input.ndim == 0:
        input = reshape(input, 1)
    return apply(_DIAG_EMBED_DIMS, input, offset=int(offset), dim1=d1, dim2=d2)


def diagflat(input, offset: int = 0):
    """A square matrix with the flattened `input` on diagonal `offset`."""
    tensor_arg(input, "diagflat")
    return diag_embed(reshape(input, -1), offset)


@takes_out
def matrix_power(input, n: int):
    """The n-th power of square matrices (batched) by repeated squaring; n < 0 inverts first,
    n == 0 gives identities."""
    tensor_arg(input, "matrix_power")
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        rows, cols = (tuple(input.shape) + (1, 1))[:2] if input.ndim < 2 else input.shape[-2:]
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, but they are "
            f"{rows} by {cols} matrices"
        )
    if n == 0:  # PyTorch's copy of identities into a clone: a zero gradient, not none
        eye = _factories.eye(input.shape[-1], dtype=input.dtype)
        return input.clone().copy_(expand(eye, tuple(input.shape)))
    if n == 1:
        return input.clone()
    base = input if n > 0 else inverse(input)
    result, n = None, builtins.abs(n)
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return result


_CROSS = register(
    "linalg.cross", lambda a, b, *, dim: jnp.cross(a, b, axis=dim), node="LinalgCrossBackward0"
)


@takes_out
def cross(input, other, dim=None):
    """The 3-D cross product along `dim` (by default the first dim of size 3, with PyTorch's
    deprecation warning); the inputs broadcast."""
    tensor_arg(input, "cross")
    tensor_arg(other, "cross", "other", 2)
    shape = tuple(jnp.broadcast_shapes(tuple(input.shape), tuple(other.shape)))
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\n"
            "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
            "The default value of dim will change to agree with that of linalg.cross in a "
            "future release.",
            UserWarning,
            stacklevel=2,
        )
        dim = next((i for i, s in enumerate(shape) if s == 3), -1)
    d = normalize_dim(dim, len(shape))
    if shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} "
            f"and {other.shape[d]}"
        )
    a, b = (expand(t, shape) if tuple(t.shape) != shape else t for t in (input, other))
    return apply(_CROSS, a, b, dim=d)


def _holds(condition: Tensor) -> bool:
    """The value of a 0-d bool tensor; False under a jax trace, where value checks skip."""
    return not is_tracer(condition._value) and bool(condition._value)


def _check_weights(name: str, w, observations: int, floating: bool) -> None:
    kind = "floating point" if floating else "integral"
    if w.ndim > 1:
        raise RuntimeError(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
            f"{w.ndim} dimensions"
        )
    if w.dtype.is_floating_point is not floating or w.dtype.is_complex or w.dtype is _dtypes.bool:
        raise RuntimeError(
            f"cov(): expected {name} to have {kind} dtype but got {name} with "
            f"{scalar_type_name(w.dtype)} dtype"
        )
    if w.numel() != observations:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the "
            f"input but got {w.numel()} != {observations}"
        )
    if observations and _holds(w.min() < 0):
        raise RuntimeError(f"cov(): {name} cannot be negative")


def cov(input, *, correction: int = 1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of `input` (observations in the
    columns), optionally weighted; composed as PyTorch composes it."""
    tensor_arg(input, "cov")
    if input.ndim > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{input.ndim} dimensions"
        )
    if input.dtype is _dtypes.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = reshape(input, 1, -1) if input.ndim < 2 else input
    observations = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights, observations, floating=False)
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, observations, floating=True)
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = observations
    else:
        w_sum = w.sum()
        if _holds(w_sum == 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x if w is None else x * w).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm_factor = w_sum - correction
    degenerate = norm_factor <= 0
    if _holds(degenerate) if isinstance(degenerate, Tensor) else degenerate:
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "number of observations.",
            UserWarning,
            stacklevel=2,
        )
        norm_factor = norm_factor * 0
    x = x - unsqueeze(avg, 1)
    c = mm(x, (x if w is None else x * w).t().conj())
    return (c / norm_factor).squeeze()


def corrcoef(input):
    """Pearson correlation coefficients of the rows of `input`, clipped to [-1, 1]."""
    tensor_arg(input, "corrcoef")
    if input.ndim > 2:
        raise RuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with "
            f"{input.ndim} dimensions"
        )
    c = cov(input)
    if c.ndim == 0:
        return c / c
    stddev = diagonal(c).real.sqrt()
    c = c / reshape(stddev, -1, 1)
    c = c / reshape(stddev, 1, -1)
    return c.clamp(-1, 1)
