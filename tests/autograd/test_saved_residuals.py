"""Nodes that save their forward's residuals (`_pure/residuals`): the backward reads what the
forward computed and never runs the forward again, with every saved-tensor semantic kept."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._pure.op import vjp_of
from autograd_compat._pure.residuals import pullback_of
from tests._helpers.torch_compare import check_case, check_error, run_parity

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 5))
SEQ = RNG.standard_normal((4, 2, 3))
LSTM_WEIGHTS = [RNG.standard_normal(s) * 0.5 for s in ((16, 3), (16, 4), (16,), (16,))]

OPS = {
    "tanh": lambda lib, x: lib.tanh(x),
    "sigmoid": lambda lib, x: lib.sigmoid(x),
    "exp": lambda lib, x: lib.exp(x),
    "softmax": lambda lib, x: lib.softmax(x, dim=-1),
    "relu": lambda lib, x: lib.relu(x),
    "layer_norm": lambda lib, x: lib.nn.functional.layer_norm(x, (5,)),
    "batch_norm": lambda lib, x: lib.nn.functional.batch_norm(x, None, None, training=True),
    "group_norm": lambda lib, x: lib.nn.functional.group_norm(x, 1),
}
AFFINE = [RNG.standard_normal(5), RNG.standard_normal(5)]


def _lstm(lib, x):
    """A one-layer LSTM with fixed weights: its output and final states."""
    lib.manual_seed(0)
    module = lib.nn.LSTM(3, 4).double()
    with lib.no_grad():
        for p, w in zip(module.parameters(), LSTM_WEIGHTS):
            p.copy_(lib.tensor(w))
    out, (h, c) = module(x)
    return out, h, c


def _primitives(jaxpr) -> set:
    """Every primitive's name in `jaxpr`, inside the bodies of scans and calls too."""
    names = set()
    for eqn in jaxpr.eqns:
        names.add(eqn.primitive.name)
        for param in eqn.params.values():
            for sub in param if isinstance(param, (tuple, list)) else (param,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    names |= _primitives(inner)
    return names


def _backward_primitives(result) -> set:
    """The primitives of the backward that `result`'s node runs from its residuals."""
    node = result.grad_fn
    layout = node.residuals
    assert layout is not None, f"{node.name()} saved no residuals"
    saved = node.check_saved()
    leaves = saved[: len(layout.sources)]
    cts = [jnp.ones(shape, dtype) for shape, dtype in node.out_meta]
    ct_mask = (True,) * len(cts)
    pullback = functools.partial(pullback_of(node.op).fn, layout=layout, ct_mask=ct_mask)
    return _primitives(jax.make_jaxpr(pullback)(*leaves, *cts).jaxpr)


def _primal_vjp_primitives(op, static, values) -> set:
    """The primitives of `op`'s primal-based vjp (what a node without residuals runs)."""
    out = op.fn(*values, **dict(static))
    outs = out if isinstance(out, tuple) else (out,)
    fn = functools.partial(
        vjp_of(op).fn,
        static=static,
        requires=(True,) * len(values),
        saved_mask=(True,) * len(values),
        placeholders=(),
        ct_mask=(True,) * len(outs),
    )
    return _primitives(jax.make_jaxpr(fn)(*values, *map(jnp.ones_like, outs)).jaxpr)


@pytest.mark.parametrize(
    ("name", "forward_primitive"),
    [
        ("tanh", "tanh"),
        ("sigmoid", "logistic"),
        ("exp", "exp"),
        ("softmax", "exp"),
        ("layer_norm", "rsqrt"),
        ("batch_norm", "rsqrt"),
        ("group_norm", "rsqrt"),
    ],
)
def test_backward_does_not_run_the_forward(name, forward_primitive):
    x = torch.tensor(X, dtype=torch.float32, requires_grad=True)
    y = OPS[name](torch, x)
    ours = _backward_primitives(y)
    assert forward_primitive not in ours
    node = y.grad_fn
    values = [jnp.asarray(X, jnp.float32), *node.check_saved()[len(node.residuals.sources) + 1 :]]
    primal = _primal_vjp_primitives(node.op, node.static, values)
    assert forward_primitive in primal  # (what the saved result spares)


def test_lstm_backward_has_no_forward_recurrence():
    x = torch.tensor(SEQ, requires_grad=True)
    out, _, _ = _lstm(torch, x)
    ours = _backward_primitives(out)
    assert "scan" in ours  # the transposed tangent recurrence
    assert not {"tanh", "logistic"} & ours  # no gate or cell activation is computed again


@pytest.mark.parametrize("name", sorted(OPS))
def test_gradients_match_pytorch_and_finite_differences(name, real_torch):
    op = OPS[name]
    check_case(lambda lib, x: op(lib, x) * lib.arange(5.0, dtype=lib.float64), [X], real_torch)


def test_affine_layer_norm_gradients_match_pytorch_and_finite_differences(real_torch):
    check_case(
        lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (5,), w, b), [X, *AFFINE], real_torch
    )


