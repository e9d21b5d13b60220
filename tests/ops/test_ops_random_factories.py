"""Creation and random ops: logspace, tril/triu_indices, randint, randperm, normal, bernoulli,
*_like samplers, the in-place random fills, and type_as.

Random values differ from PyTorch's generator, so samples are checked for shape, dtype,
range, statistics, reproducibility under manual_seed, graph nodes and gradients (against
the reparameterization formula); deterministic factories are compared with PyTorch exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as ac
from autograd_compat._ops import random as random_ops
from tests._helpers.torch_compare import assert_same, check_error


@pytest.mark.parametrize(
    "args",
    [
        ((0, 2, 3), {}),
        ((-1, 1, 5), {"base": 2.0}),
        ((0, 1, 1), {}),
        ((0, 2, 3), {"dtype": "int64"}),
        ((1, 3, 4), {"dtype": "float64", "base": 3}),
    ],
    ids=str,
)
def test_logspace(args, real_torch):
    positional, kwargs = args

    def build(t):
        options = dict(kwargs)
        if "dtype" in options:
            options["dtype"] = getattr(t, options["dtype"])
        return t.logspace(*positional, **options)

    assert_same(
        build(ac),
        build(real_torch),
        tolerance={"torch.float32": (1e-6, 1e-5), "torch.float64": (1e-6, 1e-10)},
    )


@pytest.mark.parametrize("args", [(3, 3), (3, 4, -1), (4, 3, 1), (0, 3), (2, 2, 5)], ids=str)
def test_triangle_indices(args, real_torch):
    assert_same(ac.tril_indices(*args), real_torch.tril_indices(*args))
    assert_same(ac.triu_indices(*args), real_torch.triu_indices(*args))
    assert_same(
        ac.tril_indices(*args, dtype=ac.int32),
        real_torch.tril_indices(*args, dtype=real_torch.int32),
    )


def test_randint_forms_and_ranges():
    a = ac.randint(10, (1000,))
    assert a.dtype is ac.int64 and tuple(a.shape) == (1000,)
    assert set(a.numpy().tolist()) == set(range(10))
    b = ac.randint(-3, 4, size=(2, 500))
    assert tuple(b.shape) == (2, 500) and set(b.numpy().ravel().tolist()) == set(range(-3, 4))
    c = ac.randint(0, 5, (3,), dtype=ac.float32)
    assert c.dtype is ac.float32 and all(float(v).is_integer() for v in c.tolist())
    d = ac.randint(2, (2, 2), dtype=ac.float32, requires_grad=True)
    assert d.requires_grad and d.is_leaf
    assert ac.randint(5, ()).shape == ()


def test_randint_errors(real_torch):
    check_error(lambda t: t.randint(5, 5, (2,)), real_torch)
    check_error(lambda t: t.randint(10, (2.5,)), real_torch, message="must be tuple of ints")


def test_randperm():
    p = ac.randperm(50)
    assert p.dtype is ac.int64 and sorted(p.tolist()) == list(range(50))
    assert p.tolist() != list(range(50))
    assert ac.randperm(0).tolist() == [] and ac.randperm(0).dtype is ac.int64
    q = ac.randperm(4, dtype=ac.float32)
    assert q.dtype is ac.float32 and sorted(q.tolist()) == [0.0, 1.0, 2.0, 3.0]


def test_manual_seed_reproduces_every_sampler():
    def draw():
        x = ac.zeros(5)
        return [
            ac.randint(100, (5,)).tolist(),
            ac.randperm(6).tolist(),
            ac.normal(0.0, 1.0, (3,)).tolist(),
            ac.bernoulli(ac.full((4,), 0.5)).tolist(),
            ac.rand_like(x).tolist(),
            ac.randn_like(x).tolist(),
            ac.randint_like(x, 3, 9).tolist(),
            x.clone().normal_().tolist(),
            x.clone().uniform_(-1, 1).tolist(),
            x.clone().bernoulli_(0.3).tolist(),
            x.clone().random_(0, 7).tolist(),
        ]

    ac.manual_seed(123)
    first = draw()
    ac.manual_seed(123)
    assert draw() == first
    generator = ac.Generator().manual_seed(5)
    one = ac.randint(100, (5,), generator=generator).tolist()
    generator.manual_seed(5)
    assert ac.randint(100, (5,), generator=generator).tolist() == one


def test_normal_forms_shapes_dtypes_and_nodes(real_torch):
    mean = ac.zeros(2, 1, requires_grad=True)
    std = ac.ones(3, requires_grad=True)
    cases = [
        (ac.normal(mean, std), (2, 3), "NormalBackward3"),
        (ac.normal(mean, 2.0), (2, 1), "NormalBackward1"),
        (ac.normal(1.0, std), (3,), "NormalBackward2"),
    ]
    for out, shape, name in cases:
        assert tuple(out.shape) == shape and out.dtype is ac.float32
        assert out.grad_fn.name() == name
    fixed = ac.normal(2.0, 3.0, size=(4,))
    assert fixed.dtype is ac.float32 and fixed.grad_fn is None and tuple(fixed.shape) == (4,)
    assert ac.normal(0.0, 1.0, (2,), dtype=ac.float64).dtype is ac.float64
    assert ac.normal(ac.zeros(2, dtype=ac.float64), 1.0).dtype is ac.float64
    assert real_torch.normal(real_torch.zeros(2, 1), real_torch.ones(3)).shape == (2, 3)


def test_normal_gradients_are_pytorchs_zeros():
    """PyTorch's NormalBackward nodes give mean and std a zero gradient (the sample is not
    reparameterized; distributions' rsample is)."""
    mean = ac.tensor([[0.5], [-1.0]], dtype=ac.float64, requires_grad=True)
    std = ac.tensor([1.0, 2.0, 0.5], dtype=ac.float64, requires_grad=True)
    out = ac.normal(mean, std)
    assert type(out.grad_fn).__name__ == "NormalBackward3"
    out.backward(ac.tensor(np.arange(6.0).reshape(2, 3)))
    np.testing.assert_array_equal(mean.grad.numpy(), np.zeros((2, 1)))
    np.testing.assert_array_equal(std.grad.numpy(), np.zeros(3))


