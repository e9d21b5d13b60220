"""In-place ops: version counters, the saved-tensor check, the leaf rules, no_grad
updates, dtype refusal, differentiable in-place on non-leaves and through views, and the
guarantee that a failed op changes nothing. Each scenario runs on this library and on real
PyTorch and must give the same values, gradients, versions and errors."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch
from tests._helpers.torch_compare import (
    Corpus,
    Ok,
    catch,
    compare,
    grad_fn_name,
    run_parity,
)

W = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5) / 4  # shared: one compile per shape


# ----------------------------------------------------------------------------- scenarios
def inplace_values_and_versions(lib):
    x = lib.tensor(W)
    out = []
    for f in (
        lambda t: t.add_(1),
        lambda t: t.add_(t, alpha=2),
        lambda t: t.sub_(0.5),
        lambda t: t.mul_(lib.tensor(W[0])),
        lambda t: t.div_(4),
        lambda t: t.pow_(2),
        lambda t: t.zero_(),
        lambda t: t.fill_(3),
        lambda t: t.copy_(lib.tensor(W[1])),
        lambda t: t.copy_(lib.tensor(W, dtype=lib.float64)),
    ):
        r = f(x)
        out.append((r is x, x.clone(), x._version))
    y = lib.tensor(W)
    y += 1
    y -= lib.tensor(W)
    y *= 3
    y /= 2
    out.append((y, y._version))
    n = lib.arange(4)
    n += 2
    n *= 3
    out.append((n, n._version))
    return out


def inplace_on_non_leaves_is_differentiable(lib):
    w = lib.tensor(W, requires_grad=True)
    u = lib.tensor(W[0] + 2, requires_grad=True)
    a = w * 1.5
    a.add_(u)
    a.mul_(w)
    a.sub_(u * 2)
    a.div_(u)
    a.pow_(2)
    a += w
    a *= 2
    names = grad_fn_name(a)
    (a * lib.tensor(W + 3)).sum().backward()
    b = w.clone()
    b.copy_(u.expand(3, 4) * 3)
    b.sum().backward()
    c = w * 1
    c.fill_(2)
    c.sum().backward()
    return (
        a,
        names,
        w.grad,
        u.grad,
        a._version,
        grad_fn_name(c),
        c.grad_fn.next_functions[0][0].name(),
    )


def saved_tensor_modified(lib):
    w = lib.tensor(W, requires_grad=True)
    errors = []
    a = w * 1
    b = a.sin()
    a.add_(1)
    errors.append(catch(lambda: b.sum().backward()))
    a = w * 1
    b = a.sin()
    a[0].add_(1)  # through a view: the base's node is now CopySlices
    errors.append(catch(lambda: b.sum().backward()))
    a = w * 1
    v = a[0]
    b = v.sin()
    a.add_(1)  # the saved view's grad_fn is regenerated: AsStrided
    errors.append(catch(lambda: b.sum().backward()))
    a = w * 2
    a.mul_(a)  # `other` aliases self and is saved before the write
    errors.append(catch(lambda: a.sum().backward()))
    a = w * 2
    other = a[1]
    a[0].mul_(other)
    errors.append(catch(lambda: a.sum().backward()))
    a = w * 2
    a.add_(a)  # add saves nothing: fine
    a.mul_(w)  # self is saved as a snapshot (PyTorch's original_self): fine
    a.mul_(3)
    a.sum().backward()
    return errors, w.grad


def leaf_rules_and_no_grad_updates(lib):
    w = lib.tensor(W, requires_grad=True)
    errors = [
        catch(lambda: w.add_(1)),
        catch(lambda: w.mul_(2)),
        catch(lambda: w.zero_()),
        catch(lambda: w.copy_(lib.tensor(W))),
        catch(lambda: w.__iadd__(1)),
        catch(lambda: w[0].add_(1)),
        catch(lambda: w.__setitem__(0, 1.0)),
        catch(lambda: w.__setitem__([0], 1.0)),
    ]
    versions = w._version
    (w * w).sum().backward()
    with lib.no_grad():
        w -= 0.1 * w.grad
        w.add_(1)
        w.mul_(lib.tensor(W))
        w[0] = 0
    w.data.add_(1)
    w.data.mul_(w.grad)
    plain = lib.tensor(W)
    plain.add_(1)  # a leaf that does not require grad: always fine
    return errors, versions, w, w._version, w.requires_grad, w.is_leaf, grad_fn_name(w), plain


def dtype_refusals(lib):
    n = lib.arange(4)
    errors = [
        catch(lambda: n.add_(1.5)),
        catch(lambda: n.mul_(lib.tensor(W[0]))),
        catch(lambda: n[1:].add_(0.5)),
        catch(lambda: n.div_(2)),
        catch(lambda: lib.zeros(4, dtype=lib.bool).add_(1)),
        catch(lambda: lib.zeros(3).add_(lib.zeros(2, 3))),
        catch(lambda: lib.zeros(3).copy_(lib.zeros(4))),
    ]
    f = lib.tensor(W[0])
    f.add_(lib.arange(4))  # int into float: fine
    n.copy_(lib.tensor([1.7, -2.5, 3.2, 0.5]))  # copy_ casts
    return errors, n, f, n._version


def overlapping_writes(lib):
    x = lib.zeros(3)
    y = x.expand(2, 3)
    errors = [
        catch(lambda: y.add_(1)),
        catch(lambda: y.mul_(2)),
        catch(lambda: y.copy_(lib.ones(2, 3))),
        catch(lambda: y.__setitem__((slice(None), 0), 7.0)),
        catch(lambda: y.__setitem__(slice(None), lib.tensor([7.0, 8.0, 9.0]))),
    ]
    versions = x._version
    y.fill_(2)  # fills are allowed: every aliased element gets the same value
    y[0] = 5.0  # y[0] does not overlap
    y.zero_()
    y[1, 2] = 4.0
    a = lib.arange(5.0)
    errors.append(catch(lambda: a.__setitem__(slice(1, None), a[:-1])))  # partial overlap
    errors.append(catch(lambda: a.__setitem__([0, 1], a[1:3])))
    a[1:] = a[1:]  # the same elements: fine
    a[0:2] = a[::2][1:]  # strided: PyTorch does not check
    a[:] = a.view(5, 1).t()[0]
    a[1:] = a[0]  # a 0-dim value is a fill
    return errors, versions, x, y, x._version, a, a._version


def failed_ops_change_nothing(lib):
    """After any error the tensor's value, version and .grad are as before."""
    w = lib.tensor(W, requires_grad=True)
    (w * 2).sum().backward()
    a = w * 3
    n = lib.arange(12).view(3, 4)
    x = lib.zeros(3)
    y = x.expand(2, 3)
    attempts = [
        (w, lambda: w.add_(1)),
        (w, lambda: w[1:].mul_(2)),
        (w, lambda: w.__setitem__(1, lib.ones(3))),
        (a, lambda: a.__setitem__([0, 1], lib.ones(3))),
        (a, lambda: a.__setitem__(0, lib.ones(2, 4))),
        (a, lambda: a.__setitem__(slice(None), "x")),
        (a, lambda: a.add_(lib.zeros(2, 4))),
        (n, lambda: n.add_(0.5)),
        (n, lambda: n[0].mul_(lib.tensor(W[0]))),
        (n, lambda: n.__setitem__([0], lib.tensor([[1.0, 2.0, 3.0, 4.0]]))),
        (x, lambda: y.add_(1)),
        (x, lambda: y.copy_(lib.ones(2, 3))),
    ]
    out = []
    for target, attempt in attempts:
        before = (target.clone(), target._version)
        raised = catch(attempt)
        after = (target.clone(), target._version)
        out.append((raised, before, after))
    return out, w.grad, w._version, a._version