def test_affine_batch_norm_gradients_and_running_statistics_match_pytorch(real_torch):
    def step(lib, x, w, b):
        mean, var = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        y = lib.nn.functional.batch_norm(x, mean, var, w, b, training=True, momentum=0.3)
        return y, mean, var

    images = RNG.standard_normal((4, 3, 2, 5))
    check_case(step, [images, RNG.standard_normal(3), RNG.standard_normal(3)], real_torch)


def test_group_norm_gradients_through_output_and_statistics_match_pytorch(real_torch):
    def native(lib, x, w, b):  # (output, mean, rstd): all three differentiable
        return lib.native_group_norm(x, w, b, 2, 6, 5, 3, 1e-5)

    images = RNG.standard_normal((2, 6, 5))
    check_case(native, [images, RNG.standard_normal(6), RNG.standard_normal(6)], real_torch)


def test_lstm_gradients_match_pytorch_and_finite_differences(real_torch):
    check_case(lambda lib, x: _lstm(lib, x), [SEQ], real_torch, names=False)


def _double_backward(op, array):
    def program(torch):
        x = torch.tensor(array, requires_grad=True)
        y = op(torch, x)
        (g,) = torch.autograd.grad((y * y).sum(), x, create_graph=True)
        (gg,) = torch.autograd.grad((g * g).sum(), x)
        return {"g": g.detach(), "gg": gg}

    program.__name__ = "double_backward"
    return program


@pytest.mark.parametrize("name", sorted(OPS))
def test_double_backward_matches_pytorch(name, real_torch):
    run_parity(_double_backward(OPS[name], X))


def test_lstm_double_backward_matches_pytorch(real_torch):
    run_parity(_double_backward(lambda lib, x: _lstm(lib, x)[0], SEQ))


@pytest.mark.parametrize("name", sorted(OPS))
def test_gradgradcheck(name):
    x = torch.tensor(X, requires_grad=True)
    op = OPS[name]
    assert torch.autograd.gradcheck(lambda a: op(torch, a), (x,))
    assert torch.autograd.gradgradcheck(lambda a: op(torch, a), (x,))


@pytest.mark.parametrize(
    "norm",
    [
        lambda F, x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        lambda F, x, w, b: F.group_norm(x, 3, w, b),
    ],
    ids=["batch_norm", "group_norm"],
)
def test_normalizations_save_their_input_and_statistics_only(norm):
    # As PyTorch's: the input itself (group norm's grouped view of it is no copy) and
    # per-channel or per-group statistics, never an array of the input's size made in the
    # forward.
    x = torch.tensor(RNG.standard_normal((4, 6, 3, 2)), dtype=torch.float32, requires_grad=True)
    w = torch.ones(6, requires_grad=True)
    y = norm(torch.nn.functional, x, w, torch.zeros(6, requires_grad=True))
    node = y.grad_fn
    leaves = node.check_saved()[: len(node.residuals.sources)]
    big = [leaf for leaf in leaves if leaf.size >= x.numel()]
    assert len(big) == 1 and big[0] is x._value
    assert all(leaf.size <= 6 * 4 for leaf in leaves if leaf is not x._value)


