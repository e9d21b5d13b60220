"""EmbeddingBag: sums, means or maxima of bags of embeddings."""

from __future__ import annotations

from .. import functional as F
from .module import Module, store_constants
from .sparse import Embedding, lookup_options_repr, lookup_weight, pretrained_shape

__all__ = ["EmbeddingBag"]


class EmbeddingBag(Module):
    """Reduce bags of rows of a (num_embeddings, embedding_dim) weight without building them.

    The weight starts as N(0, 1); the `padding_idx` row is zero and is left out of its bag.

    Example::

        >>> bag = nn.EmbeddingBag(10, 3, mode="sum")
        >>> bag(torch.tensor([1, 2, 4, 5, 4]), torch.tensor([0, 2])).shape
        torch.Size([2, 3])
    """

    __constants__ = [
        "num_embeddings",
        "embedding_dim",
        "max_norm",
        "norm_type",
        "scale_grad_by_freq",
        "mode",
        "sparse",
        "include_last_offset",
        "padding_idx",
    ]

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        max_norm=None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        _weight=None,
        include_last_offset: bool = False,
        padding_idx=None,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        store_constants(self, locals())
        self.weight = lookup_weight(num_embeddings, embedding_dim, _weight, device, dtype)
        if _weight is None:
            self.reset_parameters()

    def reset_parameters(self) -> None:
        """N(0, 1), with the padding row zeroed: Embedding's initialization."""
        Embedding.reset_parameters(self)  # type: ignore[arg-type]

    _fill_padding_idx_with_zero = Embedding._fill_padding_idx_with_zero

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(
            input,
            self.weight,
            offsets,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.mode,
            self.sparse,
            per_sample_weights,
            self.include_last_offset,
            self.padding_idx,
        )

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}{lookup_options_repr(self)}"
        s += f", mode='{self.mode}'"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(
        cls,
        embeddings,
        freeze: bool = True,
        max_norm=None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        include_last_offset: bool = False,
        padding_idx=None,
    ) -> EmbeddingBag:
        """An EmbeddingBag whose weight is `embeddings` (frozen unless freeze=False)."""
        rows, cols = pretrained_shape(embeddings)
        bag = cls(
            num_embeddings=rows,
            embedding_dim=cols,
            _weight=embeddings,
            max_norm=max_norm,
            norm_type=norm_type,
            scale_grad_by_freq=scale_grad_by_freq,
            mode=mode,
            sparse=sparse,
            include_last_offset=include_last_offset,
            padding_idx=padding_idx,
        )
        bag.weight.requires_grad = not freeze
        return bag