def inplace_through_views_of_non_leaves(lib):
    w = lib.tensor(W, requires_grad=True)
    s = lib.tensor(W[0], requires_grad=True)
    a = w * 2
    a[0].add_(s)
    a[:, 1].mul_(a[:, 2].clone())
    a.view(-1)[::3].zero_()
    a.t()[1:3, 1].copy_(s[:2] * 5)
    a.diagonal().div_(2)
    a.narrow(1, 0, 2).sub_(w[:, 2:])
    (a * a).sum().backward()
    return a, w.grad, s.grad, a._version, grad_fn_name(a)


def index_fill_copy_and_masked_scatter(lib):
    """index_fill(_), index_copy(_), masked_scatter(_): values, nodes, gradients (duplicate
    indices included) and PyTorch's argument errors."""
    w = lib.tensor(W, requires_grad=True)
    s = lib.tensor(W * 2 + 1, requires_grad=True)
    v = lib.tensor(0.5, requires_grad=True)
    m = lib.tensor([[True, False, True, False]])
    dup = lib.tensor([1, 3, 1])
    a = w * 1
    results = [
        a.index_fill(1, dup, -1.0),
        a.index_fill(0, lib.tensor(2), v),  # (PyTorch's backward refuses negative indices)
        a.index_copy(1, lib.tensor([3, 0]), s[:, :2]),
        a.index_copy(1, dup[:2], s[:, 1:3]),
        a.masked_scatter(m, s),
        lib.zeros(4).masked_scatter(m.expand(2, 4), lib.arange(8.0)),
    ]
    b = w * 1
    same = [
        b.index_fill_(0, lib.tensor([2]), 3.0) is b,
        b.index_copy_(0, lib.tensor([0]), s[1:2]) is b,
        b.masked_scatter_(m, s) is b,
    ]
    weights = lib.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
    total = sum((r * weights).sum() for r in results[:5]) + (b * b).sum()
    total.backward()
    z, i2 = lib.zeros(3, 4), lib.tensor([0, 1])
    negative = z.index_fill(1, lib.tensor([-1, 0]), 2.0)
    errors = [
        catch(lambda: z.index_fill(1, lib.tensor([4]), 1.0)),
        catch(lambda: z.index_fill(1, lib.tensor([1], dtype=lib.int32), 1.0)),
        catch(lambda: z.index_fill(1, lib.tensor([[1]]), 1.0)),
        catch(lambda: z.index_fill(1, i2, lib.ones(1))),
        catch(lambda: z.index_copy(1, i2, lib.ones(3, 3))),
        catch(lambda: z.index_copy(1, i2, lib.ones(3))),
        catch(lambda: z.index_copy(1, i2, lib.tensor(1.0))),
        catch(lambda: z.index_copy(1, i2[None], lib.ones(3, 2))),
        catch(lambda: z.index_copy(1, i2.int(), lib.ones(3, 2))),
        catch(lambda: z.index_copy(1, i2, lib.ones(3, 2, dtype=lib.float64))),
        catch(lambda: z.index_copy(1, i2, lib.ones(3, 3, 1)[..., 0][:, :3])),
        catch(lambda: z.index_copy(1, lib.tensor([0, -1]), lib.ones(3, 2))),
        catch(lambda: z.masked_scatter(m, lib.ones(1))),
        catch(lambda: z.masked_scatter(m.int(), lib.ones(12))),
        catch(lambda: z.masked_scatter(m, lib.ones(12, dtype=lib.float64))),
        catch(lambda: z.masked_scatter(lib.ones(3, dtype=lib.bool), lib.ones(12))),
        catch(lambda: w.index_fill_(0, i2, 1.0)),
    ]
    names = [grad_fn_name(r) for r in results[:5]] + [grad_fn_name(b)]
    return results, same, b, w.grad, s.grad, v.grad, negative, errors, names


