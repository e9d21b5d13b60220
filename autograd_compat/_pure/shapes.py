"""Shape helpers shared by the ops: torch.Size, dim normalisation, broadcasting checks."""

from __future__ import annotations

import ast
import functools
import math
import operator
import re

from . import errors as _errors


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints as `torch.Size([2, 3])`."""

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def numel(self) -> int:
        return math.prod(self)

    # A slice, a concatenation or a repetition of a Size is a Size, as in PyTorch (and prints
    # as one in error messages built from it).
    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if type(index) is slice else item

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(
                f"can only concatenate tuple (not {type(other).__name__}) to torch.Size"
            )
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        return Size(tuple.__add__(other, self))

    def __mul__(self, times):
        return Size(tuple.__mul__(self, times))

    __rmul__ = __mul__


def normalize_dim(dim: int, ndim: int) -> int:
    """Turn a possibly negative dim into an index; PyTorch's IndexError when out of range."""
    if not isinstance(dim, int):
        raise TypeError(f"dim must be an int, but got {type(dim).__name__}")
    extent = max(ndim, 1)
    if not -extent <= dim < extent:
        raise IndexError(_errors.DIM_OUT_OF_RANGE.format(low=-extent, high=extent - 1, dim=dim))
    return dim % extent


def unique_dims(dims, ndim: int) -> tuple[int, ...]:
    """`dims` (an int or a sequence) as indices in the given order; PyTorch's errors for an
    out-of-range or a repeated dim. The one check behind every op taking a list of dims."""
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    out: list[int] = []
    for dim in dims:
        d = normalize_dim(dim, ndim)
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(out)


def normalize_dims(dim, ndim: int) -> tuple[int, ...] | None:
    """`dim` (None, an int or a sequence) as a sorted tuple of indices (None stays None:
    reduce over all dims; a 0-d tensor has none, so its dims 0 and -1 give ()); PyTorch's
    errors as `unique_dims`."""
    if dim is None:
        return None
    dims = tuple(sorted(unique_dims(dim, ndim)))
    return dims if ndim else ()


def broadcast_shapes(a: tuple, b: tuple) -> tuple:
    """The broadcast of two shapes, or PyTorch's error naming the mismatching sizes."""
    if a == b:
        return a
    ndim = max(len(a), len(b))
    pa = (1,) * (ndim - len(a)) + tuple(a)
    pb = (1,) * (ndim - len(b)) + tuple(b)
    out = [0] * ndim
    for index in reversed(range(ndim)):  # PyTorch names the last dimension that differs
        size_a, size_b = pa[index], pb[index]
        if size_a != size_b and size_a != 1 and size_b != 1:
            raise RuntimeError(_errors.BROADCAST.format(size_a=size_a, size_b=size_b, dim=index))
        out[index] = size_b if size_a == 1 else size_a
    return tuple(out)