def test_normal_statistics():
    ac.manual_seed(0)
    x = ac.normal(3.0, 2.0, (20000,), dtype=ac.float64).numpy()
    assert abs(x.mean() - 3.0) < 0.1 and abs(x.std() - 2.0) < 0.1
    y = ac.zeros(20000, dtype=ac.float64).normal_(-1.0, 0.5).numpy()
    assert abs(y.mean() + 1.0) < 0.05 and abs(y.std() - 0.5) < 0.05
    u = ac.zeros(20000, dtype=ac.float64).uniform_(2, 5).numpy()
    assert 2 <= u.min() and u.max() < 5 and abs(u.mean() - 3.5) < 0.05
    b = ac.bernoulli(ac.full((20000,), 0.25)).numpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.25) < 0.02


def test_normal_errors(real_torch):
    check_error(lambda t: t.normal(0.0, -1.0, (2,)), real_torch)
    check_error(lambda t: t.normal(t.zeros(2), -1.0), real_torch)
    check_error(lambda t: t.normal(t.zeros(2), -t.ones(2)), real_torch)
    check_error(lambda t: t.normal(t.zeros(2), t.ones(3)), real_torch)
    check_error(lambda t: t.normal(t.zeros(2, dtype=t.long), 1.0), real_torch)
    check_error(lambda t: t.normal(0.0, 1.0), real_torch)


def test_bernoulli(real_torch):
    p = ac.tensor([0.0, 1.0, 0.5, 0.5], requires_grad=True)
    out = ac.bernoulli(p)
    assert out.dtype is ac.float32 and out.grad_fn.name() == "BernoulliBackward0"
    assert out.tolist()[:2] == [0.0, 1.0]
    out.sum().backward()
    assert p.grad.tolist() == [0.0, 0.0, 0.0, 0.0]
    q = ac.bernoulli(ac.zeros(3, dtype=ac.float64), 1.0)
    assert q.tolist() == [1.0, 1.0, 1.0] and q.dtype is ac.float64
    check_error(lambda t: t.bernoulli(t.full((3,), 1.5)), real_torch)
    check_error(lambda t: t.bernoulli(t.ones(2, dtype=t.long)), real_torch)

    def backward_through_p(t):
        x = t.rand(3, requires_grad=True)
        t.bernoulli(x, 0.1).sum().backward()

    check_error(backward_through_p, real_torch)


def test_like_samplers(real_torch):
    x = ac.zeros(2, 3, dtype=ac.float64)
    for fn in (ac.rand_like, ac.randn_like):
        out = fn(x)
        assert out.dtype is ac.float64 and tuple(out.shape) == (2, 3)
        assert fn(x, dtype=ac.float32).dtype is ac.float32
    r = ac.rand_like(x).numpy()
    assert (0 <= r).all() and (r < 1).all()
    i = ac.randint_like(x, 5)
    assert i.dtype is ac.float64 and i.numpy().max() < 5
    j = ac.randint_like(ac.zeros(100, dtype=ac.long), 3, 5)
    assert j.dtype is ac.int64 and set(j.tolist()) == {3, 4}
    check_error(lambda t: t.rand_like(t.zeros(2, dtype=t.long)), real_torch)
    check_error(lambda t: t.randn_like(t.zeros(2, dtype=t.long)), real_torch)