def fill_diagonal_and_exponential(lib):
    w = lib.tensor(W, requires_grad=True)
    a = w * 2
    same = a.fill_diagonal_(0.5) is a
    (a * a).sum().backward()
    filled = [
        lib.zeros(7, 3).fill_diagonal_(1.0),
        lib.zeros(7, 3).fill_diagonal_(2.0, wrap=True),
        lib.zeros(2, 5).fill_diagonal_(1.0, wrap=True),
        lib.zeros(3, 3, 3).fill_diagonal_(lib.tensor(4.0)),
        lib.zeros(2, 2, dtype=lib.int64).fill_diagonal_(1.5),
        lib.zeros(3, 4).t().fill_diagonal_(3.0),
    ]
    base = lib.zeros(4, 4)
    base[1:, 1:].fill_diagonal_(1.0)  # through a view: the base sees it
    errors = [
        catch(lambda: lib.zeros(2, 3, 2).fill_diagonal_(1.0)),
        catch(lambda: lib.zeros(2).fill_diagonal_(1.0)),
        catch(lambda: w.fill_diagonal_(1.0)),
        catch(lambda: lib.zeros(3).exponential_(0)),
        catch(lambda: lib.zeros(3).exponential_(-1.0)),
        catch(lambda: lib.zeros(3, dtype=lib.int64).exponential_()),
    ]
    e = w * 1
    same = same and e.exponential_(2.0) is e
    sample = lib.zeros(1000).exponential_(4.0)
    stats = (bool((sample >= 0).all()), abs(sample.mean().item() - 0.25) < 0.05)
    return a, same, w.grad, grad_fn_name(a), filled, base, errors, grad_fn_name(e), stats


