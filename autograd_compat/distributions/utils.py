"""Helpers shared by the distributions (`torch.distributions.utils`): broadcasting parameters,
converting between probabilities and logits, and `lazy_property`."""

from __future__ import annotations

import numbers

from .._ops.factories import arange, tensor
from .._ops.nn.activation import sigmoid, softmax
from .._ops.shape import broadcast_tensors
from .._pure import dtypes as _dtypes
from .._state.modes import enable_grad
from .._state.tensor import Tensor

__all__ = [
    "broadcast_all",
    "clamp_probs",
    "euler_constant",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant


def broadcast_all(*values) -> tuple:
    """The values (tensors or numbers) as tensors of one broadcast shape; numbers take the
    dtype of the first tensor (the default dtype if there is none)."""
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, "
            "torch.Tensor or objects implementing __torch_function__."
        )
    first = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = first.dtype if first is not None else _dtypes.get_default_dtype()
    tensors = [v if isinstance(v, Tensor) else tensor(v, dtype=dtype) for v in values]
    return broadcast_tensors(*tensors)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from log-odds (`is_binary`) or from unnormalised log-probabilities along
    the last dim."""
    return sigmoid(logits) if is_binary else softmax(logits, -1)


def clamp_probs(probs: Tensor) -> Tensor:
    """`probs` clamped to [eps, 1 - eps], eps the dtype's machine epsilon."""
    eps = _dtypes.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Log-odds (`is_binary`) or log-probabilities from (clamped) probabilities."""
    clamped = clamp_probs(probs)
    if is_binary:
        return clamped.log() - (-clamped).log1p()
    return clamped.log()


class lazy_property:
    """A property computed on first access (with grad enabled) and then stored on the
    instance: a distribution given `probs` computes `logits` only when asked."""

    def __init__(self, wrapped) -> None:
        self.wrapped = wrapped
        self.__name__ = wrapped.__name__
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """`value` with its `dim` rightmost dims summed out."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def _tril_mask(n: int, diag: int) -> Tensor:
    """The n x n boolean mask of the elements on and below diagonal `diag`."""
    index = arange(n)
    return index < index.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The elements of (batched) square `mat` on and below diagonal `diag`, in row order."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The (batched) square matrix, zero above diagonal `diag`, whose elements on and below
    it are `vec` in row order: the inverse of `tril_matrix_to_vec`."""
    # the positive root of D**2 + (1+2*diag)*D - |diag| * (diag+1) - 2*vec.shape[-1] = 0
    n = (
        -(1 + 2 * diag)
        + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5
    ) / 2
    if round(n) - n > _dtypes.finfo(vec.dtype).eps:
        raise ValueError(
            f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
            "the lower triangular part of a square D x D matrix."
        )
    size = round(n)
    mat = vec.new_zeros(tuple(vec.shape[:-1]) + (size, size))
    mat[..., _tril_mask(size, diag)] = vec
    return mat