@functools.lru_cache(maxsize=1024)
def infer_shape(shape: tuple, numel: int) -> tuple:
    """Resolve one -1 in a requested view/reshape shape; PyTorch's error when it cannot fit.
    Cached (`shape` is a tuple of ints, `shape_args`'s): every view and reshape asks it."""
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in shape if s != -1)
    for index, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(
                f"invalid shape dimension {s} at index {index} of shape {list(shape)}"
            )
    if unknown:
        if known == 0 and numel == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        if known == 0 or numel % known:
            raise RuntimeError(_errors.INVALID_VIEW_SHAPE.format(shape=list(shape), numel=numel))
        shape = shape[: unknown[0]] + (numel // known,) + shape[unknown[0] + 1 :]
    elif known != numel:
        raise RuntimeError(_errors.INVALID_VIEW_SHAPE.format(shape=list(shape), numel=numel))
    return shape


def type_name(value) -> str:
    """The name PyTorch's argument parser prints for a value's type (`float`, `Tensor`,
    `numpy.float64`)."""
    t = type(value)
    module = t.__module__.partition(".")[0]
    return t.__name__ if module in ("builtins", "autograd_compat") else f"{module}.{t.__name__}"


def _size_error(
    fn: str, name: str, position: int | None, args: tuple, index: int, bad
) -> TypeError:
    """PyTorch's TypeError for a size element `bad` at `index` that is not an int (`position`
    None: the size was given by keyword, where PyTorch names the whole sequence's type)."""
    kind = type_name(bad)
    if position is None and index == 0:
        return TypeError(
            f"{fn}(): argument '{name}' must be tuple of ints, not {type_name(args[0])}"
        )
    if len(args) > 1 and index == 0:  # f(2.5, 2): the parser took 2.5 as the whole size
        return TypeError(f"{fn}() takes {position} positional argument but {len(args)} were given")
    if index == 0:
        return TypeError(
            f"{fn}(): argument '{name}' (position {position}) must be tuple of ints, but found "
            f"element of type {kind} at pos 0"
        )
    return TypeError(
        f"{fn}(): argument '{name}' failed to unpack the object at pos {index + 1} with error "
        f'"type must be tuple of ints,but got {kind}"'
    )


def shape_args(
    args: tuple, fn: str, name: str = "size", position: int | None = 1, sequence: bool = False
) -> tuple:
    """A size given as `f(2, 3)`, `f((2, 3))` or `f([2, 3])` (or a torch.Size) as a tuple of
    ints, with PyTorch's TypeErrors for anything else: a float, a str, a bool in first place
    (`zeros(True)`), an element that is neither an int nor an integer scalar (a numpy
    integer or a one-element integer tensor pass, as `__index__` allows). `sequence`: a
    single int is refused too (`full(3, 1.0)`). `fn`/`name`/`position` name the argument in
    the error, as PyTorch does (`position` None: given by keyword)."""
    sizes = args
    if len(args) == 1:
        first = args[0]
        if isinstance(first, (tuple, list)):
            sizes = tuple(first)
        elif sequence or type(first) is not int:
            where = "" if position is None else f" (position {position})"
            not_a_size = TypeError(
                f"{fn}(): argument '{name}'{where} must be tuple of ints, not {type_name(first)}"
            )
            if sequence or isinstance(first, bool):
                raise not_a_size
            try:
                return (operator.index(first),)
            except TypeError:
                raise not_a_size from None
    for s in sizes:  # the common case: plain ints, nothing more to do
        if type(s) is not int:
            break
    else:
        return sizes
    out = []
    for index, s in enumerate(sizes):
        if index == 0 and isinstance(s, bool):
            raise _size_error(fn, name, position, args, index, s)
        try:
            out.append(operator.index(s))
        except TypeError:
            raise _size_error(fn, name, position, args, index, s) from None
    return tuple(out)


def new_shape(
    args: tuple, fn: str, name: str = "size", position: int | None = 1, sequence: bool = False
) -> tuple:
    """`shape_args` for the size of a new tensor: no negative size (PyTorch's RuntimeError)."""
    shape = shape_args(args, fn, name, position, sequence)
    for s in shape:
        if s < 0:
            if fn == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)}"
            )
    return shape


def factory_shape(args: tuple, size, fn: str) -> tuple:
    """The size of a factory's result, given as `f(2, 3)`, `f((2, 3))` or by PyTorch's keyword
    `f(size=(2, 3))` (a sequence only there), with PyTorch's TypeErrors for both or neither."""
    if size is None:
        if not args:
            raise TypeError(f'{fn}() missing 1 required positional arguments: "size"')
        return new_shape(args, fn)
    if args:
        raise TypeError(f"{fn}() got multiple values for argument 'size'")
    return new_shape((size,), fn, position=None, sequence=True)


# JAX's broadcasting refusals: jax.numpy's (ValueError) and lax's (TypeError), with the shapes.
_JAX_BROADCAST = re.compile(
    r"^(?:Incompatible shapes for broadcasting: shapes=(\[.*\])"
    r"|\w+ got incompatible shapes for broadcasting: (.*)\.)$"
)


def pytorch_shape_error(error: BaseException) -> RuntimeError | None:
    """PyTorch's RuntimeError for a shape JAX refused inside an op's function (its shapes
    broadcast pairwise, left to right, as PyTorch's `infer_size` does), or None where
    `error` is not such a refusal. Ops reach JAX's broadcasting without checking shapes
    first: this one translation at the op call gives all of them PyTorch's error."""
    if not isinstance(error, (ValueError, TypeError)):
        return None
    match = _JAX_BROADCAST.match(str(error))
    if match is None:
        return None
    listed = match.group(1) or f"[{match.group(2)}]"
    try:
        shapes = ast.literal_eval(listed)
        result = tuple(shapes[0])
        for shape in shapes[1:]:
            result = broadcast_shapes(result, tuple(shape))
    except RuntimeError as pytorch_error:
        return pytorch_error
    except (ValueError, SyntaxError, TypeError, IndexError):
        return None
    return None