def saved_results_are_version_checked(lib):
    """exp, tanh, sigmoid, sqrt, relu, softmax save their result in PyTorch: changing the
    result in place fails backward, changing the input (under no_grad) does not; the same for
    their in-place forms (`y.exp_()` saves y at its new version); zero_ records ZeroBackward0."""
    out = []
    for op in ("exp", "tanh", "sigmoid", "sqrt", "relu", "softmax", "log_softmax"):
        x = lib.tensor(np.abs(W[0]) + 0.5, requires_grad=True)
        fn = (lambda t, op=op: getattr(t, op)(0)) if "softmax" in op else getattr(lib, op)
        y = fn(x)
        y.mul_(2)
        out.append(catch(lambda y=y: (y * y).sum().backward()))
        h = x * 1
        z = fn(h)
        with lib.no_grad():
            h.add_(1)
        (z * z).sum().backward()
        out.append(x.grad)
    for op in ("exp_", "sigmoid_", "tanh_", "sqrt_", "relu_"):
        x = lib.tensor(np.abs(W[1]) + 0.5, requires_grad=True)
        y = x * 1
        getattr(y, op)()
        out.append(catch(lambda y=y: y.add_(1).sum().backward()))
        z = x * 1
        getattr(z, op)()
        (z * z).sum().backward()
        out.append(x.grad)
    y = lib.tensor(W, requires_grad=True) * 1
    out.append(grad_fn_name(y.zero_()))
    return out


# The library's float32 tolerance: the u.grad of inplace_on_non_leaves_is_differentiable sums
# terms that cancel, where an ulp of rounding in a term is tens of ulps of the sum.
SCENARIOS = Corpus(
    [
        saved_results_are_version_checked,
        index_fill_copy_and_masked_scatter,
        fill_diagonal_and_exponential,
        inplace_values_and_versions,
        inplace_on_non_leaves_is_differentiable,
        saved_tensor_modified,
        leaf_rules_and_no_grad_updates,
        dtype_refusals,
        overlapping_writes,
        failed_ops_change_nothing,
        inplace_through_views_of_non_leaves,
    ]
)


