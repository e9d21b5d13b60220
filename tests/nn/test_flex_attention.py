"""torch.nn.attention.flex_attention against real PyTorch: block tables, dense masks, the
attention and its log-sum-exp (PyTorch's CPU kernel), and gradients against PyTorch's autograd
through the same dense computation (PyTorch's flex_attention has no CPU backward)."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

import autograd_compat
from autograd_compat.nn.attention import flex_attention as ours_flex

pytestmark = [
    pytest.mark.filterwarnings("ignore:flex_attention called without torch.compile"),
    pytest.mark.filterwarnings("ignore:return_lse is deprecated:FutureWarning"),
]
RNG = np.random.default_rng(0)
Q, K, V = (
    RNG.standard_normal(s).astype(np.float32) for s in [(2, 4, 5, 8), (2, 2, 7, 8), (2, 2, 7, 6)]
)
BIAS = RNG.standard_normal((2, 4, 5, 7)).astype(np.float32)
PAD = np.array([[True] * 7, [True] * 4 + [False] * 3])


def _fa(torch):
    """The flex_attention module of either library (real PyTorch does not import it with nn)."""
    return importlib.import_module(f"{torch.__name__}.nn.attention.flex_attention")


def _mods(torch, fa):
    """A score_mod indexing a bias and using the head, and a mask of causal-or-window and
    padding, written once for both libraries."""
    bias, pad = torch.tensor(BIAS), torch.tensor(PAD)

    def score_mod(s, b, h, i, j):
        return s + bias[b, h, i, j] + torch.tanh(s) * 0.1 * h

    causal = lambda b, h, i, j: i >= j  # noqa: E731
    window = lambda b, h, i, j: (i - j).abs() <= 2  # noqa: E731
    padding = lambda b, h, i, j: pad[b, j]  # noqa: E731
    return score_mod, fa.and_masks(fa.or_masks(causal, window), padding)


def _run(torch, *, requires_grad: bool = False):
    fa = _fa(torch)
    q, k, v = (torch.tensor(a, requires_grad=requires_grad) for a in (Q, K, V))
    score_mod, mask_mod = _mods(torch, fa)
    mask = fa.create_block_mask(mask_mod, 2, None, 5, 7, device="cpu", BLOCK_SIZE=2)
    out, aux = fa.flex_attention(
        q, k, v, score_mod, mask, scale=0.3, enable_gqa=True, return_aux=fa.AuxRequest(lse=True)
    )
    tables = [
        mask.kv_num_blocks,
        mask.kv_indices,
        mask.full_kv_num_blocks,
        mask.full_kv_indices,
        mask.q_num_blocks,
        mask.q_indices,
        mask.full_q_num_blocks,
        mask.full_q_indices,
    ]
    dense = fa.create_mask(mask_mod, 2, 1, 5, 7, "cpu")
    return (q, k, v), out, aux.lse, tables, mask, dense


def test_block_mask_and_attention_match_pytorch(real_torch):
    _, out, lse, tables, mask, dense = _run(autograd_compat)
    _, t_out, t_lse, t_tables, t_mask, t_dense = _run(real_torch)
    for ours, theirs in zip(tables, t_tables):
        assert ours.dtype == autograd_compat.int32
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert mask.shape == t_mask.shape and mask.BLOCK_SIZE == t_mask.BLOCK_SIZE
    assert mask.sparsity() == pytest.approx(t_mask.sparsity())
    np.testing.assert_array_equal(mask.to_dense().numpy(), t_mask.to_dense().numpy())
    np.testing.assert_array_equal(dense.numpy(), t_dense.numpy())
    np.testing.assert_allclose(out.detach().numpy(), t_out.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lse.detach().numpy(), t_lse.numpy(), rtol=1e-5, atol=1e-6)


def _dense_reference(torch, q, k, v):
    """The attention of `_run` written as plain masked softmax attention."""
    score_mod, mask_mod = _mods(torch, _fa(torch))
    k, v = k.repeat_interleave(2, 1), v.repeat_interleave(2, 1)
    idx = [
        torch.arange(n).view(*[n if d == i else 1 for d in range(4)])
        for i, n in enumerate((2, 4, 5, 7))
    ]
    scores = score_mod(q @ k.transpose(-2, -1) * 0.3, *idx)
    scores = scores.masked_fill(~mask_mod(*idx), -math.inf)
    return torch.softmax(scores, -1) @ v, torch.logsumexp(scores, -1)


def test_gradients_match_pytorch_autograd(real_torch):
    (q, k, v), out, lse, *_ = _run(autograd_compat, requires_grad=True)
    t_q, t_k, t_v = (real_torch.tensor(a, requires_grad=True) for a in (Q, K, V))
    t_out, t_lse = _dense_reference(real_torch, t_q, t_k, t_v)
    (out.sum() + (out**2).sum() + lse.sum()).backward()
    (t_out.sum() + (t_out**2).sum() + t_lse.sum()).backward()
    for ours, theirs in zip((q, k, v), (t_q, t_k, t_v)):
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_a_row_with_nothing_to_attend_to_gives_zeros(real_torch):
    def run(torch):
        fa = _fa(torch)
        q, k, v = (torch.tensor(a[:, :2]) for a in (Q, K, V))
        mask = fa.create_block_mask(lambda b, h, i, j: i > j, None, None, 5, 7, device="cpu")
        return fa.flex_attention(q, k, v, block_mask=mask, return_lse=True)

    (out, lse), (t_out, t_lse) = run(autograd_compat), run(real_torch)
    assert not out[:, :, 0].any() and (lse[:, :, 0] == -math.inf).all()
    np.testing.assert_allclose(out.numpy(), t_out.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lse.numpy(), t_lse.numpy(), rtol=1e-5, atol=1e-6)
    q, k, v = (autograd_compat.tensor(a[:, :2]) for a in (Q, K, V))
    mask = ours_flex.create_block_mask(lambda b, h, i, j: i > j, None, None, 5, 7, device="cpu")
    request = ours_flex.AuxRequest(max_scores=True)
    aux = ours_flex.flex_attention(q, k, v, block_mask=mask, return_aux=request)[1]
    scores = (q @ k.transpose(-2, -1) / math.sqrt(8)).tril(-1)[..., :5, :]
    expected = scores.masked_fill(scores == 0, -math.inf).amax(-1)[..., 1:]
    assert aux.lse is None and (aux.max_scores[..., 0] == -math.inf).all()
    np.testing.assert_allclose(aux.max_scores[..., 1:].numpy(), expected.numpy(), rtol=1e-6)
    q = autograd_compat.zeros(1, 1, 5, 8, requires_grad=True)
    mask = ours_flex.create_block_mask(lambda b, h, i, j: i > j, None, None, 5, 5, device="cpu")
    ours_flex.flex_attention(q, q, q, block_mask=mask).sum().backward()
    assert autograd_compat.isfinite(q.grad).all()


def test_head_count_errors_match_pytorch(real_torch):
    from tests._helpers.torch_compare import check_error

    def mismatch(torch):
        q, k = torch.zeros(1, 4, 3, 8), torch.zeros(1, 3, 3, 8)
        return _fa(torch).flex_attention(q, k, k, enable_gqa=True)

    def no_gqa(torch):
        q, k = torch.zeros(1, 4, 3, 8), torch.zeros(1, 2, 3, 8)
        return _fa(torch).flex_attention(q, k, k)

    check_error(mismatch, real_torch)
    check_error(no_gqa, real_torch)


def test_sdpa_kernel_accepts_backends_and_checks_them():
    from autograd_compat.nn.attention import SDPBackend, sdpa_kernel

    q = autograd_compat.ones(1, 1, 2, 4)
    with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION]):
        out = autograd_compat.nn.functional.scaled_dot_product_attention(q, q, q)
    assert out.shape == (1, 1, 2, 4)
    with pytest.raises(AssertionError, match="instance of SDPBackend"):
        with sdpa_kernel(3):  # type: ignore[arg-type]
            pass


@pytest.mark.parametrize("dtype", ["bfloat16", "float64"])
def test_working_precision_and_result_dtypes_match_pytorch(dtype, real_torch):
    def run(torch):
        fa = _fa(torch)
        q, k, v = (torch.tensor(a[:1, :2]).to(getattr(torch, dtype)) for a in (Q, K, V))
        out, aux = fa.flex_attention(q, k, v, return_aux=fa.AuxRequest(lse=True))
        return out, aux.lse

    (out, lse), (t_out, t_lse) = run(autograd_compat), run(real_torch)
    assert (str(out.dtype), str(lse.dtype)) == (str(t_out.dtype), str(t_lse.dtype))
    tolerance = 1e-2 if dtype == "bfloat16" else 1e-12
    np.testing.assert_allclose(out.double().numpy(), t_out.double().numpy(), rtol=tolerance)
    np.testing.assert_allclose(lse.double().numpy(), t_lse.double().numpy(), rtol=tolerance)
