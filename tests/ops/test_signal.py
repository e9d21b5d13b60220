"""torch.signal.windows against real PyTorch: every window, symmetric and periodic, in
float32 and float64, the short lengths 0 to 2, and PyTorch's argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat
from tests._helpers.torch_compare import assert_same, check_error

WINDOWS = {
    "bartlett": {},
    "blackman": {},
    "cosine": {},
    "exponential": {"tau": 2.5},
    "gaussian": {"std": 0.7},
    "general_cosine": {"a": [0.5, 0.3, 0.2]},
    "general_hamming": {"alpha": 0.6},
    "hamming": {},
    "hann": {},
    "kaiser": {"beta": 5.0},
    "nuttall": {},
}


def _windows(lib, name: str, kwargs: dict) -> list:
    window = getattr(lib.signal.windows, name)
    out = []
    for dtype in (lib.float32, lib.float64):
        for sym in (True, False):
            for M in (0, 1, 2, 7):
                out.append(window(M, sym=sym, dtype=dtype, **kwargs))
    return out


@pytest.mark.parametrize("name", sorted(WINDOWS))
def test_window_matches_torch(name, real_torch):
    assert_same(
        _windows(autograd_compat, name, WINDOWS[name]), _windows(real_torch, name, WINDOWS[name])
    )


def test_exponential_center_and_requires_grad(real_torch):
    def prog(lib):
        w = lib.signal.windows.exponential(6, center=1.5, sym=False, requires_grad=True)
        h = lib.signal.windows.hann(5, requires_grad=True)
        return w, h, w.requires_grad, h.is_leaf

    assert_same(prog(autograd_compat), prog(real_torch))
    assert np.isclose(autograd_compat.signal.windows.hann(5)[2].item(), 1.0)


ERRORS = [
    lambda t: t.signal.windows.hann(-1),
    lambda t: t.signal.windows.hann(4, dtype=t.int64),
    lambda t: t.signal.windows.gaussian(4, std=0.0),
    lambda t: t.signal.windows.exponential(4, tau=0.0),
    lambda t: t.signal.windows.exponential(4, center=1.0),
    lambda t: t.signal.windows.kaiser(4, beta=-1.0),
    lambda t: t.signal.windows.general_cosine(4, a=[]),
    lambda t: t.signal.windows.general_cosine(4, a=3),
    lambda t: t.signal.windows.blackman(4, layout=t.sparse_coo),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