@pytest.mark.parametrize(
    ("call", "node"),
    [
        (lambda x: x.normal_(), "NormalBackward0"),
        (lambda x: x.uniform_(-1, 1), "UniformBackward0"),
        (lambda x: x.bernoulli_(0.5), "BernoulliBackward2"),
        (lambda x: x.bernoulli_(ac.full((3,), 0.5)), "BernoulliBackward1"),
        (lambda x: x.random_(), "RandomBackward2"),
        (lambda x: x.random_(5), "RandomBackward1"),
        (lambda x: x.random_(1, 5), "RandomBackward0"),
        (lambda x: x.fill_(2.0), "FillBackward2"),
    ],
)
def test_inplace_fills_in_the_graph(call, node):
    leaf = ac.ones(3, requires_grad=True)
    y = leaf * 2
    assert call(y) is y
    assert y.grad_fn.name() == node and y._version == 1
    (y * leaf).sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), y.detach().numpy())  # old value: no grad


def test_fill_with_a_tensor_value_is_differentiable(real_torch):
    def fn(t):
        v = t.tensor(3.0, requires_grad=True)
        y = t.zeros(4).fill_(v)
        (y * t.arange(4.0)).sum().backward()
        return y.grad_fn.name(), v.grad.item()

    assert fn(ac) == fn(real_torch)


def test_inplace_fill_ranges_and_dtypes():
    r = ac.zeros(2000, dtype=ac.long).random_(3, 7)
    assert set(r.tolist()) == {3, 4, 5, 6}
    f = ac.zeros(2000).random_().numpy()
    assert f.min() >= 0 and f.max() <= 2**24 and f.max() > 2**20
    assert ac.zeros(1000, dtype=ac.bool).random_().numpy().any()
    assert set(ac.zeros(1000, dtype=ac.long).bernoulli_(0.5).tolist()) == {0, 1}
    assert ac.zeros(3, dtype=ac.float64).uniform_().dtype is ac.float64


def test_inplace_fill_errors(real_torch):
    for fn in (
        lambda t: t.zeros(3, dtype=t.long).normal_(),
        lambda t: t.zeros(3, dtype=t.long).uniform_(),
        lambda t: t.zeros(3).uniform_(3, 2),
        lambda t: t.zeros(3).normal_(0, -1),
        lambda t: t.zeros(3).bernoulli_(1.5),
        lambda t: t.zeros(3).random_(5, 2),
        lambda t: t.zeros(3, requires_grad=True).normal_(),
        lambda t: t.zeros(3, requires_grad=True).uniform_(),
    ):
        check_error(fn, real_torch)


def test_inplace_fills_allowed_on_leaves_under_no_grad():
    w = ac.zeros(3, requires_grad=True)
    with ac.no_grad():
        w.normal_()
        w.uniform_(0, 1)
    assert w.requires_grad and w.is_leaf and w.grad_fn is None


def test_type_as(real_torch):
    def fn(t):
        x = t.tensor([1.5, 2.5], requires_grad=True)
        y = x.type_as(t.zeros(1, dtype=t.float64))
        z = x.type_as(t.zeros(1))
        return y.dtype, y.grad_fn.name(), z is x, x.type_as(t.zeros(1, dtype=t.long)).tolist()

    ours, theirs = fn(ac), fn(real_torch)
    assert str(ours[0]) == str(theirs[0]) and ours[1:] == theirs[1:]
    check_error(lambda t: t.zeros(2).type_as(3), real_torch, message=False)


def test_shared_small_constants_are_never_changed_by_writes():
    """Small filled tensors share one immutable array (a factory call costs no host copy);
    every kind of write rebinds the written tensor's value, so the others keep theirs."""
    a, b = ac.ones(2, 3), ac.ones(2, 3)
    assert a._value is b._value
    a.add_(1)
    a.data.mul_(3)
    b[0].fill_(7)
    c = ac.ones(2, 3)
    np.testing.assert_array_equal(a.numpy(), np.full((2, 3), 6.0))
    np.testing.assert_array_equal(b.numpy(), [[7.0] * 3, [1.0] * 3])
    np.testing.assert_array_equal(c.numpy(), np.ones((2, 3)))
    leaf = ac.zeros(4, requires_grad=True)
    with ac.no_grad():
        leaf.add_(2)
    np.testing.assert_array_equal(ac.zeros(4).numpy(), np.zeros(4))
    big = ac.zeros(5000)
    assert big._value is not ac.zeros(5000)._value  # large fills are not kept


def test_full_range_random_from_jax_keys(monkeypatch):
    """With JAX keys (a trace, an accelerator) random_() of int64 draws from [0, 2**63) and a
    range past int64's bounds works too: jax.random.randint cannot take them."""
    monkeypatch.setattr(random_ops, "PYTORCH_STREAM", False)
    drawn = ac.empty((64,), dtype=ac.int64).random_()
    assert drawn.min().item() >= 0 and drawn.max().item() > 2**40
    wide = ac.empty((64,), dtype=ac.int64).random_(-(2**63), 2**63 - 1)
    assert wide.min().item() < 0 < wide.max().item()
