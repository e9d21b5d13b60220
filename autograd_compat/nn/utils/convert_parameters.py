"""parameters_to_vector / vector_to_parameters."""

from __future__ import annotations

import jax.numpy as jnp

from ..._pure.op import register
from ..._state.tensor import Tensor
from ..._tape.record import apply


def _flatten_cat(*arrays):
    return jnp.concatenate([a.reshape(-1) for a in arrays])


_CAT = register("nn.utils.parameters_to_vector", _flatten_cat, node="CatBackward0", saves="none")


def parameters_to_vector(parameters) -> Tensor:
    """All parameters flattened into one vector (differentiable, like torch.cat of views)."""
    params = list(parameters)
    device = None
    for p in params:
        if device is None:
            device = p.device
        elif p.device != device:
            raise TypeError(
                "Found two parameters on different devices, this is currently not supported."
            )
    return apply(_CAT, *params)


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Copy consecutive slices of `vec` into the parameters (in place, outside autograd)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    value = vec._value
    for param in parameters:
        count = param.numel()
        piece = value[pointer : pointer + count].reshape(param._stored.shape)
        param._set_value(piece.astype(param._stored.dtype))
        param._bump_version()
        pointer += count
