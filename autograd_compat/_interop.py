"""JAX interop: Tensor as a pytree, and explicit conversion to and from jax.Array.

As a pytree a Tensor has one leaf, its value, and keeps `requires_grad` as static data; the
graph is dropped, as `detach()` drops it. So Tensors pass through `jax.jit`, `jax.vmap` and
`jax.grad` boundaries, and the code inside sees Tensors holding tracers.
"""

from __future__ import annotations

import jax

from ._state.tensor import PLAIN_TYPES, Tensor


def _flatten(tensor: Tensor):
    return (tensor._value,), tensor._requires_grad


def _unflatten(requires_grad: bool, children) -> Tensor:
    tensor = Tensor._wrap(children[0])
    tensor._requires_grad = requires_grad
    return tensor


def register_pytree(cls: type) -> None:
    """Register a Tensor subclass (e.g. nn.Parameter) as a pytree node like Tensor."""

    def unflatten(requires_grad, children):
        tensor = cls._wrap(children[0])  # not __class__ =: a subclass may add a __dict__
        tensor._requires_grad = requires_grad
        return tensor

    jax.tree_util.register_pytree_node(cls, _flatten, unflatten)


for _plain in PLAIN_TYPES:  # Tensor, and a leaf still on the host (a device array once read)
    jax.tree_util.register_pytree_node(_plain, _flatten, _unflatten)
del _plain


def to_jax(tensor: Tensor) -> jax.Array:
    """The jax.Array (or tracer) behind a Tensor."""
    return tensor._value