def test_relu_keeps_its_result_not_its_input():
    x = torch.tensor(X, dtype=torch.float32, requires_grad=True)
    before = x * 2
    y = torch.relu(before)
    (saved,) = y.grad_fn.check_saved()
    assert saved is y._value  # the input (PyTorch frees it too) is not held
    assert "le" in _backward_primitives(y)  # the mask is made again from the result


@pytest.mark.parametrize("name", ["tanh", "sigmoid", "exp", "softmax", "relu"])
def test_inplace_change_of_saved_result_raises(name, real_torch):
    op = OPS[name]

    def fn(lib):
        x = lib.tensor(X, requires_grad=True)
        y = op(lib, x)
        y.mul_(2)
        y.sum().backward()

    check_error(fn, real_torch)


def test_inplace_change_of_saved_input_raises(real_torch):
    def fn(lib):
        x = lib.tensor(X, requires_grad=True) * 1
        y = lib.nn.functional.layer_norm(x, (5,))
        x.mul_(2)
        y.sum().backward()

    check_error(fn, real_torch)


def test_second_backward_and_retain_graph_keeps_residuals(real_torch):
    def program(torch):
        x = torch.tensor(X, requires_grad=True)
        y = torch.softmax(torch.tanh(x), -1) * torch.arange(5.0, dtype=torch.float64)
        y.sum().backward(retain_graph=True)
        first = x.grad.clone()
        y.sum().backward()
        try:
            y.sum().backward()
        except RuntimeError as error:
            return {"first": first, "twice": x.grad, "error": str(error)}
        return {"first": first, "twice": x.grad, "error": None}

    run_parity(program)


def test_fused_backward_reads_residuals():
    x = torch.tensor(X, dtype=torch.float32, requires_grad=True)
    w = torch.arange(5.0)
    grads = []
    for _ in range(4):  # the structure fuses from its second meeting
        x.grad = None
        (torch.softmax(torch.tanh(x) * 2, -1) * w).sum().backward()
        grads.append(x.grad.clone())
    for g in grads[1:]:
        np.testing.assert_allclose(g.numpy(), grads[0].numpy(), rtol=1e-6, atol=1e-7)


def test_saved_tensor_hooks_see_the_saved_values(real_torch):
    def program(torch):
        packed = []

        def pack(t):
            packed.append(t.detach().clone())
            return t

        x = torch.tensor(X, requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = torch.tanh(x)
        y.sum().backward()
        return {"grad": x.grad, "count": len(packed)}

    run_parity(program)


def _scan_count(jaxpr) -> int:
    """How many scans `jaxpr` runs, counting those inside its calls."""
    count = 0
    for eqn in jaxpr.eqns:
        count += eqn.primitive.name == "scan"
        for param in eqn.params.values():
            inner = getattr(param, "jaxpr", param)
            if hasattr(inner, "eqns"):
                count += _scan_count(inner)
    return count


def test_compiled_lstm_step_reads_the_saved_gates():
    """A compiled step records the LSTM layer's residual node as an eager step does: its
    program runs each layer's recurrence once forward and once transposed (a backward from the
    primals would run the forward again), with the eager step's gradients."""
    torch.manual_seed(0)
    module = torch.nn.LSTM(3, 4, 2)
    x = torch.tensor(SEQ, dtype=torch.float32)

    def step():
        module.zero_grad()
        out, _ = module(x)
        loss = out.square().sum()
        loss.backward()
        return loss

    step()
    eager = [p.grad.clone() for p in module.parameters()]
    compiled = torch.compile(step)
    for _ in range(3):  # eager, traced, then the program
        compiled()
        for ours, expected in zip(module.parameters(), eager):
            np.testing.assert_allclose(ours.grad.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
    (entry,) = compiled.entries.values()
    traced = entry.program.trace(*entry.effects.values(), *entry._tail([]))
    assert _scan_count(traced.jaxpr.jaxpr) == 2 * 2