@pytest.mark.parametrize("scenario", SCENARIOS.params())
def test_matches_pytorch(scenario):
    run_parity(scenario)


# ----------------------------------------------------------------------------- without torch
def test_failed_ops_leave_grad_value_and_version():
    w = torch.tensor(W, requires_grad=True)
    (w * 2).sum().backward()
    grad, value = w.grad, w.detach().clone()
    for attempt in (lambda: w.add_(1), lambda: w[0].zero_(), lambda: w.__setitem__([9], 1.0)):
        with pytest.raises((RuntimeError, IndexError)):
            attempt()
        assert w._version == 0 and w.grad is grad
        np.testing.assert_array_equal(w.detach().numpy(), value.numpy())
    a = w * 3
    with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 0 with size 4"):
        a[0, [0, 7]] = 1.0  # (PyTorch writes a[0, 0] before it raises)
    assert a._version == 0 and a.tolist()[0][0] == W[0, 0] * 3
    n = torch.arange(4)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired"):
        n[1:].add_(0.5)
    assert n.tolist() == [0, 1, 2, 3] and n._version == 0


def test_inplace_gradients_match_jax_grad():
    def pure(w, s):
        a = w * 2
        a = a.at[0].add(s)
        a = a.at[:, 1].multiply(a[:, 2])
        a = a * w
        a = a.at[1:, ::2].set(jnp.sin(a[1:, ::2]))
        return (a * a).sum()

    w = torch.tensor(W, requires_grad=True)
    s = torch.tensor(W[0], requires_grad=True)
    a = w * 2
    a[0].add_(s)
    a[:, 1].mul_(a[:, 2].clone())
    a.mul_(w)
    a[1:, ::2] = a[1:, ::2].clone().sin()  # sin would save a view that the write modifies
    (a * a).sum().backward()
    gw, gs = jax.jit(jax.grad(pure, argnums=(0, 1)))(jnp.asarray(W), jnp.asarray(W[0]))
    np.testing.assert_allclose(w.grad.numpy(), gw, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(s.grad.numpy(), gs, rtol=1e-5, atol=1e-5)


def test_optimizer_style_updates_keep_identity():
    w = torch.tensor(W, requires_grad=True)
    (w * w).sum().backward()
    grad = w.grad
    with torch.no_grad():
        w -= 0.5 * w.grad
    w.grad.zero_()
    assert w.is_leaf and w.requires_grad and w.grad is grad and w._version == 1
    np.testing.assert_allclose(w.detach().numpy(), W - 0.5 * 2 * W)
    assert grad.tolist() == [[0.0] * 4] * 3


def test_inputs_partly_overlapping_the_written_memory_are_refused(real_torch):
    """`_args.check_inplace(self, inputs)` refuses what PyTorch's in-place ops refuse: an input
    whose dense memory partly coincides with the written region (full overlap is fine, and
    non-dense layouts are not checked)."""
    from autograd_compat._tape.args import check_inplace

    cases = [
        lambda x: (x[1:], x[:-1]),
        lambda x: (x[1:], x[2]),
        lambda x: (x[1:], x[0]),
        lambda x: (x[1:], x[1:]),
        lambda x: (x, x),
        lambda x: (x[3:], x[:3]),
        lambda x: (x[::2], x[1::2]),
        lambda x: (x.view(2, 3)[:, 1:], x.view(2, 3)[:, :2]),
        lambda x: (x[2:4], x[:4].view(2, 2)[1]),
    ]
    for case in cases:
        theirs = case(real_torch.arange(6.0))
        ours = case(torch.arange(6.0))
        expected = catch(lambda t=theirs: t[0].copy_(t[1]))
        actual = catch(lambda t=ours: check_inplace(t[0], t[1:]))
        if isinstance(expected, Ok):  # PyTorch accepts the overlap, so must we
            assert isinstance(actual, Ok), actual
        else:
            assert compare(expected, actual) == []
