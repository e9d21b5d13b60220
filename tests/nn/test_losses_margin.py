"""Margin, embedding and likelihood losses against real PyTorch: values, grad_fn names and
float64 gradients (PyTorch's, jax.vjp's and finite differences), and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.torch_compare import arr, check_case, check_error

REDUCTIONS = ("mean", "sum", "none")
SIGNS = np.array([1.0, -1.0, 1.0])
SIGNS_2D = np.array([[1.0, -1.0, 1.0, -1.0], [-1.0, 1.0, 1.0, -1.0], [1.0, 1.0, -1.0, -1.0]])
CLASSES = np.array([0, 3, 1])
LABELS = np.array([[0, 2, -1, 1], [3, -1, 0, 0], [1, 0, 2, 3]])
X = arr((3, 4))
Y = arr((3, 4), seed=1)
Z = arr((3, 4), seed=2)

CASES = {
    "margin_ranking": (
        lambda t, a, b, s, r: t.nn.functional.margin_ranking_loss(a, b, s, 0.3, reduction=r),
        [X[:, 0], Y[:, 0], SIGNS],
        {"requires_grad": [True, True, False]},
    ),
    "hinge_embedding": (
        lambda t, a, s, r: t.nn.functional.hinge_embedding_loss(a, s, 0.5, reduction=r),
        [X, SIGNS_2D],
        {"requires_grad": [True, False]},
    ),
    "cosine_embedding": (
        lambda t, a, b, s, r: t.nn.functional.cosine_embedding_loss(a, b, s, 0.1, reduction=r),
        [X, Y, SIGNS],
        {"requires_grad": [True, True, False]},
    ),
    "cosine_embedding_0d": (
        lambda t, a, b, s, r: t.nn.functional.cosine_embedding_loss(a, b, s, reduction=r),
        [X[0], Y[0], np.array(-1.0)],
        {"requires_grad": [True, True, False]},
    ),
    "soft_margin": (
        lambda t, a, s, r: t.nn.functional.soft_margin_loss(a, s, reduction=r),
        [X, SIGNS_2D],
        {"requires_grad": [True, False]},
    ),
    "multilabel_soft_margin": (
        lambda t, a, s, w, r: t.nn.functional.multilabel_soft_margin_loss(
            a, s, weight=w, reduction=r
        ),
        [X, (SIGNS_2D > 0).astype(np.float64), arr((4,), "pos")],
    ),
    "multi_margin_p1": (
        lambda t, a, c, r: t.nn.functional.multi_margin_loss(a, c, reduction=r),
        [X, CLASSES],
    ),
    "multi_margin_p2_weight": (
        lambda t, a, c, w, r: t.nn.functional.multi_margin_loss(
            a, c, p=2, margin=0.7, weight=w, reduction=r
        ),
        [X, CLASSES, arr((4,), "pos")],
        {"requires_grad": [True, False, False]},
    ),
    "multi_margin_1d": (
        lambda t, a, c, r: t.nn.functional.multi_margin_loss(a, c, reduction=r),
        [X[0], np.array(2)],
    ),
    "multilabel_margin": (
        lambda t, a, c, r: t.nn.functional.multilabel_margin_loss(a, c, reduction=r),
        [X, LABELS],
    ),
    "multilabel_margin_1d": (
        lambda t, a, c, r: t.nn.functional.multilabel_margin_loss(a, c, reduction=r),
        [X[0], LABELS[0]],
    ),
    "triplet": (
        lambda t, a, p, n, r: t.nn.functional.triplet_margin_loss(a, p, n, reduction=r),
        [X, Y, Z],
    ),
    "triplet_swap_p1": (
        lambda t, a, p, n, r: t.nn.functional.triplet_margin_loss(
            a, p, n, margin=2.0, p=1, swap=True, reduction=r
        ),
        [X, Y, Z],
    ),
    "triplet_distance": (
        lambda t, a, p, n, r: t.nn.functional.triplet_margin_with_distance_loss(
            a, p, n, distance_function=lambda u, v: 1 - t.cosine_similarity(u, v), reduction=r
        ),
        [X, Y, Z],
    ),
    "triplet_distance_default_swap": (
        lambda t, a, p, n, r: t.nn.functional.triplet_margin_with_distance_loss(
            a, p, n, swap=True, margin=3.0, reduction=r
        ),
        [X, Y, Z],
    ),
    "poisson_log": (
        lambda t, a, y, r: t.nn.functional.poisson_nll_loss(a, y, reduction=r),
        [X, arr((3, 4), "nat")],
    ),
    "poisson_full": (
        lambda t, a, y, r: t.nn.functional.poisson_nll_loss(
            a, y, log_input=False, full=True, reduction=r
        ),
        [arr((3, 4), "pos"), arr((3, 4), "pos") * 2],
    ),
    "gaussian": (
        lambda t, a, y, v, r: t.nn.functional.gaussian_nll_loss(a, y, v, reduction=r),
        [X, Y, arr((3, 4), "pos")],
    ),
    "gaussian_clamped_var": (
        lambda t, a, y, v, r: t.nn.functional.gaussian_nll_loss(a, y, v, eps=0.5, reduction=r),
        [X, Y, np.concatenate([arr((3, 3), "pos"), np.full((3, 1), 0.1)], axis=1)],
        {"finite_differences": False},
    ),
    "gaussian_full_homoscedastic": (
        lambda t, a, y, v, r: t.nn.functional.gaussian_nll_loss(a, y, v, full=True, reduction=r),
        [X, Y, arr((3,), "pos")],
    ),
    "gaussian_float_var": (
        lambda t, a, y, r: t.nn.functional.gaussian_nll_loss(a, y, 0.5, reduction=r),
        [X, Y],
    ),
}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_loss_matches_torch(name, reduction, real_torch):
    fn, arrays, *options = CASES[name]
    check_case(lambda t, *xs: fn(t, *xs, reduction), arrays, real_torch, **dict(*options))


def test_pair_modules(real_torch):
    check_case(
        lambda t, a, b, s: (
            t.nn.MarginRankingLoss(margin=0.2)(a[0], b[0], s[0]),
            t.nn.CosineEmbeddingLoss(margin=0.1, reduction="sum")(a, b, s[:, 0]),
        ),
        [X, Y, SIGNS_2D],
        real_torch,
        requires_grad=[True, True, False],
    )


MODULES = [
    (lambda nn: nn.HingeEmbeddingLoss(margin=2.0), [X, SIGNS_2D]),
    (lambda nn: nn.SoftMarginLoss(reduction="none"), [X, SIGNS_2D]),
    (lambda nn: nn.PairwiseDistance(p=1.5, keepdim=True), [X, Y]),
    (lambda nn: nn.CosineSimilarity(dim=0), [X, Y]),
    (lambda nn: nn.MultiLabelSoftMarginLoss(), [X, (SIGNS_2D > 0).astype(np.float64)]),
    (lambda nn: nn.MultiMarginLoss(p=2), [X, CLASSES]),
    (lambda nn: nn.MultiLabelMarginLoss(), [X, LABELS]),
    (lambda nn: nn.PoissonNLLLoss(log_input=False), [arr((3, 4), "pos"), Y]),
]


@pytest.mark.parametrize("index", range(len(MODULES)))
def test_two_argument_modules(index, real_torch):
    module, arrays = MODULES[index]
    differentiable = [True, arrays[1] is Y]  # targets of 1 and -1 are not differentiated
    check_case(lambda t, a, b: module(t.nn)(a, b), arrays, real_torch, requires_grad=differentiable)


def test_triplet_and_gaussian_modules(real_torch):
    check_case(
        lambda t, a, p, n: (
            t.nn.TripletMarginLoss(p=3.0, swap=True)(a, p, n),
            t.nn.TripletMarginWithDistanceLoss(margin=0.5)(a, p, n),
            t.nn.GaussianNLLLoss(full=True)(a, p, n.abs()),
        ),
        [X, Y, Z],
        real_torch,
    )


def test_float32_forward(real_torch):
    check_case(
        lambda t, a, b: (
            t.nn.functional.soft_margin_loss(a, b.sign()),
            t.nn.functional.multi_margin_loss(a, t.tensor([0, 3, 1])),
            t.nn.functional.triplet_margin_loss(a, b, a * 2),
            t.margin_ranking_loss(a[0], b[0], b[1].sign()),
            t.poisson_nll_loss(a, b.abs(), True, False, 1e-8, 1),
            t.hinge_embedding_loss(a, b.sign()),
            t.cosine_embedding_loss(a, b, b[:, 0].sign(), 0.2, 2),
            t.triplet_margin_loss(a, b, a * 2, 0.5),
        ),
        [X.astype(np.float32), Y.astype(np.float32)],
        real_torch,
    )


ERRORS = [
    lambda t: t.nn.functional.multi_margin_loss(t.zeros(3, 4), t.tensor([0, 1, 4])),
    lambda t: t.nn.functional.multi_margin_loss(t.zeros(3, 4), t.tensor([0, 1])),
    lambda t: t.nn.functional.multi_margin_loss(
        t.zeros(3, 4), t.tensor([0, 1, 2]), weight=t.ones(3)
    ),
    lambda t: t.nn.functional.multi_margin_loss(t.zeros(3, 4), t.tensor([0.0, 1.0, 2.0])),
    lambda t: t.nn.functional.multi_margin_loss(t.zeros(2, 3, 4), t.tensor([0, 1])),
    lambda t: t.nn.functional.multi_margin_loss(t.zeros(3, 4), t.tensor([0, 1, 2]), p=3),
    lambda t: t.nn.functional.multilabel_margin_loss(t.zeros(2, 4), t.tensor([[0, -1, 5, 0]] * 2)),
    lambda t: t.nn.functional.multilabel_margin_loss(t.zeros(3, 4), t.tensor([[0, 1, -1]] * 3)),
    lambda t: t.nn.functional.cosine_embedding_loss(t.zeros(3, 4), t.zeros(3, 4), t.ones(3, 1)),
    lambda t: t.nn.functional.cosine_embedding_loss(t.zeros(3, 4), t.zeros(3, 4), t.ones(())),
    lambda t: t.nn.functional.margin_ranking_loss(t.zeros(3, 4), t.zeros(3, 4), t.ones(3)),
    lambda t: t.nn.functional.triplet_margin_loss(t.zeros(3, 4), t.zeros(3, 4), t.zeros(4)),
    lambda t: t.nn.functional.triplet_margin_loss(t.zeros(3), t.zeros(3), t.zeros(3), margin=0),
    lambda t: t.nn.functional.gaussian_nll_loss(t.zeros(3, 4), t.zeros(3, 4), -t.ones(3, 4)),
    lambda t: t.nn.functional.gaussian_nll_loss(t.zeros(3, 4), t.zeros(3, 4), t.ones(3, 2)),
    lambda t: t.nn.functional.gaussian_nll_loss(t.zeros(3), t.zeros(3), 1.0, reduction="x"),
    lambda t: t.nn.functional.soft_margin_loss(t.zeros(3), t.zeros(3), reduction="x"),
    lambda t: t.nn.functional.multilabel_soft_margin_loss(t.zeros(3), t.zeros(3), reduction="x"),
    lambda t: t.nn.functional.poisson_nll_loss(t.zeros(3), t.zeros(3), reduction="x"),
    lambda t: t.nn.functional.triplet_margin_with_distance_loss(
        t.zeros(3), t.zeros(3), t.zeros(3), margin=-1.0
    ),
    lambda t: t.nn.MultiMarginLoss(weight=t.ones(2, 2)),
    lambda t: t.nn.TripletMarginLoss(margin=0.0),
    lambda t: t.nn.TripletMarginWithDistanceLoss(margin=0.0),
    lambda t: t.nn.functional.soft_margin_loss(t.zeros(3), t.ones(3, requires_grad=True)),
    lambda t: t.nn.functional.multi_margin_loss(
        t.zeros(3, 4), t.tensor([0, 1, 2]), weight=t.ones(4, requires_grad=True)
    ),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
