"""torch.func (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap, functional_call,
stack_module_state) against real torch.func: values, gradients, composition with each other
and with torch.autograd, and errors. Every program reuses the same small shapes."""

from __future__ import annotations

import logging
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch
from tests._helpers.torch_compare import Corpus, check_error, no_names, require_torch, run_parity

corpus = Corpus()


def _x(lib):
    return lib.tensor([0.5, -1.0, 2.0])


def _y(lib):
    return lib.tensor([1.5, 0.25, -0.75])


def _batch(lib):
    return lib.linspace(-1.0, 1.0, 12).reshape(4, 3)


def _model(lib, scale: float = 1.0):
    """A small MLP with deterministic parameters (the same in both libraries)."""
    model = lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.Tanh(), lib.nn.Linear(5, 2))
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.linspace(-1.0, 1.0, p.numel()).reshape(p.shape) * (0.5 + 0.1 * i) * scale)
    return model


# ----------------------------------------------------------------------------- grad
@corpus
def grad_variants(torch):
    F = torch.func
    x, y = _x(torch), _y(torch)

    def f(a, b):
        return (a.sin() * b).sum()

    return {
        "grad": F.grad(f)(x, y),
        "argnums_tuple": F.grad(f, argnums=(0, 1))(x, y),
        "argnums_negative": F.grad(f, argnums=-1)(x, y),
        "has_aux": F.grad(lambda a: ((a**2).sum(), a.cos()), has_aux=True)(x),
        "grad_and_value": F.grad_and_value(f)(x, y),
        "grad_and_value_aux": F.grad_and_value(
            lambda a: ((a**2).sum(), {"c": a.cos(), "s": (a[0],)}), has_aux=True
        )(x),
        "dict_argument": F.grad(lambda p: (p["w"] * p["b"]).sum())({"w": x, "b": y}),
        "second_order": F.grad(F.grad(lambda s: s.sin() * s**3))(torch.tensor(0.7)),
        "third_order": F.grad(F.grad(F.grad(lambda s: s.exp() * s)))(torch.tensor(0.3)),
        "detach_inside": F.grad(lambda a: (a * a.detach()).sum())(x),
        "no_grad_inside": F.grad(lambda a: (a * 2).sum() + _no_grad_sum(torch, a))(x),
        "under_no_grad": _under_no_grad(torch, x),
        "kwargs": F.grad(lambda a, scale: (a * scale).sum())(x, scale=y),
    }


def _no_grad_sum(lib, a):
    with lib.no_grad():
        return (a**3).sum()


def _under_no_grad(lib, x):
    with lib.no_grad():
        return lib.func.grad(lambda a: (a**3).sum())(x)


