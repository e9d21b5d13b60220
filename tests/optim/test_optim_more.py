"""NAdam, RAdam, Adamax, ASGD, Rprop and LBFGS against PyTorch: the same trajectory (params and
state within float32 tolerance) over a dozen steps, state_dict layouts, errors, and one
compiled step equal to the eager one."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch
from tests._helpers.torch_compare import check_error
from tests.optim.test_optim import B, W, X, Y, check_trajectory, compare_state

pytestmark = pytest.mark.torch

CONFIGS = [
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01, maximize=True)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, foreach=False)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1, maximize=True)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01, weight_decay=0.1, maximize=True, foreach=False)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, t0=3, lambd=0.01, weight_decay=0.1, maximize=True)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.01, etas=(0.3, 1.5), step_sizes=(1e-3, 0.05), maximize=True)),
]


@pytest.mark.parametrize(
    "name,kwargs", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)]
)
def test_trajectory_matches_pytorch(name, kwargs, real_torch):
    check_trajectory(name, kwargs, real_torch, steps=12, atol=5e-6)


# step() returns the closure's loss, which requires grad: float() of it warns (in both libraries)
@pytest.mark.filterwarnings("ignore:Converting a tensor with requires_grad=True")
@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_matches_pytorch(line_search_fn, real_torch):
    """In float64, where the comparison checks the algorithm (the same iterates to 1e-9), not
    float32 rounding, which L-BFGS amplifies near convergence (differences up to 1e-3)."""
    kwargs = dict(lr=0.5, max_iter=6, history_size=4, line_search_fn=line_search_fn)

    def setup(lib):
        w = lib.tensor(W, dtype=lib.float64).requires_grad_()
        b = lib.tensor(B, dtype=lib.float64).requires_grad_()
        x, y = lib.tensor(X, dtype=lib.float64), lib.tensor(Y, dtype=lib.float64)
        opt = lib.optim.LBFGS([w, b], **kwargs)

        def closure():
            opt.zero_grad()
            loss = ((x @ w.T + b - y) ** 2).mean()
            loss.backward()
            return loss

        return opt, closure, (w, b)

    (opt_o, closure_o, params_o), (opt_t, closure_t, params_t) = setup(torch), setup(real_torch)
    for _ in range(3):
        assert float(opt_o.step(closure_o)) == pytest.approx(float(opt_t.step(closure_t)))
        for p, q in zip(params_o, params_t):
            np.testing.assert_allclose(np.asarray(p.detach()), q.detach().numpy(), atol=1e-9)
    compare_state(opt_o.state_dict(), opt_t.state_dict(), atol=1e-9)
    assert repr(opt_o) == repr(opt_t)
    fresh = torch.optim.LBFGS(params_o, **kwargs)  # the state dict round trip
    fresh.load_state_dict(opt_o.state_dict())
    assert fresh.state[params_o[0]]["n_iter"] == opt_o.state[params_o[0]]["n_iter"]
    fresh.step(closure_o)
    opt_t.step(closure_t)
    np.testing.assert_allclose(np.asarray(params_o[0].detach()), params_t[0].detach().numpy())


ERRORS = [
    lambda t, p: t.optim.NAdam(p, lr=-1.0),
    lambda t, p: t.optim.NAdam(p, momentum_decay=-1.0),
    lambda t, p: t.optim.RAdam(p, betas=(1.0, 0.9)),
    lambda t, p: t.optim.Adamax(p, eps=-1.0),
    lambda t, p: t.optim.ASGD(p, weight_decay=-1.0),
    lambda t, p: t.optim.Rprop(p, etas=(1.5, 1.2)),
    lambda t, p: t.optim.LBFGS([{"params": p[:1]}, {"params": p[1:]}]),
    lambda t, p: t.optim.LBFGS(p, lr=-1.0),
    lambda t, p: t.optim.SparseAdam(p, lr=0.0),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_constructor_errors_match_pytorch(case, real_torch):
    check_error(lambda t: ERRORS[case](t, [t.zeros(2, requires_grad=True)] * 1 * 2), real_torch)


def test_sparse_adam_refuses_dense_gradients(real_torch):
    def prog(t):
        p = t.ones(2, requires_grad=True)
        opt = t.optim.SparseAdam([p])
        (p * 2).sum().backward()
        opt.step()

    err = check_error(prog, real_torch, message="SparseAdam does not support dense gradients")
    assert "no sparse tensors" in str(err)


@pytest.mark.parametrize("name", ["NAdam", "RAdam", "Adamax", "ASGD", "Rprop"])
def test_compiled_step_equals_eager(name):
    def run(compiled: bool):
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 3)
        opt = getattr(torch.optim, name)(model.parameters(), lr=0.01)
        x, y = torch.randn(5, 4), torch.randn(5, 3)

        def step():
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            return loss

        fn = torch.compile(step) if compiled else step
        losses = [fn().item() for _ in range(3)]
        state = [v.numpy().copy() for s in opt.state.values() for v in s.values()]
        return losses, [p.detach().numpy().copy() for p in model.parameters()], state

    eager, compiled = run(False), run(True)
    for a, b in zip(eager, compiled):
        for u, v in zip(a, b):
            np.testing.assert_allclose(v, u, rtol=1e-5, atol=1e-6)
