"""Views: view ops share memory with their base, in both directions and through
every other view; `_base`, `_version`, strides and contiguity; gradients through views,
CopySlices and regenerated AsStrided grad_fns. Each scenario runs on this library and on real
PyTorch and must give the same values, gradients, versions, node names and errors."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch
from tests._helpers.torch_compare import Corpus, grad_fn_name, run_parity, uniform

W = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5) / 4  # shared: one compile per shape


# ----------------------------------------------------------------------------- scenarios
def view_ops_share_memory(lib):
    x = lib.tensor(W)
    views = [
        x.view(12),
        x.view(2, -1),
        x.t(),
        x.mT,
        x.transpose(0, 1),
        x.unsqueeze(1),
        x[None].squeeze(0),
        x[1].expand_as(x),
        x.narrow(1, 1, 2),
        x.select(1, -1),
        x.diagonal(),
        x.diagonal(1),
        x[1:, ::2],
        x[..., 1],
        x[-1],
        x.view_as(x),
        x.detach(),
        x.data,
    ] + list(x.unbind(1))
    x.add_(1)  # every view sees a change of the base
    bases = [v._base is x for v in views]
    versions = [v._version for v in views]
    return (x, *views, bases, versions)


def write_through_each_view(lib):
    out = []
    makers = [
        lambda x: x.view(12)[3:7],
        lambda x: x.t()[1],
        lambda x: x.permute(1, 0)[:, 1],
        lambda x: x.narrow(1, 1, 2),
        lambda x: x.diagonal(1),
        lambda x: x[::2, 1::2],
        lambda x: x.reshape(2, 6).t()[2:5],
        lambda x: x.unbind(0)[1],
    ]
    for make in makers:
        x = lib.tensor(W)
        other = x[:, 1:3]  # another live view sees the write too
        v = make(x)
        v.mul_(10)
        v.add_(v.clone())
        out.append((x, other, v, x._version, v._version, other._version, v._base is x))
    return out


def base_base_and_versions(lib):
    x = lib.tensor(W)
    v = x[0]
    vv = v[1:]
    d = x.detach()
    dv = d[1]
    data = x.data
    before = [t._version for t in (x, v, vv, d, dv, data)]
    vv.add_(1)
    data.mul_(2)
    after = [t._version for t in (x, v, vv, d, dv, data)]
    return (
        x,
        v,
        dv,
        before,
        after,
        x._base is None,
        vv._base is x,
        d._base is None,
        dv._base is d,
        data._base is None,
        x[0].detach()._base is None,
        x.data[0]._base is not None,
    )


def strides_and_contiguity(lib):
    x = lib.zeros(3, 4)
    cases = [
        x,
        x.t(),
        x[:, 1::2],
        x[1:],
        x.unsqueeze(1),
        x[:, :1].expand(3, 4),
        x.expand(2, 3, 4),
        x.diagonal(),
        x.t().unsqueeze(0),
        lib.zeros(2, 3, 4).diagonal(1, 2, 0),
        x.t()[1:, 1],
        x.reshape(2, 6),
        x.t().reshape(4, 3),
        x[:, 1:3].reshape(3, 2, 1),
    ]
    return [(c.stride(), c.storage_offset(), c.is_contiguous()) for c in cases]


def reshape_view_or_copy(lib):
    w = lib.tensor(W, requires_grad=True)
    t = w.t()
    out = []
    for r in (w.reshape(12), t.reshape(4, 3), t.reshape(12), w[:, :2].reshape(6), t.contiguous()):
        out.append((r, grad_fn_name(r), r._base is not None))
    out.append(t.contiguous().grad_fn.next_functions[0][0].name())
    out.append(t.reshape(12).grad_fn.next_functions[0][0].name())
    c = t.contiguous()
    x = lib.tensor(W)
    y = x.t().reshape(12)
    y.add_(100)  # a copy: the base is unchanged
    z = x.reshape(12)
    z.add_(1)
    return out, c._base is None, x, y, z


def view_errors(lib):
    x = lib.zeros(3, 4)
    errors = []
    for f in (
        lambda: x.t().view(12),
        lambda: x.view(5),
        lambda: x.view(-1, -1),
        lambda: x.reshape(5),
        lambda: x.expand(2, 4),
        lambda: x.expand(4),
        lambda: x[:, :1].expand(-1, -1, 4),
        lambda: x.expand(3, 4, -1),
        lambda: x.permute(0),
        lambda: x.permute(0, 0),
        lambda: x.permute(0, 2),
        lambda: x.unsqueeze(3),
        lambda: x.squeeze(2),
        lambda: x.squeeze((0, 0)),
        lambda: x.diagonal(0, 0, 0),
        lambda: x.narrow(1, 2, 3),
        lambda: x.narrow(1, 5, 0),
        lambda: x.narrow(1, 0, -1),
        lambda: x.select(1, 9),
        lambda: x.select(1, -9),
        lambda: lib.tensor(1.0).select(0, 0),
        lambda: lib.zeros(2, 3, 4).t(),
        lambda: lib.zeros(2).mT,
        lambda: x.transpose(0, 2),
    ):
        try:
            f()
            errors.append(None)
        except Exception as error:
            errors.append((type(error).__name__, str(error)))
    return errors


def inplace_view_ops(lib):
    w = lib.tensor(W, requires_grad=True)
    out = []
    for f in (
        lambda a: a.t_(),
        lambda a: a.transpose_(0, 1),
        lambda a: a.unsqueeze(0).squeeze_(),
        lambda a: a.unsqueeze(0).squeeze_(0),
        lambda a: a.unsqueeze(0).squeeze_((0,)),
        lambda a: a.unsqueeze_(1),
        lambda a: a[0:2].t_(),
    ):
        a = w * 1
        r = f(a)
        out.append((r, grad_fn_name(r), r.grad_fn.next_functions[0][0].name(), r._version))
    b = w * 1
    b.t_()
    (b * lib.tensor(W).t()).sum().backward()
    x = lib.zeros(2, 3)
    v = x[0]
    x.t_()
    v.fill_(1)  # the old view still writes the same memory
    errors = []
    for f in (lambda: w.t_(), lambda: w.unsqueeze_(0), lambda: x[0].detach_()):
        try:
            f()
        except RuntimeError as error:
            errors.append(str(error))
    return out, w.grad, x, x.shape, x._version, v._base is x, errors


def grads_through_views(lib):
    w = lib.tensor(W, requires_grad=True)
    ys = [
        w.view(12),
        w.t(),
        w.permute(1, 0),
        w[1:, ::2],
        w[None, 1],
        w.diagonal(1),
        w.narrow(1, 1, 2),
        w[:, :1].expand(3, 4),
        w.unsqueeze(0).expand(2, 3, 4),
        w.unbind(1)[2],
        w.select(0, 1),
        w.T,
    ]
    weights = [np.linspace(-1, 2, y.numel(), dtype=np.float32).reshape(y.shape) for y in ys]
    lib.autograd.backward(ys, [lib.tensor(g) for g in weights])
    names = [
        grad_fn_name(w.view(12)),
        grad_fn_name(w.t()),
        grad_fn_name(w[1]),
        grad_fn_name(w[1:]),
        grad_fn_name(w[None]),
        grad_fn_name(w[...]),
    ]
    return w.grad, names


def copy_slices_graph(lib):
    w = lib.tensor(W, requires_grad=True)
    a = w * 2
    v = a[0]
    u = a[1]
    v.mul_(w[2])
    after = (
        grad_fn_name(a),
        grad_fn_name(v),
        grad_fn_name(u),
        a.grad_fn.next_functions[0][0].name(),
    )
    (a * a).sum().backward()
    g1 = w.grad
    w.grad = None
    b = w.clone()
    b[:, 1] *= 3  # getitem view, in-place, then setitem: two CopySlices
    b.view(-1)[::5].add_(1)
    (b * b).sum().backward()
    return a, v, u, after, g1, b, w.grad, b._version


def views_after_base_changes(lib):
    w = lib.tensor(W, requires_grad=True)
    a = w * 1
    u = a[1]
    a.mul_(2)  # u's grad_fn is regenerated over a's new node
    u_names = (grad_fn_name(u), u.grad_fn.next_functions[0][0].name())
    (u * u).sum().backward()
    g1 = w.grad
    w.grad = None
    x = lib.zeros(4)
    v1, v2 = x[:2], x[2:]
    ones = lib.ones(2, requires_grad=True)
    v1.copy_(ones)  # x and all its views now require grad
    flags = (x.requires_grad, v2.requires_grad, grad_fn_name(x), grad_fn_name(v2), grad_fn_name(v1))
    (v1.sum() + (v2 * 3).sum() + (x * x).sum()).backward()
    z = lib.zeros(3)
    zv = z[:2]
    z.add_(ones.sum())
    return u, u_names, g1, flags, ones.grad, zv.requires_grad, grad_fn_name(zv), v1, v2, x


def view_of_leaf_rules(lib):
    w = lib.tensor(W, requires_grad=True)
    v = w[0]
    errors = []
    for f in (lambda: v.add_(1), lambda: w.t()[0].zero_(), lambda: w.view(-1).mul_(2)):
        try:
            f()
        except RuntimeError as error:
            errors.append(str(error))
    with lib.no_grad():
        v.add_(1)  # allowed: not recorded
        w[1].mul_(2)
        w.view(-1)[::4] = 0
    vname = grad_fn_name(v)
    (v * v).sum().backward()
    return w, v, errors, vname, w.grad, w._version, v._version


def no_grad_and_multi_output_views(lib):
    w = lib.tensor(W, requires_grad=True)
    a = w * 1
    errors = []

    def attempt(f):
        try:
            f()
            errors.append(None)
        except RuntimeError as error:
            errors.append(str(error))

    u = a.unbind(0)
    attempt(lambda: u[1].mul_(2))
    with lib.no_grad():
        nv = a[0]
    attempt(lambda: nv.mul_(2))
    nvv = nv[1:]
    attempt(lambda: nvv.mul_(2))
    a.mul_(2)
    attempt(lambda: u[0] + 1)
    attempt(lambda: nv + 1)
    z = lib.zeros(2, 3)
    uz = z.unbind(0)
    uz[0].add_(1)  # nothing is recorded: allowed
    attempt(lambda: uz[1].add_(w[0, :3]))
    with lib.no_grad():
        gv = w[0]
    flags = (nv.requires_grad, gv.requires_grad, gv.is_leaf, grad_fn_name(gv))
    y = gv * 2
    return errors, flags, z, y.requires_grad, grad_fn_name(y)


def detach_and_data_aliases(lib):
    w = lib.tensor(W, requires_grad=True)
    w.data.add_(1)
    v0 = w._version
    w.detach().mul_(2)
    v1 = w._version
    y = lib.tensor(W[0], requires_grad=True)
    x = y * 1
    b = y * x
    x.detach().add_(1)
    errors = []
    try:
        b.sum().backward()
    except RuntimeError as error:
        errors.append(str(error))
    x2 = lib.tensor(W[1])
    b2 = y * x2
    x2.data.add_(1)  # .data has its own version counter: no error
    b2.sum().backward()  # (PyTorch's saved x2 sees the change; ours kept the old value)
    p = lib.tensor(W)
    q = lib.tensor(W[0] * 0)
    p.data = q  # p now aliases q
    q.add_(1)
    return w, v0, v1, errors, p, p.shape, p._version, q._version


def view_made_a_leaf(lib):
    base = lib.tensor(W)
    v = base.t()
    v.requires_grad_()  # a view of a tensor that does not require grad may become a leaf
    (v * v).sum().backward()
    error = None
    try:
        v.add_(1)
    except RuntimeError as e:
        error = str(e)
    with lib.no_grad():
        v.add_(1)
    return v.grad, v.is_leaf, v.grad_fn is None, v._is_view(), base.requires_grad, error, base


def split_chunk_and_unbind_are_views(lib):
    w = lib.tensor(W, requires_grad=True)
    a = w * 1
    pieces = [a.split(2), a.split([1, 3], 1), a.chunk(2, 1), a.unbind(1), a.tensor_split(3, 1)]
    meta = [
        [
            (grad_fn_name(p), type(p.grad_fn).__name__, p.output_nr, p._base is a, p.shape)
            for p in ps
        ]
        for ps in pieces
    ]
    errors = []
    for p in (pieces[0][1], pieces[1][0], pieces[2][1]):  # multi-output views: refused
        try:
            p.mul_(2)
        except RuntimeError as error:
            errors.append(str(error))
    pieces[4][1].mul_(3)  # tensor_split's pieces are plain slices: allowed, CopySlices
    after = (grad_fn_name(a), a.grad_fn.next_functions[0][0].name())
    weights = lib.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
    sum((p * weights[: p.shape[0], : p.shape[1]]).sum() for p in pieces[0] + pieces[2]).backward()
    g1 = w.grad
    z = lib.zeros(3, 4)
    top, rest = z.split([1, 2])
    top.add_(1)  # nothing recorded: the write reaches the base and the other views
    left = z.chunk(2, 1)[0]
    with lib.no_grad():
        u = a.split(2)[1]
    return meta, errors, after, g1, z, left, rest._version, u.requires_grad


def copy_slices_repr_and_edges(lib):
    """A CopySlices node prints as PyTorch's class (no C++ namespace; grad_fn_name() keeps it) and
    lists its base's edge, then those of the in-place op it wraps except the view's."""
    w = lib.tensor(W, requires_grad=True)
    s = lib.tensor(W[0], requires_grad=True)
    a = w * 1
    a[0] = 1.0
    node = a.grad_fn
    shown = (
        node.name(),
        type(node).__name__,
        repr(node).split(" object at 0x")[0],
        repr(a).split("grad_fn=")[1],
        repr(a[1:].grad_fn).split(" object at 0x")[0],
    )

    def edges(t):
        return [None if f is None else f.name() for f, _ in t.grad_fn.next_functions]

    out = [edges(a)]
    for write in (
        lambda b: b[0].mul_(s),
        lambda b: b[:, 1].copy_(s[:3]),
        lambda b: b.__setitem__((slice(1, None), [0, 2]), s[:2]),
        lambda b: b.t()[1].add_(s[:3]),
    ):
        b = w * 1
        write(b)
        out.append(edges(b))
    return shown, out


def view_op_table(lib):
    """Every view-producing op: `_base`, the node name, a write through it reaching the base,
    and the gradient of the base after a recorded in-place change of the view."""
    x = lib.tensor(W.reshape(3, 2, 2), requires_grad=True)
    out = []
    for label, f in VIEW_OPS:
        y = x * 1
        z = f(y)
        row = [label, z._base is y, grad_fn_name(z), tuple(z.shape)]
        try:
            with lib.no_grad():
                f(y).mul_(2)
            row.append(y)
        except RuntimeError as error:
            row.append(str(error))
        y = x * 1
        try:
            f(y).mul_(3)
            (y * y).sum().backward()
            row.append(x.grad)
        except RuntimeError as error:
            row.append(str(error))
        x.grad = None
        out.append(tuple(row))
    return out


# (label, f): f maps a (3, 2, 2) float tensor to a view (or, where PyTorch copies, a copy)
VIEW_OPS = [
    ("movedim", lambda y: y.movedim(0, 2)),
    ("movedim_tuple", lambda y: y.movedim((0, 1), (2, 0))),
    ("moveaxis", lambda y: y.moveaxis(-1, 0)),
    ("swapaxes", lambda y: y.swapaxes(0, 1)),
    ("swapdims", lambda y: y.swapdims(2, 1)),
    ("permute", lambda y: y.permute(2, 0, 1)),
    ("transpose", lambda y: y.transpose(0, 2)),
    ("mT", lambda y: y.mT),
    ("mH", lambda y: y.mH),
    ("adjoint", lambda y: y.adjoint()),
    ("T_2d", lambda y: y[0].T),
    ("H_2d", lambda y: y[0].H),
    ("t", lambda y: y[1].t()),
    ("unflatten", lambda y: y.unflatten(0, (3, 1))),
    ("view", lambda y: y.view(6, 2)),
    ("view_as", lambda y: y.view_as(y.detach().view(2, 6))),
    ("reshape_view", lambda y: y.reshape(-1)),
    ("reshape_as", lambda y: y.reshape_as(y.detach().view(6, 2))),
    ("reshape_copy", lambda y: y.mT.reshape(-1)),
    ("reshape_alias", lambda y: y.mT.reshape(3, 2, 2)),
    ("flatten", lambda y: y.flatten(1)),
    ("flatten_copy", lambda y: y.mT.flatten()),
    ("flatten_noop", lambda y: y.flatten(1, 1)),
    ("squeeze", lambda y: y[:1].squeeze(0)),
    ("squeeze_all", lambda y: y[:1, :1].squeeze()),
    ("unsqueeze", lambda y: y.unsqueeze(1)),
    ("expand", lambda y: y[:, :1].expand(3, 2, 2)),
    ("expand_as", lambda y: y[:1].expand_as(y)),
    ("diagonal", lambda y: y.diagonal(0, 1, 2)),
    ("select", lambda y: y.select(2, 1)),
    ("narrow", lambda y: y.narrow(0, 1, 2)),
    ("getitem", lambda y: y[1:, None, ..., 0]),
    ("alias", lambda y: y[...]),
    ("split", lambda y: y.split(2)[1]),
    ("chunk", lambda y: y.chunk(2, 1)[0]),
    ("unbind", lambda y: y.unbind(2)[1]),
    ("tensor_split", lambda y: y.tensor_split([1], 0)[1]),
]


# The old scenario check compared every inexact dtype to (1e-6, 1e-6).
SCENARIOS = Corpus(
    [
        split_chunk_and_unbind_are_views,
        copy_slices_repr_and_edges,
        view_op_table,
        view_made_a_leaf,
        view_ops_share_memory,
        write_through_each_view,
        base_base_and_versions,
        strides_and_contiguity,
        reshape_view_or_copy,
        view_errors,
        inplace_view_ops,
        grads_through_views,
        copy_slices_graph,
        views_after_base_changes,
        view_of_leaf_rules,
        no_grad_and_multi_output_views,
        detach_and_data_aliases,
    ],
    tolerance=uniform(1e-6, 1e-6),
)


@pytest.mark.parametrize("scenario", SCENARIOS.params())
def test_matches_pytorch(scenario):
    run_parity(scenario)


# ----------------------------------------------------------------------------- without torch
def test_views_share_values_without_oracle():
    x = torch.zeros(3, 4)
    v = x[1]
    t = x.t()
    v.fill_(2)
    assert x.tolist()[1] == [2.0] * 4 and t.tolist()[2] == [0.0, 2.0, 0.0]
    t[0].add_(1)
    assert x[:, 0].tolist() == [1.0, 3.0, 1.0] and v.tolist()[0] == 3.0
    assert x._version == v._version == t._version == 2
    assert v._base is x and t._base is x and x._base is None and x.is_contiguous()
    assert not t.is_contiguous() and t.stride() == (1, 4)


def test_gradients_match_jax_grad():
    """A program of views and in-place writes against jax.grad of its pure equivalent."""
    w0 = jnp.asarray(W)

    def pure(w):
        a = w * 2.0
        a = a.at[0].multiply(w[2])
        a = a.at[:, 1].set(a[:, 1] * 3.0)
        flat = a.reshape(-1)
        flat = flat.at[::5].add(flat[::5] ** 2)
        a = flat.reshape(3, 4)
        a = a.at[1, 1:3].set(jnp.sin(w[0, :2]))
        return (a * a.T.T).sum() + jnp.diagonal(a).sum()

    w = torch.tensor(W, requires_grad=True)
    a = w * 2.0
    a[0].mul_(w[2])
    a[:, 1] *= 3.0
    flat = a.view(-1)
    flat[::5] += flat[::5].clone() ** 2  # pow would save a view that the += modifies
    a[1, 1:3] = w[0, :2].sin()
    ((a * a.T.T).sum() + a.diagonal().sum()).backward()
    np.testing.assert_allclose(w.grad.numpy(), jax.jit(jax.grad(pure))(w0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(a.detach().numpy(), jax.jit(_forward)(w0), rtol=1e-6)


def _forward(w0):
    a = w0 * 2.0
    a = a.at[0].multiply(w0[2])
    a = a.at[:, 1].set(a[:, 1] * 3.0)
    flat = a.reshape(-1)
    flat = flat.at[::5].add(flat[::5] ** 2)
    a = flat.reshape(3, 4)
    return a.at[1, 1:3].set(jnp.sin(w0[0, :2]))


def test_T_warnings():
    with pytest.warns(UserWarning, match="x.T` on tensors of dimension other than 2"):
        torch.zeros(2, 3, 4).T  # noqa: B018
    with pytest.warns(UserWarning, match="Tensor.T is deprecated on 0-D tensors"):
        torch.tensor(1.0).T  # noqa: B018


def test_plain_tensors_stay_plain():
    """Non-view tensors carry no view state (the hot path checks `_storage is None`)."""
    x = torch.ones(3)
    y = x * 2
    y.add_(1)
    assert x._storage is None and y._storage is None
    v = y[0]
    assert y._storage is not None and v._storage.base is y


def test_data_assignment_rebinds_memory():
    x = torch.zeros(2, 2)
    v = x[0]  # x has a view: it is a member of a shared buffer
    y = torch.ones(3)
    x.data = y
    assert x.shape == (3,) and x._version == 0 and v._base is x
    y.add_(1)
    assert x.tolist() == [2.0, 2.0, 2.0]
    x.data = x.data  # rejoining the same memory is a no-op
    x.mul_(2)
    assert y.tolist() == [4.0, 4.0, 4.0] and v.tolist() == [0.0, 0.0]


def test_a_buffers_member_table_counts_the_live_and_stays_bounded():
    """Members are weak references without callbacks: a dead one is skipped by every reader
    and pruned once the table doubles, so `.data` taken every step of a loop keeps the
    parameter's table small, and a write still reaches every live member."""
    w = torch.zeros(3)
    keep = [w.data]
    members = w._storage.members
    for _ in range(1000):
        w.data.add_(1)  # each step's alias dies at the end of its statement
        keep.append(keep[-1] * 0)  # (new tensors, some of them reusing the dead ones' ids)
    assert len(members) == 2  # w and keep[0]
    assert len(members.refs) <= 16
    keep[0].mul_(2)
    assert w.tolist() == [2000.0] * 3 and keep[0].tolist() == [2000.0] * 3
    alias = w.data
    assert len(members) == 3 and sorted(map(id, members)) == sorted(map(id, (w, keep[0], alias)))
    members.discard(alias)
    assert len(members) == 2