@corpus
def grad_composes_with_autograd(torch):
    x = _x(torch).requires_grad_()
    w = _y(torch).requires_grad_()
    g = torch.func.grad(lambda a: (a.sin() * w).sum() * (a**2).sum())(x)
    (g * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    return {"g": no_names(g), "x": x, "w": w}


@corpus
def grad_with_python_control_flow(torch):
    """A function that reads a tensor's value in Python is differentiated on the tape."""

    def f(a):
        return (a**3).sum() if a.sum() > 0 else -a.sum()

    x = _x(torch).requires_grad_()
    g, value = torch.func.grad_and_value(f)(x)
    g.sum().backward()
    return {
        "g": no_names(g),
        "value": no_names(value),
        "x": x,
        "plain": torch.func.grad(f)(-_x(torch)),
        "argnums": torch.func.grad(lambda a, b: f(a * b), argnums=(0, 1))(_x(torch), _y(torch)),
    }


@corpus
def grad_of_module_parameters(torch):
    model = _model(torch)
    batch, target = _batch(torch), torch.tensor([0, 1, 1, 0])

    def loss(params):
        out = torch.func.functional_call(model, params, (batch,))
        return torch.nn.functional.cross_entropy(out, target)

    params = dict(model.named_parameters())
    grads = torch.func.grad(loss)(params)
    loss(params).backward()  # the module's own parameters: functional_call put them back
    return {"grads": no_names(grads), "backward": {k: p.grad for k, p in params.items()}}


# ----------------------------------------------------------------------------- vjp, jvp
@corpus
def vjp_and_jvp(torch):
    F = torch.func
    x, y = _x(torch), _y(torch)
    out, vjp_fn = F.vjp(lambda a, b: (a * b, a.sin()), x, y)
    out_aux, vjp_aux, aux = F.vjp(lambda a: (a.exp(), a.sum()), x, has_aux=True)
    return {
        "vjp_out": out,
        "vjp": vjp_fn((torch.ones(3), y)),
        "vjp_aux": (out_aux, vjp_aux(y), aux),
        "vjp_dict": F.vjp(lambda d: d["a"] * d["b"], {"a": x, "b": y})[1](x),
        "jvp": F.jvp(lambda a, b: a * b.cos(), (x, y), (y, x)),
        "jvp_aux": F.jvp(lambda a: (a.exp(), {"s": a.sum()}), (x,), (y,), has_aux=True),
        "jvp_of_grad": F.jvp(F.grad(lambda a: (a**3).sum()), (x,), (y,)),
    }


# ----------------------------------------------------------------------------- Jacobians
@corpus
def jacobians(torch):
    F = torch.func
    x, y = _x(torch), _y(torch)

    def f(a, b):
        return a.sin() * b, (a * b).sum()

    def h(a, b):
        return (a**3 * b).sum() + (a * b.exp()).sum()

    return {
        "jacrev": F.jacrev(f, argnums=(0, 1))(x, y),
        "jacfwd": F.jacfwd(f, argnums=(0, 1))(x, y),
        "jacrev_aux": F.jacrev(lambda a: (a.exp(), a.sum()), has_aux=True)(x),
        "jacfwd_aux": F.jacfwd(lambda a: (a.exp(), a.sum()), has_aux=True)(x),
        "jacrev_chunked": F.jacrev(lambda a: a.tanh() * a, chunk_size=1)(x),
        "jacrev_dict_output": F.jacrev(lambda a: {"p": a * 2, "q": a.cos()})(x),
        "jacrev_of_jacfwd": F.jacrev(F.jacfwd(lambda a: a.sin() * a.sum()))(x),
        "jacfwd_of_jacrev": F.jacfwd(F.jacrev(lambda a: a.sin() * a.sum()))(x),
        "hessian": F.hessian(lambda a: (a**3).sum() * a[0])(x),
        "hessian_argnums": F.hessian(h, argnums=(0, 1))(x, y),
    }


# ----------------------------------------------------------------------------- vmap
@corpus
def vmap_variants(torch):
    F = torch.func
    x, batch = _x(torch), _batch(torch)
    cube = torch.arange(24.0).reshape(2, 3, 4)
    return {
        "dot": torch.vmap(torch.dot)(batch, batch),
        "in_dims_none": F.vmap(lambda a, b: a * b, in_dims=(0, None))(batch, x),
        "in_dims_1": F.vmap(lambda a: a * 2, in_dims=1)(batch),
        "in_dims_negative": F.vmap(lambda a: a.sum(0), in_dims=-1, out_dims=-1)(cube),
        "out_dims_1": F.vmap(lambda a: a.cos(), out_dims=1)(batch),
        "outer_product": F.vmap(F.vmap(lambda a, b: a * b, (None, 0)), (0, None))(x, x),
        "nested_dims": F.vmap(F.vmap(lambda a: a.sin(), in_dims=1, out_dims=0), 0, 1)(cube),
        "nested_in_dims": F.vmap(lambda p, q: p[0] + p[1] * q, in_dims=((0, None), 0))(
            (batch, x), batch
        ),
        "dict_input": F.vmap(lambda d: d["a"] * d["b"])({"a": batch, "b": batch}),
        "tuple_out_dims": F.vmap(lambda a: (a.sum(), a * 2, 7), out_dims=(0, 1, None))(batch),
        "kwargs_not_mapped": F.vmap(lambda a, scale: a * scale)(batch, scale=x),
        "chunk_size": F.vmap(lambda a: a.exp().sum(), chunk_size=3)(batch),
        "chunk_size_out_dims": F.vmap(lambda a: a * 3, out_dims=1, chunk_size=2)(batch),
        "integer_output": F.vmap(lambda a: a.argmax())(batch),
        "constant_output": F.vmap(lambda a: torch.ones(2))(batch),
        "grad": F.vmap(F.grad(lambda a: (a.sin() * a).sum()))(batch),
        "jacrev": F.vmap(F.jacrev(lambda a: a.sin() * a.sum()))(batch),
        "randomness_same_accepted": F.vmap(lambda a: a * 2, randomness="same")(batch),
        "grad_of_vmap": F.grad(lambda b: F.vmap(lambda r: (r.sin() * r).sum())(b).sum())(batch),
        "jacrev_of_vmap": F.jacrev(F.vmap(lambda r: r.exp() * r[0]))(batch[:2]),
        "jvp_of_vmap": F.jvp(F.vmap(lambda r: r.cos() * r), (batch,), (batch,)),
        "vmap_of_vjp": F.vmap(lambda r: F.vjp(torch.sin, r)[1](r)[0])(batch),
        "vmap_of_jvp": F.vmap(lambda r: F.jvp(torch.sin, (r,), (r,))[1])(batch),
        "inplace_on_intermediate": F.vmap(lambda a: (a * 2).add_(1))(batch),
        "empty_batch": F.vmap(lambda a, b: a * 2 + b)(batch[:0], batch[:0]),
        "empty_batch_dim_1": F.vmap(lambda a: a @ a.T, in_dims=1, out_dims=1)(cube[:, :0]),
    }


@corpus
def vmap_composes_with_autograd(torch):
    batch = _batch(torch).requires_grad_()
    w = _x(torch).requires_grad_()
    out = torch.vmap(lambda a: (a * w).tanh().sum())(batch)
    (out * torch.arange(4.0)).sum().backward()
    return {"out": no_names(out), "batch": batch, "w": w}


@corpus
def per_example_gradients(torch):
    """vmap(grad) of a loss through functional_call: per-example gradients, and the same by
    a backward per example."""
    F = torch.func
    model = _model(torch)
    batch, target = _batch(torch), torch.tensor([0, 1, 1, 0])
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, sample, label):
        out = F.functional_call(model, p, (sample.unsqueeze(0),))
        return torch.nn.functional.cross_entropy(out, label.unsqueeze(0))

    per_example = F.vmap(F.grad(loss), in_dims=(None, 0, 0))(params, batch, target)
    looped = []
    for i in range(4):
        model.zero_grad()
        torch.nn.functional.cross_entropy(model(batch[i : i + 1]), target[i : i + 1]).backward()
        looped.append({k: p.grad.clone() for k, p in model.named_parameters()})
    return {"vmap_grad": per_example, "loop": looped, "keys": list(per_example)}


