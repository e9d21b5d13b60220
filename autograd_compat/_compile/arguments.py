"""A compiled function's call arguments: split into tensors, runtime numbers and static
leaves (`Arguments`), and the part of an entry's guard computed from them (`guard_key`).

A Python number argument is static until it changes (PyTorch's automatic dynamic); from then on
it is a runtime input, a 0-d tensor in the trace (`WrappedNumber`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp

from .._pure import dtypes as _dtypes
from .._state import modes as _grad_mode
from .._state.tensor import PLAIN_TYPES, Tensor
from .._state.torch_function import _disabled_torch_function_impl

_NUMBER_TYPES = (int, float)


class WrappedNumber(Tensor):
    """A Python number argument made a runtime input: a 0-d tensor that promotes as the
    number would (`float32_tensor * w` stays float32), as PyTorch's wrapped numbers do."""

    __slots__ = ()
    _wrapped_number = True
    __torch_function__ = _disabled_torch_function_impl  # a plain number to every op


def is_tensor(x) -> bool:
    """Whether `x` is a Tensor: the leaves of a call's arguments and outputs."""
    return isinstance(x, Tensor)


def _signature(tensor: Tensor) -> tuple:
    """What a guard keeps of a tensor argument (a HostTensor is read where it is, on the host)."""
    value = tensor._stored
    return (value.shape, value.dtype, tensor._requires_grad, tensor._grad is not None)


def grads_of(tensors: Sequence[Tensor]) -> list:
    """The `.grad` values of those of `tensors` that have one (accumulated into)."""
    return [t._grad._value for t in tensors if t._grad is not None]


def number_array(value):
    """A Python number made a runtime input: an int64 or float64 0-d array."""
    return jnp.asarray(value, jnp.int64 if isinstance(value, int) else jnp.float64)


@functools.cache
def _positions(n: int) -> tuple[int, ...]:
    return tuple(range(n))


@functools.cache
def positional_treedef(n: int):
    """The tree structure of `(args, kwargs)` for `n` tensor arguments and no keywords."""
    return jax.tree_util.tree_structure(((0,) * n, {}))


def guard_key(treedef, static: tuple, tensors: Sequence[Tensor], numbers: tuple) -> tuple:
    """The part of an entry's guard computed from a call's arguments and the modes."""
    state = _grad_mode._state
    signatures = tuple([_signature(t) for t in tensors])
    return (
        treedef,
        static,
        signatures,
        numbers,
        state.enabled,
        state.inference,
        _dtypes.get_default_dtype(),
    )


class Arguments:
    """One call's arguments, split into tensors, runtime numbers and static leaves."""

    flags: list | None = None  # per tensor (requires_grad, has a .grad), fixed by an entry
    leaves: Sequence  # the flattened (args, kwargs)
    tensor_index: tuple[int, ...]  # the positions in `leaves` of tensors
    number_index: tuple[int, ...]  # and of Python numbers made runtime inputs

    def __init__(self, is_dynamic: Callable, args: tuple, kwargs: dict) -> None:
        """`is_dynamic(position, number)`: whether a Python number argument is a runtime
        input (`CompiledFunction.is_dynamic`)."""
        if not kwargs and PLAIN_TYPES.issuperset(map(type, args)):  # the common call, flat
            self.leaves, self.treedef = args, positional_treedef(len(args))
            self.tensor_index, self.number_index = _positions(len(args)), ()
            self.static: tuple = ()
            return
        leaves, self.treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=is_tensor)
        self.leaves = leaves
        self.tensor_index = tuple(i for i, x in enumerate(leaves) if isinstance(x, Tensor))
        self.number_index = tuple(
            i for i, x in enumerate(leaves) if type(x) in _NUMBER_TYPES and is_dynamic(i, x)
        )
        skip = set(self.tensor_index) | set(self.number_index)
        self.static = tuple((i, x) for i, x in enumerate(leaves) if i not in skip)

    def key(self) -> tuple:
        """The part of the guard computed from the arguments and the modes."""
        numbers = tuple([(i, type(self.leaves[i])) for i in self.number_index])
        return guard_key(self.treedef, self.static, self.tensors(), numbers)

    def tensors(self) -> list[Tensor]:
        return [self.leaves[i] for i in self.tensor_index]

    def numbers(self) -> list:
        """The Python numbers made runtime inputs, as arrays."""
        return [number_array(self.leaves[i]) for i in self.number_index]

    def freeze(self) -> None:
        """Fix each tensor's `requires_grad` and `.grad` presence as the entry's guard saw
        them: a re-trace for a backward must not read what the tensors became since."""
        self.flags = [(t.requires_grad, t._grad is not None) for t in self.tensors()]

    def rebuild(self, tensor_values, number_values, grad_values=()) -> tuple:
        """(args, kwargs) with tracers in place of the tensors (with their `.grad`, for a
        backward inside) and runtime numbers; the rebuilt tensors are kept in `rebuilt`."""
        leaves = list(self.leaves)
        grads = iter(grad_values)
        flags = self.flags
        if flags is None:
            flags = [(t.requires_grad, t._grad is not None) for t in self.tensors()]
        self.rebuilt = []
        self.initial_grads: list[tuple[Tensor | None, object]] = []  # (.grad, its value)
        for i, value, (requires_grad, has_grad) in zip(self.tensor_index, tensor_values, flags):
            tensor = Tensor._wrap(value)
            tensor._requires_grad = requires_grad
            if has_grad:
                tensor._grad = Tensor._wrap(next(grads))
            grad = tensor._grad
            self.initial_grads.append((grad, None if grad is None else grad._value))
            self.rebuilt.append(tensor)
            leaves[i] = tensor
        for i, value in zip(self.number_index, number_values):
            leaves[i] = WrappedNumber._wrap(value)
        return jax.tree_util.tree_unflatten(self.treedef, leaves)