def test_inplace_through_movedim_and_split_reaches_the_base():
    """Regression: movedim and split returned copies, so an in-place change of the result was
    lost to the base and its gradient (x.grad was 1 where PyTorch gives 2)."""
    x = torch.ones(2, 3, requires_grad=True)
    y = x * 1
    z = y.movedim(0, 1)
    z.mul_(2)
    y.sum().backward()
    assert z._base is y and x.grad.tolist() == [[2.0] * 3] * 2
    base = torch.zeros(4)
    first, second = base.split(2)
    second.add_(1)
    assert first._base is base and base.tolist() == [0.0, 0.0, 1.0, 1.0]
    assert type(y.split(1)[0].grad_fn).__name__ == "SplitBackward0"


def test_matrix_transposes_match_pytorch(real_torch):
    """mT, mH, H and adjoint(): the same views, errors, and 0-D identity with its warning."""
    forms = {
        "mT": lambda t: t.mT,
        "mH": lambda t: t.mH,
        "H": lambda t: t.H,
        "adjoint": lambda t: t.adjoint(),
    }
    for label, f in forms.items():
        for shape in [(), (3,), (2, 3), (2, 3, 4)]:
            outcomes = []
            for lib in (torch, real_torch):
                x = lib.zeros(shape)
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        y = f(x)
                        outcome = (tuple(y.shape), y is x, y._base is x)
                    except RuntimeError as error:
                        outcome = str(error)
                outcomes.append((outcome, [str(w.message).split(" (Triggered")[0] for w in caught]))
            assert outcomes[0] == outcomes[1], (label, shape, outcomes)
