"""Joining and grid helpers composed of existing ops: meshgrid, atleast_1d/2d/3d,
hstack/vstack/row_stack/dstack/column_stack and isin; the small conversions PyTorch lists
beside them: scalar_tensor, asarray, can_cast and result_type; and the complex constructions
view_as_real, view_as_complex, complex and polar.

All but one are built from existing views (reshape, expand), cat/stack and comparisons, as
PyTorch's are, so their gradients come from the ops they are made of. view_as_complex is the
one registered op (`lax.complex` of the last dim's two halves: a sum `re + 1j * im` would turn
an infinite imaginary part into NaN); complex and polar stack their parts and apply it. The
"views" between real and complex are copies here: JAX arrays cannot reinterpret each other's
memory.
"""

from __future__ import annotations

import builtins  # `complex` below is the tensor constructor
import warnings

from jax import lax

from .._pure import dtypes as _dtypes
from .._pure.op import register
from .._state.tensor import Tensor
from .._tape.args import can_cast as _can_cast
from .._tape.args import scalar_type_name, tensor_arg
from .._tape.record import apply
from . import storage as _storage
from .convert import imag, real
from .factories import full, tensor
from .out_arg import takes_out
from .shape import _tensor_list, broadcast_tensors, cat, reshape, stack
from .unary import cos, sin

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "asarray",
    "can_cast",
    "column_stack",
    "complex",
    "dstack",
    "hstack",
    "isin",
    "meshgrid",
    "polar",
    "result_type",
    "row_stack",
    "scalar_tensor",
    "view_as_complex",
    "view_as_real",
    "vstack",
]