@corpus
def ensemble_with_stack_module_state(torch):
    F = torch.func
    models = [_model(torch, scale) for scale in (1.0, -0.5, 2.0)]
    models[1].eval()
    models[1].train()
    params, buffers = F.stack_module_state(models)

    def call(p, b, data):
        return F.functional_call(models[0], (p, b), (data,))

    out = F.vmap(call, in_dims=(0, 0, None))(params, buffers, _batch(torch))
    out.sum().backward()
    return {
        "out": no_names(out),
        "params": params,
        "names": list(params),
        "each": [m(_batch(torch)).detach() for m in models],
    }


# ----------------------------------------------------------------------------- functional_call
@corpus
def functional_call_variants(torch):
    F = torch.func
    nn = torch.nn
    batch = _batch(torch)

    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(3, 3, bias=False)
            self.b = nn.Linear(3, 3, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    tied = Tied()
    with torch.no_grad():
        tied.a.weight.copy_(torch.linspace(0.0, 1.0, 9).reshape(3, 3))
    weight = torch.linspace(-1.0, 1.0, 9).reshape(3, 3)
    norm = nn.BatchNorm1d(3).eval()
    stats = {"running_mean": _x(torch), "running_var": _y(torch).abs() + 0.5}
    affine = {"weight": _y(torch), "bias": _x(torch)}
    model = _model(torch)
    before = model[0].weight.detach().clone()
    first = dict(model.named_parameters())
    first = {k: v * 2 for k, v in first.items()}
    return {
        "tied": F.functional_call(tied, {"a.weight": weight}, batch),
        "untied": F.functional_call(tied, {"a.weight": weight}, (batch,), tie_weights=False),
        "tuple_of_dicts": F.functional_call(norm, (affine, stats), (batch,)),
        "strict": F.functional_call(
            norm, {**affine, **stats, "num_batches_tracked": torch.tensor(0)}, batch, strict=True
        ),
        "kwargs": F.functional_call(model, first, (), {"input": batch}),
        "restored": torch.equal(model[0].weight.detach(), before),
    }


@corpus
def autograd_functional_updates_buffers_as_pytorch(torch):
    """A function that updates a module's buffers (batch norm in training) runs on the tape
    in autograd.functional (which shares the trace with torch.func), updating them once."""
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    with torch.no_grad():
        model[0].weight.copy_(torch.linspace(-1.0, 1.0, 6).reshape(2, 3))
        model[0].bias.copy_(torch.tensor([0.1, -0.2]))
    jacobian = torch.autograd.functional.jacobian(model, _batch(torch))
    return {"jacobian": jacobian, "buffers": dict(model[1].named_buffers())}


# ----------------------------------------------------------------------------- errors
ERRORS = {
    "grad_non_scalar": lambda t: t.func.grad(lambda a: a * 2)(_x(t)),
    "grad_not_tensor": lambda t: t.func.grad(lambda a: 1.0)(_x(t)),
    "grad_aux_not_tensors": lambda t: t.func.grad(lambda a: (a.sum(), 3), has_aux=True)(_x(t)),
    "grad_aux_not_pair": lambda t: t.func.grad(lambda a: a.sum(), has_aux=True)(_x(t)),
    "grad_argnum_range": lambda t: t.func.grad(lambda a: a.sum(), argnums=2)(_x(t)),
    "grad_argnums_repeated": lambda t: t.func.grad(lambda a, b: a.sum(), argnums=(0, 0))(
        _x(t), _y(t)
    ),
    "grad_argnums_list": lambda t: t.func.grad(lambda a: a.sum(), argnums=[0])(_x(t)),
    "grad_argnums_empty": lambda t: t.func.grad(lambda a: a.sum(), argnums=())(_x(t)),
    "grad_integer_input": lambda t: t.func.grad(lambda a: a.sum())(t.tensor([1, 2])),
    "grad_non_tensor_input": lambda t: t.func.grad(lambda a: a)(2.0),
    "vjp_integer_output": lambda t: t.func.vjp(lambda a: a.argmax(), _x(t)),
    "vjp_non_tensor_output": lambda t: t.func.vjp(lambda a: (a, 1), _x(t)),
    "jvp_primals_not_tuple": lambda t: t.func.jvp(lambda a: a, _x(t), (_x(t),)),
    "jvp_tangent_size": lambda t: t.func.jvp(lambda a: a, (_x(t),), (t.ones(2),)),
    "jacrev_chunk_size": lambda t: t.func.jacrev(lambda a: a, chunk_size=0)(_x(t)),
    "vmap_sizes": lambda t: t.vmap(t.mul)(_batch(t), t.ones(3, 4)),
    "vmap_non_tensor": lambda t: t.vmap(lambda a, n: a * n)(_batch(t), 2),
    "vmap_dim_range": lambda t: t.vmap(lambda a: a, in_dims=2)(_batch(t)),
    "vmap_no_inputs": lambda t: t.vmap(lambda: 1)(),
    "vmap_no_tensor": lambda t: t.vmap(lambda a: a, in_dims=None)(_batch(t)),
    "vmap_in_dims_type": lambda t: t.vmap(lambda a: a, in_dims=[0])(_batch(t)),
    "vmap_randomness": lambda t: t.vmap(lambda a: a, randomness="other"),
    "vmap_random_draw": lambda t: t.vmap(lambda a: a + t.rand(3))(_batch(t)),
    "vmap_chunk_size": lambda t: t.vmap(lambda a: a, chunk_size=0),
    "vmap_out_dims_none": lambda t: t.vmap(lambda a: a * 2, out_dims=None)(_batch(t)),
    "vmap_out_not_tensor": lambda t: t.vmap(lambda a: (a, 1))(_batch(t)),
    "functional_call_strict": lambda t: t.func.functional_call(
        _model(t), {"0.weight": t.ones(5, 3)}, _batch(t), strict=True
    ),
    "functional_call_repeated": lambda t: t.func.functional_call(
        _model(t), ({"0.bias": t.ones(5)}, {"0.bias": t.ones(5)}), _batch(t)
    ),
    "functional_call_not_dict": lambda t: t.func.functional_call(_model(t), 3, _batch(t)),
    "stack_no_models": lambda t: t.func.stack_module_state([]),
    "stack_mixed_modes": lambda t: t.func.stack_module_state([_model(t), _model(t).eval()]),
}
# PyTorch prints pytree specs in its own notation: compare the sentence before it.
PARTIAL = {
    "jvp_structure": (
        lambda t: t.func.jvp(lambda a, b: a, (_x(t), _y(t)), (_x(t),)),
        "Expected primals and tangents to have the same python structure",
    ),
    "vjp_cotangent_structure": (
        lambda t: t.func.vjp(lambda a: (a, a), _x(t))[1](_x(t)),
        "Expected pytree structure of cotangents to be the same as pytree structure of outputs",
    ),
}


@pytest.fixture(scope="module")
def torch_forward_ad_ready():
    """PyTorch's first forward-mode call prepares its decompositions, warning that
    torch.jit.script is deprecated: done once here, so the programs compare their own
    warnings."""
    real_torch = require_torch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        real_torch.func.jvp(real_torch.sin, (real_torch.ones(1),), (real_torch.ones(1),))


@pytest.mark.parametrize("prog", corpus.params())
def test_matches_torch_func(prog, torch_forward_ad_ready):
    run_parity(prog)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_pytorch(real_torch, name):
    check_error(ERRORS[name], real_torch)


@pytest.mark.parametrize("name", sorted(PARTIAL))
def test_structure_errors_match_pytorch(real_torch, name):
    fn, sentence = PARTIAL[name]
    check_error(fn, real_torch, message=sentence)


# ----------------------------------------------------------------------------- ours only
def test_hessian_against_jax_and_finite_differences():
    """float64: torch.func.hessian against jax.hessian of the same function written in jnp,
    and against central differences of torch.func.grad."""
    x0 = np.array([0.3, -0.8, 1.1])

    def f(a):
        return (a.sin() * a**2).sum() * a[1]

    def f_jax(a):
        return (jnp.sin(a) * a**2).sum() * a[1]

    x = torch.tensor(x0, dtype=torch.float64)
    ours = torch.func.hessian(f)(x).numpy()
    np.testing.assert_allclose(ours, jax.hessian(f_jax)(x0), rtol=1e-12)
    g = torch.func.grad(f)
    eps = 1e-6
    columns = []
    for i in range(3):
        step = torch.tensor(np.eye(3)[i] * eps, dtype=torch.float64)
        columns.append(((g(x + step) - g(x - step)) / (2 * eps)).numpy())
    np.testing.assert_allclose(ours, np.stack(columns, axis=1), rtol=1e-6, atol=1e-8)


def test_vmap_randomness_same_and_different_advance_the_generator():
    batch = _batch(torch)
    torch.manual_seed(1)
    before = torch.default_generator.get_state().numpy().copy()
    same = torch.vmap(lambda a: a * 0 + torch.rand(3), randomness="same")(batch)
    different = torch.vmap(lambda a: a * 0 + torch.rand(3), randomness="different")(batch)
    assert (same == same[0]).all()
    assert len({tuple(row.tolist()) for row in different}) == 4
    assert not np.array_equal(torch.default_generator.get_state().numpy(), before)
    torch.manual_seed(1)
    assert torch.equal(torch.vmap(lambda a: torch.rand(3), randomness="same")(batch), same)


def test_dropout_under_grad_draws_one_mask_and_leaves_no_tracer():
    drop = torch.nn.Dropout(0.5)
    g = torch.func.grad(lambda a: drop(a).sum())(torch.ones(50))
    assert set(g.tolist()) == {0.0, 2.0}
    assert isinstance(torch.rand(2).numpy(), np.ndarray)  # the generator holds an array
    out, vjp_fn = torch.func.vjp(drop, torch.ones(50))
    assert torch.equal(vjp_fn(torch.ones(50))[0], out)  # the backward reuses the forward's mask


def test_a_repeated_call_compiles_once():
    """The transform of a function traced again to the same jaxpr is not compiled again."""
    f = torch.func.vmap(torch.func.grad(lambda a: (a.sin() * a).sum()))
    f(_batch(torch))
    batch = _batch(torch) * 2
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("jax")
    logger.addHandler(handler)
    try:
        with jax.log_compiles():
            f(batch)
    finally:
        logger.removeHandler(handler)
    assert not [r for r in records if "Compiling" in r.getMessage()]


def test_untraceable_function_inside_a_trace_says_why():
    """vmap (and any transform inside another) needs one trace of the function."""
    with pytest.raises(RuntimeError, match=r"vmap\(<lambda>, \.\.\.\): autograd_compat runs"):
        torch.vmap(lambda a: a * a.sum().item())(_batch(torch))
    inner = torch.func.grad(lambda a: (a**2).sum() if a.sum() > 0 else a.sum())
    with pytest.raises(RuntimeError, match="cannot be traced"):
        torch.vmap(inner)(_batch(torch))


def test_functions_differing_in_an_op_or_a_constant_are_not_confused():
    """The cache of transformed ops is keyed by the jaxpr (nested jaxprs by identity)."""
    x = _x(torch)
    results = [
        torch.func.grad(f)(x)
        for f in (
            lambda a: (a * 2).sum(),
            lambda a: (a * 3).sum(),
            lambda a: (a.sin()).sum(),
            lambda a: (a.cos()).sum(),
            lambda a: (a**2).sum(),
            lambda a: (a**3).sum(),
        )
    ]
    expected = [2 + 0 * x, 3 + 0 * x, x.cos(), -x.sin(), 2 * x, 3 * x**2]
    for ours, want in zip(results, expected):
        assert torch.allclose(ours, want)


def test_writes_to_module_buffers_inside_vmap_raise_and_leave_no_tracer():
    """PyTorch refuses batched writes into a module's buffers; the buffers keep arrays."""
    norm = torch.nn.BatchNorm1d(3)
    with pytest.raises(RuntimeError, match="in-place writes to tensors the function did not"):
        torch.vmap(lambda r: norm(r.unsqueeze(0).expand(2, 3)))(_batch(torch))
    for buffer in norm.buffers():
        assert not isinstance(buffer._value, jax.core.Tracer)
    assert norm.num_batches_tracked.item() == 0
    norm.eval()  # reading the buffers is fine
    out = torch.vmap(lambda r: norm(r.unsqueeze(0)))(_batch(torch))
    assert torch.allclose(out[:, 0], _batch(torch) / (1 + 1e-5) ** 0.5)
