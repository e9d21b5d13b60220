"""Parity programs for numerics: float16/bfloat16 keep PyTorch's result (and gradient)
dtypes and values, and log-sum-exp, softmax, cross-entropy and norms stay finite on large
and tiny inputs exactly where PyTorch's do. Programs for ops autograd_compat does not have
yet are skipped with the name of the missing op."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tests._helpers.torch_compare import Corpus, no_names, run_parity

corpus = Corpus()

HALF_OPS = {
    "exp": ("exp", lambda torch, x, y: x.exp()),
    "log": ("log", lambda torch, x, y: (x.abs() + 1).log()),
    "sin": ("sin", lambda torch, x, y: x.sin()),
    "tanh": ("tanh", lambda torch, x, y: x.tanh()),
    "sigmoid": ("sigmoid", lambda torch, x, y: x.sigmoid()),
    "relu": ("relu", lambda torch, x, y: x.relu()),
    "sqrt": ("sqrt", lambda torch, x, y: x.abs().sqrt()),
    "mul": ("mul", lambda torch, x, y: x * y),
    "sum": ("sum", lambda torch, x, y: x.sum()),
    "mean": ("mean", lambda torch, x, y: x.mean()),
    "norm": ("norm", lambda torch, x, y: x.norm()),
    "matmul": ("matmul", lambda torch, x, y: x @ y.t()),
    "logsumexp": ("logsumexp", lambda torch, x, y: torch.logsumexp(x, 1)),
    "softmax": ("nn.functional.softmax", lambda torch, x, y: torch.nn.functional.softmax(x, -1)),
    "log_softmax": (
        "nn.functional.log_softmax",
        lambda torch, x, y: torch.nn.functional.log_softmax(x, -1),
    ),
    "amax": ("amax", lambda torch, x, y: x.amax(1)),
}
HALF_X = [[0.5, -1.25, 2.0], [3.0, -0.75, 0.125]]
HALF_Y = [[1.5, 0.25, -2.0], [-0.5, 1.0, 4.0]]


def _half_program(name, dtype):
    _, fn = HALF_OPS[name]

    def prog(torch):
        d = getattr(torch, dtype)
        x = torch.tensor(HALF_X, dtype=d, requires_grad=True)
        y = torch.tensor(HALF_Y, dtype=d, requires_grad=True)
        out = fn(torch, x, y)
        weights = np.linspace(0.5, 2.0, out.numel()).reshape(tuple(out.shape))
        out.backward(torch.tensor(weights.tolist(), dtype=d))
        return {"out": out, "x": x, "y": y}

    return prog


for _name, _dtype in itertools.product(HALF_OPS, ["float16", "bfloat16"]):
    corpus.add(f"{_dtype}_{_name}", _half_program(_name, _dtype), requires=[HALF_OPS[_name][0]])


@corpus
def half_promotion_rules(torch):
    h = torch.tensor([1.5, 2.5], dtype=torch.float16)
    b = torch.tensor([1.5, 2.5], dtype=torch.bfloat16)
    return [
        h + 1.0,
        h * 2,
        h + torch.tensor(1.0),
        h + torch.tensor([1.0, 2.0]),
        h + torch.tensor(1.0, dtype=torch.float64),
        h + b,
        b + torch.tensor(3),
        h / 3,
        h.sum(dtype=torch.float32),
        h.mean(dtype=torch.float32),
        h.float(),
        h.double() * h,
    ]


@corpus
def half_arithmetic_in_float32_rounded_once(torch):
    """PyTorch's "opmath" on the CPU: a number multiplies or divides as float32 (`half * 0.1`
    is not a multiply by the half nearest 0.1; `half + 0.1` adds the half nearest 0.1), and
    alpha, lerp, addcmul and addcdiv round once; the gradients of those ops that PyTorch's
    backward computes in one rounding too."""
    grid = np.linspace(-4.0, 4.0, 97).tolist()
    out = []
    for name in ("float16", "bfloat16"):
        d = getattr(torch, name)
        x = torch.tensor(grid, dtype=d, requires_grad=True)
        y = torch.tensor(grid[::-1], dtype=d) * 0.5 + 3
        differentiated = [
            x * 0.1,
            x / 3,
            0.3 * x,
            x + 0.1,
            2.7 - x,
            x - 1.1,
            torch.add(x, y, alpha=0.3),
            torch.sub(x, y, alpha=1.7),
            torch.lerp(x, y, 0.3),
            torch.lerp(x, y, torch.full_like(x, 0.7)),
        ]
        sum(r.float().sum() for r in differentiated).backward()
        values = [
            2 ** (x / 4),
            (x.abs() + 1) ** y,
            torch.addcmul(x, x, y, value=0.3),
            torch.addcdiv(x, x, y, value=0.3),
        ]
        out += [*differentiated, *values, x.grad]
    return [r.detach().float() for r in out]


@corpus
def half_sum_accumulates_in_float32(torch):
    many = torch.ones(4096, dtype=torch.float16)
    return [
        many.sum(),
        torch.full((5000,), 20.0, dtype=torch.float16).mean(),
        torch.ones(70000, dtype=torch.float16).sum(),
        torch.full((3000,), 0.1, dtype=torch.float16).sum(),
        torch.full((3000,), 0.1, dtype=torch.bfloat16).sum(),
        many.reshape(64, 64).sum(1)[:3],
    ]


@corpus
def half_norm_does_not_overflow_squares(torch):
    return [
        torch.tensor([300.0, 400.0], dtype=torch.float16).norm(),
        torch.tensor([3e-4, 4e-4], dtype=torch.float16).norm(),
        torch.tensor([300.0, 400.0], dtype=torch.bfloat16).norm(),
    ]


NORM_INPUTS = {
    "huge": [3e20, 4e20],
    "large": [3e18, 4e18],
    "tiny": [3e-30, 4e-30],
    "small": [3e-20, 4e-20],
    "mixed": [1e30, 1e-30],
    "zeros": [0.0, 0.0],
    "inf": [float("inf"), 1.0],
}


def _norm_program(values, p):
    def prog(torch):
        x = torch.tensor(values, requires_grad=True)
        n = x.norm(p)
        n.backward()
        return {"n": n, "x": x}

    return prog


# Relative tolerance only: the values are far below the default absolute tolerance.
RELATIVE = {"torch.float32": (2e-5, 0.0)}
for (_name, _values), _p in itertools.product(NORM_INPUTS.items(), [2, 1, 3, float("inf")]):
    corpus.add(f"norm_{_name}_p{_p}", _norm_program(_values, _p), tolerance=RELATIVE)


LOGITS = {
    "large": [[1000.0, 1000.0, -1000.0], [0.0, 500.0, 1000.0]],
    "negative": [[-1000.0, -1000.0, -1001.0], [-5000.0, -5000.0, -5000.0]],
    "tiny": [[1e-30, -1e-30, 0.0], [1e-7, 2e-7, 3e-7]],
    "ordinary": [[0.5, -1.0, 2.0], [1.0, 1.0, 1.0]],
    "with_inf": [[float("-inf"), 0.0, 1.0], [float("-inf"), float("-inf"), 2.0]],
}


def _logits_program(kind, values):
    def prog(torch):
        x = torch.tensor(values, requires_grad=True)
        out = {
            "logsumexp": lambda: torch.logsumexp(x, 1),
            "softmax": lambda: torch.nn.functional.softmax(x, dim=1),
            "log_softmax": lambda: torch.nn.functional.log_softmax(x, dim=1),
            "cross_entropy": lambda: torch.nn.functional.cross_entropy(x, torch.tensor([2, 0])),
            "cross_entropy_sum": lambda: torch.nn.functional.cross_entropy(
                x, torch.tensor([0, 1]), reduction="sum"
            ),
            "cross_entropy_none": lambda: torch.nn.functional.cross_entropy(
                x, torch.tensor([1, 2]), reduction="none"
            ),
        }[kind]()
        weights = torch.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)))
        out.backward(weights.float())
        return {"out": out, "x": x}

    return prog


LOGIT_APIS = {
    "logsumexp": "logsumexp",
    "softmax": "nn.functional.softmax",
    "log_softmax": "nn.functional.log_softmax",
    "cross_entropy": "nn.functional.cross_entropy",
    "cross_entropy_sum": "nn.functional.cross_entropy",
    "cross_entropy_none": "nn.functional.cross_entropy",
}
for (_kind, _api), (_name, _values) in itertools.product(LOGIT_APIS.items(), LOGITS.items()):
    # PyTorch's float32 log-sum-exp of logits near 1000 is off by ~3e-5 relative (it rounds
    # the max-shifted sum); autograd_compat is exact there.
    corpus.add(
        f"{_kind}_{_name}",
        _logits_program(_kind, _values),
        requires=[_api],
        tolerance={"torch.float32": (1e-4, 1e-6)},
    )


@corpus.requiring("logsumexp")
def logsumexp_all_neg_inf_and_keepdim(torch):
    x = torch.tensor([[float("-inf"), float("-inf")], [0.0, float("-inf")]], requires_grad=True)
    y = torch.logsumexp(x, 1, keepdim=True)
    return {"y": y, "y0": torch.logsumexp(torch.tensor([[1e4, 1e4]]), 1)}


@corpus.requiring("nn.functional.softmax")
def softmax_float16_large(torch):
    x = torch.tensor([[60000.0, 0.0, -60000.0]], dtype=torch.float16, requires_grad=True)
    y = torch.nn.functional.softmax(x, dim=-1)
    (y * torch.tensor([[1.0, 2.0, 3.0]], dtype=torch.float16)).sum().backward()
    return {"y": y, "x": x}


ELEMENTWISE_EXTREMES = {
    "exp_large": lambda x: x.exp(),
    "sigmoid": lambda x: x.sigmoid(),
    "tanh": lambda x: x.tanh(),
    "log_tiny": lambda x: (x.abs() * 1e-30).log(),
    "sqrt": lambda x: x.abs().sqrt(),
    "pow_neg": lambda x: x.abs() ** -2,
    "div_tiny": lambda x: 1 / (x * 1e-30),
    "relu": lambda x: x.relu(),
}


def _extreme_program(name):
    def prog(torch):
        x = torch.tensor([100.0, -100.0, 0.0, 1e-30, -1e30], requires_grad=True)
        y = ELEMENTWISE_EXTREMES[name](x)
        y.sum().backward()
        return {"y": no_names(y), "x": x}

    return prog


for _name in ELEMENTWISE_EXTREMES:
    corpus.add(f"extreme_{_name}", _extreme_program(_name))


@corpus.requiring("nn.functional.binary_cross_entropy_with_logits", "nn.functional.softplus")
def stable_logistic_losses(torch):
    F = torch.nn.functional
    x = torch.tensor([1000.0, -1000.0, 0.0, 30.0], requires_grad=True)
    t = torch.tensor([1.0, 0.0, 1.0, 0.0])
    bce = F.binary_cross_entropy_with_logits(x, t)
    sp = F.softplus(x)
    (bce + sp.sum()).backward()
    return {"bce": bce, "softplus": sp, "x": x}


@corpus.requiring("nn.functional.logsigmoid")
def logsigmoid_large(torch):
    x = torch.tensor([-1000.0, 1000.0, 0.0], requires_grad=True)
    y = torch.nn.functional.logsigmoid(x)
    y.sum().backward()
    return {"y": y, "x": x}


@corpus.requiring("nn.functional.mse_loss")
def mse_loss_float16(torch):
    x = torch.tensor([1.0, 2.0, 300.0], dtype=torch.float16, requires_grad=True)
    t = torch.tensor([0.0, 2.5, 0.0], dtype=torch.float16)
    loss = torch.nn.functional.mse_loss(x, t)
    loss.backward()
    return {"loss": loss, "x": x}


# Discrepancies with PyTorch still present in the library: strict xfails (see torch_compare.Corpus).
KNOWN = {
    "mse_loss_float16": (
        "mse_loss of float16 [1, 2, 300] and [0, 2.5, 0]: PyTorch stores the squared errors in "
        "float16, 90000 overflows and the loss is inf; autograd_compat computes the whole loss "
        "in float32 (30000)"
    ),
    "norm_small_p2": (
        "norm of float32 [3e-20, 4e-20]: the squares are float32 denormals, which XLA on CPU "
        "flushes to zero: autograd_compat gives 0 and a zero gradient, PyTorch 5e-20 and [0.6, "
        "0.8]. Fix: accumulate float32 norms in float64 (or scale by max|x|)"
    ),
}


@pytest.mark.parametrize("prog", corpus.params(KNOWN))
def test_parity(prog):
    run_parity(prog)