def _tensors_of(args: tuple) -> tuple:
    """`f(a, b)` and `f([a, b])` both mean the tensors a and b, as in PyTorch."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    for i, t in enumerate(args):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
    return args


def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Coordinate grids of 0-D or 1-D `tensors`: output i varies along the dim of input i
    ("ij", the default) or with the first two dims swapped ("xy", as numpy's default).
    The outputs are expanded views of the inputs.

    Example::

        >>> x, y = torch.meshgrid(torch.arange(3), torch.arange(2), indexing="ij")
        >>> x.shape
        torch.Size([3, 2])
    """
    tensors = _tensors_of(tensors)
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}"
            )
    if any(t.dtype is not tensors[0].dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if any(t.device != tensors[0].device for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same device")
    axes = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        axes[0], axes[1] = 1, 0
    sizes = [0] * len(tensors)
    for t, axis in zip(tensors, axes):
        sizes[axis] = t.numel()
    grids = []
    for t, axis in zip(tensors, axes):
        shape = tuple(-1 if j == axis else 1 for j in range(len(tensors)))
        grids.append(reshape(t, shape).expand(sizes))
    return tuple(grids)


def _atleast(tensors: tuple, fname: str, ndim: int):
    """A view of each tensor with at least `ndim` dims (one tensor in, one out)."""
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return _at_least(tensors[0], ndim)
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for t in tensors:
        if not isinstance(t, Tensor):
            raise _no_match(fname, (t,), (" * (Tensor input)", " * (tuple of Tensors tensors)"))
    return tuple(_at_least(t, ndim) for t in tensors)


def _at_least(t: Tensor, ndim: int) -> Tensor:
    """1-D: (n,); 2-D: (1, n); 3-D: (1, n, 1) from 1-D and (m, n, 1) from 2-D, as numpy's."""
    if t.ndim >= ndim:
        return t
    if ndim == 1:
        return reshape(t, (1,))
    if ndim == 2:
        return reshape(t, (1, -1))
    if t.ndim == 2:
        return t.unsqueeze(-1)
    return reshape(t, (1, -1, 1))


def atleast_1d(*tensors):
    """Each input viewed with at least 1 dim (a 0-D tensor becomes shape (1,))."""
    return _atleast(tensors, "atleast_1d", 1)


def atleast_2d(*tensors):
    """Each input viewed with at least 2 dims (a 1-D tensor of n becomes (1, n))."""
    return _atleast(tensors, "atleast_2d", 2)


def atleast_3d(*tensors):
    """Each input viewed with at least 3 dims ((n,) becomes (1, n, 1); (m, n) (m, n, 1))."""
    return _atleast(tensors, "atleast_3d", 3)


def _joined(tensors, fname: str, empty_name: str | None = None) -> tuple:
    """The list argument of the stack family, with PyTorch's errors for a bad or empty one."""
    if not isinstance(tensors, (list, tuple)):
        _tensor_list(fname, tensors)  # raises PyTorch's "must be tuple of Tensors"
    tensors = _tensors_of((tensors,))
    if not tensors:
        raise RuntimeError(f"{empty_name or fname} expects a non-empty TensorList")
    return tensors


@takes_out
def hstack(tensors) -> Tensor:
    """Concatenate column-wise: along dim 0 for 1-D inputs, else dim 1 (0-D ones become 1-D)."""
    tensors = _joined(tensors, "hstack")
    parts = [_at_least(t, 1) for t in tensors]
    return cat(parts, 0 if parts[0].ndim == 1 else 1)


@takes_out
def vstack(tensors) -> Tensor:
    """Concatenate row-wise (dim 0) after viewing each input with at least 2 dims."""
    tensors = _joined(tensors, "vstack")
    return cat([_at_least(t, 2) for t in tensors], 0)


@takes_out
def row_stack(tensors) -> Tensor:
    """`vstack`'s other name."""
    tensors = _joined(tensors, "row_stack", "vstack")
    return cat([_at_least(t, 2) for t in tensors], 0)


@takes_out
def dstack(tensors) -> Tensor:
    """Concatenate depth-wise (dim 2) after viewing each input with at least 3 dims."""
    tensors = _joined(tensors, "dstack")
    return cat([_at_least(t, 3) for t in tensors], 2)


@takes_out
def column_stack(tensors) -> Tensor:
    """Stack as columns: 0-D and 1-D inputs become (n, 1) columns, then concatenate on dim 1."""
    tensors = _joined(tensors, "column_stack")
    return cat([reshape(t, (-1, 1)) if t.ndim <= 1 else t for t in tensors], 1)


_ISIN_OPTIONS = "*, bool assume_unique = False, bool invert = False, Tensor out = None)"
_ISIN_SIGNATURES = (
    f" * (Tensor elements, Tensor test_elements, {_ISIN_OPTIONS}",
    f" * (Number element, Tensor test_elements, {_ISIN_OPTIONS}",
    f" * (Tensor elements, Number test_element, {_ISIN_OPTIONS}",
)


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False):
    """A bool tensor of `elements`' shape: True where the element equals one of
    `test_elements` (False with `invert`). Either may be a number; values are compared in
    their promoted dtype. Every pair is compared (memory of elements x test_elements);
    `assume_unique` is accepted, and the result does not depend on it.

    Example::

        >>> torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2, 5]))
        tensor([False,  True, False])
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise _no_match("isin", (elements, test_elements), _ISIN_SIGNATURES, reasons=False)
    for x in (elements, test_elements):
        if isinstance(x, Tensor) and (x.dtype.is_complex or x.dtype is _dtypes.bool):
            raise RuntimeError(
                f"Unsupported input type encountered for isin(): {scalar_type_name(x.dtype)}"
            )
    if not isinstance(test_elements, Tensor):
        found = elements == test_elements
    elif not isinstance(elements, Tensor):
        found = (test_elements == elements).any()
    else:
        found = (elements.unsqueeze(-1) == reshape(test_elements, (-1,))).any(-1)
    return found.logical_not() if invert else found


def _no_match(
    fname: str, args: tuple, signatures: tuple, reasons: bool = True, keywords: dict | None = None
) -> TypeError:
    """PyTorch's TypeError for arguments that match none of a function's signatures (with
    the line under each that marks the arguments, where PyTorch writes it); `keywords`: the
    keyword arguments given, listed after the positional ones in name order."""
    named = [f"{k}={type(v).__name__}" for k, v in sorted((keywords or {}).items())]
    got = ", ".join([type(a).__name__ for a in args] + named) + (", " if named and not args else "")
    marked = ", ".join(f"!{type(a).__name__}!" for a in args)
    why = f"      didn't match because some of the arguments have invalid types: ({marked})\n"
    listed = "".join(f"{line}\n{why if reasons else ''}" for line in signatures)
    return TypeError(
        f"{fname}() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n{listed}"
    )


def scalar_tensor(
    s, *, dtype=None, layout=None, device=None, requires_grad: bool = False, pin_memory=False
) -> Tensor:
    """A 0-D tensor holding the number `s`, of the default float dtype unless `dtype` is
    given (so `scalar_tensor(3)` is float, unlike `tensor(3)`)."""
    if isinstance(s, Tensor):
        s = s.item()
    if not isinstance(s, (int, float, builtins.complex)):
        raise TypeError(
            f"scalar_tensor(): argument 's' (position 1) must be Number, not {type(s).__name__}"
        )
    target = _dtypes.get_default_dtype() if dtype is None else _dtypes.as_dtype(dtype)
    if isinstance(s, builtins.complex) and not target.is_complex:
        if target is _dtypes.bool:
            s = bool(s)
        elif s.imag:
            name = _dtypes.CPP_NAMES.get(target, "double")  # PyTorch checks half via double
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")
        else:
            s = s.real
    return full((), s, dtype=target, device=device, requires_grad=requires_grad)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None) -> Tensor:
    """`obj` as a tensor. A Tensor of the asked dtype and device is returned itself unless
    `copy=True`; a conversion copies (and records it for autograd), and `copy=False` then
    raises. Other data (numbers, lists, numpy arrays) is always copied: JAX arrays cannot
    alias host memory. `requires_grad=None` keeps a tensor's flag (warning when it is set, as
    PyTorch 2.13 does).

    Example::

        >>> torch.asarray([1, 2]).dtype
        torch.int64
    """
    if isinstance(obj, _storage.UntypedStorage):
        obj = obj.as_tensor(_dtypes.int64 if dtype is None else _dtypes.as_dtype(dtype))
        dtype = None
    elif not isinstance(obj, Tensor):
        return tensor(obj, dtype=dtype, device=device, requires_grad=bool(requires_grad))
    target = obj.dtype if dtype is None else _dtypes.as_dtype(dtype)
    result = obj
    if target is not obj.dtype or (device is not None and obj.device != device):
        if copy is False:
            raise ValueError(
                f"can't alias tensor with dtype '{scalar_type_name(obj.dtype)}' into dtype "
                f"'{scalar_type_name(target)}'."
            )
        result = obj.to(dtype=target, device=device)
    elif copy:
        result = obj.clone()
    if requires_grad is None:
        if result is obj and obj.requires_grad:
            warnings.warn(
                "torch.asarray: unspecified requires_grad now defaults to obj.requires_grad "
                "instead of False. Pass requires_grad=False explicitly to get the old behavior "
                "and silence this warning.",
                UserWarning,
                stacklevel=2,
            )
    elif result.is_leaf or requires_grad:
        result.requires_grad_(requires_grad)  # on `obj` itself when no copy was made
    return result


def can_cast(from_, to) -> bool:
    """Whether PyTorch's casting rules allow `from_` to `to` without a lower category:
    complex to real, floating to integral and non-bool to bool are refused."""
    for name, position, d in (("from_", 1, from_), ("to", 2, to)):
        if not isinstance(d, _dtypes.dtype):
            raise TypeError(
                f"can_cast(): argument '{name}' (position {position}) must be torch.dtype, "
                f"not {type(d).__name__}"
            )
    return _can_cast(from_, to)


_RESULT_TYPE_SIGNATURES = (
    " * (Tensor tensor, Tensor other)",
    " * (Number scalar, Tensor tensor)",
    " * (Tensor tensor, Number other)",
    " * (Number scalar1, Number scalar2)",
)


def result_type(tensor, other) -> _dtypes.dtype:
    """The dtype PyTorch's arithmetic gives for `tensor` and `other` (tensors or numbers):
    dimensioned tensors first, then 0-D tensors, then numbers, each lower tier counting only
    when of a higher category."""
    for x in (tensor, other):
        if not isinstance(x, (Tensor, int, float, builtins.complex)):
            raise _no_match("result_type", (tensor, other), _RESULT_TYPE_SIGNATURES)
    return _dtypes.result_type(tensor, other)


# ----------------------------------------------------------------------------- complex
def view_as_real(input) -> Tensor:
    """A complex tensor as real pairs: shape (..., 2), holding (real, imaginary) in the last
    dim. A copy here, not a view: writing to it does not change `input`."""
    tensor_arg(input, "view_as_real")
    if not input.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return stack([real(input), imag(input)], -1)


_VIEW_AS_COMPLEX = register(
    "view_as_complex",
    lambda x: lax.complex(x[..., 0], x[..., 1]),
    node="ViewAsComplexBackward0",
    saves="none",
)


def view_as_complex(input) -> Tensor:
    """Real pairs (a last dim of size 2, stride 1) as complex numbers: shape (...). A copy
    here, not a view: writing to it does not change `input`. float16 has no complex
    counterpart here (PyTorch's complex32), so only float32 and float64 are accepted."""
    tensor_arg(input, "view_as_complex")
    if input.dtype not in (_dtypes.float32, _dtypes.float64):
        if input.dtype is _dtypes.float16:
            raise TypeError("view_as_complex: complex32 (from float16) is not supported")
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a "
            f"tensor of scalar type: {scalar_type_name(input.dtype)}"
        )
    if input.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if input.stride(-1) != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    return apply(_VIEW_AS_COMPLEX, input)


