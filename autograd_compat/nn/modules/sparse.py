"""Embedding: a lookup table of learnable vectors."""

from __future__ import annotations

import numpy as np

from ..._state import modes as _grad_mode
from .. import _arrays, init
from .. import functional as F
from ..parameter import Parameter
from .module import Module, store_constants

__all__ = ["Embedding"]


def lookup_options_repr(module: Module) -> str:
    """The repr of an Embedding's or EmbeddingBag's max_norm, norm_type and
    scale_grad_by_freq where they differ from their defaults."""
    s = ""
    if module.max_norm is not None:
        s += f", max_norm={module.max_norm}"
    if module.norm_type != 2:
        s += f", norm_type={module.norm_type}"
    if module.scale_grad_by_freq is not False:
        s += ", scale_grad_by_freq=True"
    return s


def lookup_weight(
    num_embeddings: int, embedding_dim: int, _weight, device, dtype, requires_grad: bool = True
) -> Parameter:
    """An Embedding's or EmbeddingBag's weight: `_weight` (checked against the shape) if
    given, else uninitialized storage for reset_parameters to fill."""
    if _weight is None:
        storage = _arrays.empty((num_embeddings, embedding_dim), device=device, dtype=dtype)
        return Parameter(storage, requires_grad=requires_grad)
    if list(_weight.shape) != [num_embeddings, embedding_dim]:
        raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
    return Parameter(_weight, requires_grad=requires_grad)


def pretrained_shape(embeddings) -> tuple[int, int]:
    """(num_embeddings, embedding_dim) of a from_pretrained weight, which must be 2-D."""
    if embeddings.dim() != 2:
        raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
    rows, cols = embeddings.shape
    return rows, cols


class Embedding(Module):
    """Rows of a (num_embeddings, embedding_dim) weight, indexed by integer input.

    The weight starts as N(0, 1); the `padding_idx` row is zero and gets no gradient.

    Example::

        >>> emb = nn.Embedding(10, 3)
        >>> emb(torch.tensor([[1, 2], [4, 5]])).shape
        torch.Size([2, 2, 3])
    """

    __constants__ = [
        "num_embeddings",
        "embedding_dim",
        "padding_idx",
        "max_norm",
        "norm_type",
        "scale_grad_by_freq",
        "sparse",
    ]

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx=None,
        max_norm=None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        _weight=None,
        _freeze: bool = False,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        if padding_idx is not None:
            if padding_idx > 0:
                if padding_idx >= num_embeddings:
                    raise AssertionError("Padding_idx must be within num_embeddings")
            elif padding_idx < 0:
                if padding_idx < -num_embeddings:
                    raise AssertionError("Padding_idx must be within num_embeddings")
                padding_idx = num_embeddings + padding_idx
        store_constants(self, locals())
        self.weight = lookup_weight(
            num_embeddings, embedding_dim, _weight, device, dtype, requires_grad=not _freeze
        )
        if _weight is None:
            self.reset_parameters()

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self) -> None:
        if self.padding_idx is not None:
            with _grad_mode.no_grad():
                value = np.array(self.weight._value)
                value[self.padding_idx] = 0
                init._assign(self.weight, value)

    def forward(self, input):
        return F.embedding(
            input,
            self.weight,
            self.padding_idx,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.sparse,
        )

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        s += lookup_options_repr(self)
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(
        cls,
        embeddings,
        freeze: bool = True,
        padding_idx=None,
        max_norm=None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
    ):
        """An Embedding whose weight is `embeddings` (frozen unless freeze=False)."""
        rows, cols = pretrained_shape(embeddings)
        return cls(
            num_embeddings=rows,
            embedding_dim=cols,
            _weight=embeddings,
            _freeze=freeze,
            padding_idx=padding_idx,
            max_norm=max_norm,
            norm_type=norm_type,
            scale_grad_by_freq=scale_grad_by_freq,
            sparse=sparse,
        )
