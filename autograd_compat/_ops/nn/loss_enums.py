"""The `torch.*` forms of the losses PyTorch exposes at the top level, which take the
reduction as its enum (0 none, 1 mean, 2 sum) and no deprecated size_average/reduce.

Called without a reduction, PyTorch 2.13's parser gives these functions 0 (no reduction)
although its stubs say 1; the defaults here follow what it does.
"""

from __future__ import annotations

from .ctc import ctc_loss as _ctc_loss
from .likelihood_losses import poisson_nll_loss as _poisson_nll_loss
from .margin_losses import cosine_embedding_loss as _cosine_embedding_loss
from .margin_losses import hinge_embedding_loss as _hinge_embedding_loss
from .margin_losses import margin_ranking_loss as _margin_ranking_loss
from .margin_losses import triplet_margin_loss as _triplet_margin_loss

__all__ = [
    "cosine_embedding_loss",
    "ctc_loss",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "poisson_nll_loss",
    "triplet_margin_loss",
]

_REDUCTIONS = ("none", "mean", "sum")


def _reduction(enum: int) -> str:
    if not 0 <= enum < len(_REDUCTIONS):
        raise ValueError(f"{enum} is not a valid value for reduction")
    return _REDUCTIONS[enum]


def margin_ranking_loss(input1, input2, target, margin: float = 0.0, reduction: int = 0):
    """`F.margin_ranking_loss` with the reduction as PyTorch's enum."""
    return _margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin: float = 1.0, reduction: int = 0):
    """`F.hinge_embedding_loss` with the reduction as PyTorch's enum."""
    return _hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def cosine_embedding_loss(input1, input2, target, margin: float = 0.0, reduction: int = 0):
    """`F.cosine_embedding_loss` with the reduction as PyTorch's enum."""
    return _cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-06,
    swap: bool = False,
    reduction: int = 0,
):
    """`F.triplet_margin_loss` with the reduction as PyTorch's enum."""
    return _triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction)
    )


def poisson_nll_loss(input, target, log_input: bool, full: bool, eps: float, reduction: int):
    """`F.poisson_nll_loss` with the reduction as PyTorch's enum."""
    return _poisson_nll_loss(
        input, target, log_input, full, eps=eps, reduction=_reduction(reduction)
    )


def ctc_loss(
    log_probs,
    targets,
    input_lengths,
    target_lengths,
    blank: int = 0,
    reduction: int = 0,
    zero_infinity: bool = False,
):
    """`F.ctc_loss` with the reduction as PyTorch's enum."""
    return _ctc_loss(
        log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction),
        zero_infinity,
    )  # fmt: skip
