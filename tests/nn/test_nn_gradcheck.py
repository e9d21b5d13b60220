"""Float64 central differences (autograd.gradcheck) through the fused nn ops: no PyTorch
needed, so the derivatives are checked where the oracle is not installed."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch
import autograd_compat.nn.functional as F
from autograd_compat.autograd import gradcheck

rng = np.random.default_rng(0)


def _leaf(*shape):
    return torch.tensor(rng.normal(size=shape), dtype=torch.float64, requires_grad=True)


CASES = [
    ("conv2d", lambda x, w: F.conv2d(x, w, stride=2, padding=1), [(1, 2, 5, 5), (3, 2, 3, 3)]),
    ("max_pool2d", lambda x: F.max_pool2d(x, 2, 1), [(1, 2, 4, 4)]),
    ("batch_norm", lambda x: F.batch_norm(x, None, None, training=True), [(4, 3)]),
    ("cross_entropy", lambda x: F.cross_entropy(x, torch.tensor([0, 2, 1]),
                                                label_smoothing=0.1), [(3, 4)]),
    ("interpolate", lambda x: F.interpolate(x, size=(3, 5), mode="bilinear"), [(1, 1, 2, 3)]),
    ("gelu_softplus", lambda x: F.softplus(F.gelu(x), beta=2.0), [(5,)]),
]  # fmt: skip


@pytest.mark.parametrize("name,fn,shapes", CASES, ids=[c[0] for c in CASES])
def test_fused_op_gradients(name, fn, shapes):
    assert gradcheck(fn, [_leaf(*s) for s in shapes], eps=1e-6, atol=1e-6, fast_mode=True)