def _complex_parts(a, b, fname: str, names: tuple) -> tuple:
    """PyTorch's checks of complex()/polar()'s two real tensors, broadcast together."""
    tensor_arg(a, fname, names[0])
    tensor_arg(b, fname, names[1], 2)
    floats = (_dtypes.float16, _dtypes.float32, _dtypes.float64)
    if a.dtype not in floats or b.dtype not in floats:
        raise RuntimeError(
            "Expected both inputs to be Half, Float or Double tensors but got "
            f"{scalar_type_name(a.dtype)} and {scalar_type_name(b.dtype)}"
        )
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"Expected object of scalar type {scalar_type_name(a.dtype)} but got scalar type "
            f"{scalar_type_name(b.dtype)} for second argument"
        )
    return broadcast_tensors(a, b)


@takes_out
def complex(real, imag) -> Tensor:
    """The complex tensor `real + i imag` from two real tensors of one float dtype (broadcast);
    infinite parts stay as they are.

    Example::

        >>> torch.complex(torch.tensor([1.0]), torch.tensor([2.0]))
        tensor([1.+2.j])
    """
    real, imag = _complex_parts(real, imag, "complex", ("real", "imag"))
    return view_as_complex(stack([real, imag], -1))


@takes_out
def polar(abs, angle) -> Tensor:
    """The complex tensor `abs * (cos(angle) + i sin(angle))` from polar coordinates."""
    abs, angle = _complex_parts(abs, angle, "polar", ("abs", "angle"))
    return complex(abs * cos(angle), abs * sin(angle))
