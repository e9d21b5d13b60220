"""torch._higher_order_ops.associative_scan against PyTorch's: scans of one tensor and of a
pytree (transformers' Mamba scans its state recurrence as one), forwards and reversed, along
any dimension, of odd and even lengths, their gradients, and the argument errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.torch_compare import Corpus, check_error, run_parity

corpus = Corpus()


def _scan(lib):
    return lib._higher_order_ops.associative_scan


def _values(lib, shape, seed):
    rng = np.random.default_rng(seed)
    return lib.tensor(rng.uniform(0.5, 1.5, shape).astype(np.float32), requires_grad=True)


@corpus
def scans_and_their_gradients(torch):
    scan = _scan(torch)
    out = {}
    for length in (1, 2, 5, 8):
        x = _values(torch, (2, length, 3), length)
        a, b = _values(torch, (length, 2), 10 + length), _values(torch, (length, 2), 20 + length)

        def recurrence(left, right):
            return left[0] * right[0], right[0] * left[1] + right[1]

        sums = scan(lambda p, q: p + q, x, dim=1, combine_mode="generic")
        products = scan(lambda p, q: p * q, x, dim=-1, reverse=True, combine_mode="generic")
        states = scan(recurrence, (a, b), dim=0, combine_mode="generic")
        (sums.sum() + (products * products).sum() + states[1].sum()).backward()
        out[length] = {"sums": sums, "products": products, "states": states}
        out[length].update(x_grad=x.grad, a_grad=a.grad, b_grad=b.grad)
    return out


@pytest.mark.parametrize("prog", corpus.params())
def test_associative_scan_matches_pytorch(prog):
    run_parity(prog)


ERRORS = {
    "pointwise_on_cpu": lambda scan, x: scan(lambda p, q: p + q, x, dim=0),
    "dim_out_of_range": lambda scan, x: scan(lambda p, q: p + q, x, 3, combine_mode="generic"),
    "unknown_mode": lambda scan, x: scan(lambda p, q: p + q, x, 0, combine_mode="fast"),
    "reverse_not_bool": lambda scan, x: scan(lambda p, q: p + q, x, 0, 1, "generic"),
    "not_callable": lambda scan, x: scan(None, x, 0, combine_mode="generic"),
    "empty_scan_dim": lambda scan, x: scan(lambda p, q: p + q, x[:0], 0, combine_mode="generic"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_associative_scan_errors_match_pytorch(real_torch, name):
    check_error(lambda lib: ERRORS[name](_scan(lib), lib.ones(3, 2)), real_torch)
