"""The optimizers against PyTorch: same start, same gradients, same trajectory (parameters and
state within float32 tolerance; L-BFGS in float64), state_dict layouts and round trips, param
groups and closures, errors, and a compiled step equal to the eager one."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch
import autograd_compat.nn as nn
from tests._helpers.torch_compare import check_error

pytestmark = pytest.mark.torch

rng = np.random.default_rng(0)
W = rng.normal(size=(3, 4)).astype(np.float32)
B = rng.normal(size=3).astype(np.float32)
X = rng.normal(size=(5, 4)).astype(np.float32)
Y = rng.normal(size=(5, 3)).astype(np.float32)


def _pair(real_torch):
    ours, theirs = nn.Linear(4, 3), real_torch.nn.Linear(4, 3)
    with torch.no_grad():
        ours.weight.copy_(torch.tensor(W))
        ours.bias.copy_(torch.tensor(B))
    with real_torch.no_grad():
        theirs.weight.copy_(real_torch.tensor(W))
        theirs.bias.copy_(real_torch.tensor(B))
    return ours, theirs


def _loss(lib, model):
    return ((model(lib.tensor(X)) - lib.tensor(Y)) ** 2).mean()


def _assert_close(ours, theirs, atol=2e-6):
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(
            np.asarray(p.detach()), q.detach().numpy(), atol=atol, err_msg=name
        )


CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.5, amsgrad=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.1)),
]


def compare_state(state_o, state_t, atol=2e-6):
    """Two optimizer state dicts: the same param_groups, keys and order, and values (tensors
    of the same dtype within `atol`, numbers within rel 1e-5, lists element by element)."""
    assert state_o["param_groups"] == state_t["param_groups"]
    assert list(state_o["state"]) == list(state_t["state"])
    for index, entries in state_t["state"].items():
        assert list(state_o["state"][index]) == list(entries)
        for key, value in entries.items():
            mine = state_o["state"][index][key]
            if isinstance(value, list):
                assert len(mine) == len(value), key
                pairs = [(a, b) for a, b in zip(mine, value) if b is not None]
            else:
                pairs = [(mine, value)]
            for a, b in pairs:
                if isinstance(b, (int, float)):
                    assert a == pytest.approx(b, rel=1e-5), key
                    continue
                assert a.dtype.name == str(b.dtype).removeprefix("torch."), key
                np.testing.assert_allclose(np.asarray(a), b.numpy(), atol=atol, err_msg=key)


def check_trajectory(name, kwargs, real_torch, steps: int, atol: float) -> None:
    """`steps` steps of optimizer `name` on the same model in both libraries: parameters after
    each step, the final state dict and the repr agree within `atol`."""
    ours, theirs = _pair(real_torch)
    opt_o = getattr(torch.optim, name)(ours.parameters(), **kwargs)
    opt_t = getattr(real_torch.optim, name)(theirs.parameters(), **kwargs)
    for _ in range(steps):
        for lib, model, opt in ((torch, ours, opt_o), (real_torch, theirs, opt_t)):
            opt.zero_grad()
            _loss(lib, model).backward()
            opt.step()
        _assert_close(ours, theirs, atol=atol)
    compare_state(opt_o.state_dict(), opt_t.state_dict(), atol=atol)
    assert repr(opt_o) == repr(opt_t)


@pytest.mark.parametrize(
    "name,kwargs", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)]
)
def test_trajectory_matches_pytorch(name, kwargs, real_torch):
    check_trajectory(name, kwargs, real_torch, steps=5, atol=2e-6)


def test_state_dict_round_trip_continues_identically(real_torch):
    ours, theirs = _pair(real_torch)
    opt_o = torch.optim.Adam(ours.parameters(), lr=0.01)
    opt_t = real_torch.optim.Adam(theirs.parameters(), lr=0.01)
    for lib, model, opt in ((torch, ours, opt_o), (real_torch, theirs, opt_t)):
        for _ in range(2):
            opt.zero_grad()
            _loss(lib, model).backward()
            opt.step()
    saved = opt_o.state_dict()
    fresh = torch.optim.Adam(ours.parameters(), lr=0.5)
    fresh.load_state_dict(saved)
    assert fresh.param_groups[0]["lr"] == 0.01
    for lib, model, opt in ((torch, ours, fresh), (real_torch, theirs, opt_t)):
        opt.zero_grad()
        _loss(lib, model).backward()
        opt.step()
    _assert_close(ours, theirs)
    other = torch.optim.Adam([nn.Parameter(torch.zeros(1))])
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        other.load_state_dict(saved)
    two_groups = torch.optim.Adam([{"params": [ours.weight]}, {"params": [ours.bias]}])
    with pytest.raises(ValueError, match="different number of parameter groups"):
        two_groups.load_state_dict(saved)


def test_param_groups_zero_grad_and_closure(real_torch):
    ours, theirs = _pair(real_torch)
    groups_o = [{"params": [ours.weight]}, {"params": [ours.bias], "lr": 0.5, "momentum": 0.5}]
    groups_t = [{"params": [theirs.weight]}, {"params": [theirs.bias], "lr": 0.5, "momentum": 0.5}]
    opt_o = torch.optim.SGD(groups_o, lr=0.1, momentum=0.9)
    opt_t = real_torch.optim.SGD(groups_t, lr=0.1, momentum=0.9)
    for lib, model, opt in ((torch, ours, opt_o), (real_torch, theirs, opt_t)):
        for _ in range(3):

            def closure(lib=lib, model=model, opt=opt):
                opt.zero_grad()
                loss = _loss(lib, model)
                loss.backward()
                return loss

            loss = opt.step(closure)
        assert loss.item() > 0
    _assert_close(ours, theirs)
    opt_o.zero_grad(set_to_none=False)
    assert ours.weight.grad is not None and not ours.weight.grad.any()
    opt_o.zero_grad()
    assert ours.weight.grad is None
    _loss(torch, ours).backward()  # a step at the old rate: its program is kept now (the
    opt_o.step()  # bound on programs, `_pure/executables`, may have emptied the cache since)
    opt_o.zero_grad()
    update = type(opt_o)._update  # its programs: donating the parameters or not
    compiled = update.plain._cache_size() + update.donating._cache_size()
    assert compiled > 0
    opt_o.param_groups[0]["lr"] = 0.0  # a new learning rate is an input, not a recompile
    before = np.asarray(ours.weight.detach()).copy()
    _loss(torch, ours).backward()
    opt_o.step()
    np.testing.assert_array_equal(np.asarray(ours.weight.detach()), before)
    assert update.plain._cache_size() + update.donating._cache_size() == compiled
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter"):
        opt_o.add_param_group({"params": [ours.weight]})
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        torch.optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        torch.optim.Adam(ours.parameters(), lr=-1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        torch.optim.SGD([ours.weight * 2], lr=0.1)


TWELVE_STEPS = [
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
    "name,kwargs", TWELVE_STEPS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(TWELVE_STEPS)]
)
def test_twelve_step_trajectory_matches_pytorch(name, kwargs, real_torch):
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


CONSTRUCTOR_ERRORS = [
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


@pytest.mark.parametrize("case", range(len(CONSTRUCTOR_ERRORS)))
def test_constructor_errors_match_pytorch(case, real_torch):
    check_error(
        lambda t: CONSTRUCTOR_ERRORS[case](t, [t.zeros(2, requires_grad=True)] * 1 * 2), real_torch
    )


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


def test_optim_docstring_states_policy():
    doc = torch.optim.__doc__
    assert "optax is not used" in doc and "weight_decay" in doc


def test_step_hooks_run_around_the_step_and_stop_once_removed(real_torch):
    def run(lib):
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([p], lr=0.5)
        seen = []
        pre = opt.register_step_pre_hook(lambda o, args, kwargs: seen.append("pre"))
        opt.register_step_post_hook(lambda o, args, kwargs: seen.append(p.tolist()))
        for _ in range(2):
            p.grad = lib.ones(2)
            opt.step()
            pre.remove()
        return seen

    assert run(torch) == run(real_torch) == ["pre", [0.5, 0.5], [0.0, 0.0]]
