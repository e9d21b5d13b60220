"""The op surface of PyTorch 2.13 against real PyTorch: in-place and alias methods, the split
family, `Tensor.unfold`, the view scatters, scatter_reduce/index_reduce/index_put/put, and
what a tensor reports about itself (layout, storage, data_ptr, dim_order, apply_, resize_)."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import autograd_compat as ac
from autograd_compat._ops import scatters
from tests._helpers.torch_compare import (
    arr,
    catch,
    check_case,
    check_error,
    no_names,
    require_torch,
    run_parity,
)

S = (3, 4)  # the shape most cases share (each new shape compiles anew)
REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _parity(prog):
    run_parity(prog)


# ----------------------------------------------------------------------------- in-place aliases
def test_inplace_comparisons_keep_dtype():
    def prog(torch):
        x = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
        other = torch.tensor([0.0, 4.0, 5.0])
        out = {}
        for name in ("eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_"):
            out[name] = getattr(x.clone(), name)(other)
        for name in ("less_", "less_equal_", "not_equal_"):
            out[name] = getattr(x.clone(), name)(2.0)
        out["int_eq_"] = torch.arange(3).eq_(1.5)
        leaf = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
        other = torch.tensor([2.0, 2.0, 2.0], dtype=torch.float64, requires_grad=True)
        by_number, by_tensor = (leaf * 2).ge_(4.0), (leaf * 1).lt_(other)
        plain = torch.zeros(3, dtype=torch.float64).eq_(other)  # now in the graph (Backward1)
        (by_number * leaf + by_tensor + plain).sum().backward()  # the old values get zero
        out["graph"] = (by_number, by_tensor, plain, leaf.grad, other.grad)
        return out

    _parity(prog)


def test_inplace_arithmetic_aliases_record_grads():
    def prog(torch):
        leaf = torch.tensor([[1.0, -2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
        y = leaf * 1
        y.subtract_(0.5, alpha=2).multiply_(leaf).divide_(3.0).true_divide_(2.0)
        y.negative_().absolute_()
        z = (leaf * 1).swapaxes_(0, 1).swapdims_(0, 1).swapaxes_(0, 1)
        (y.sum() + (z * leaf).sum()).backward()
        return y, z, leaf.grad

    _parity(prog)


def test_new_and_new_empty_strided():
    def prog(torch):
        x = torch.ones(2, dtype=torch.float64)
        shared = torch.tensor([1.0, 2.0], dtype=torch.float64)
        alias = x.new(shared)
        alias[0] = 7.0
        strided = x.new_empty_strided((2, 3), (1, 2)).zero_()
        return (
            x.new(2, 3).shape,
            x.new([1, 2]),
            x.new((2, 3)),
            x.new(),
            shared,
            strided.shape,
            strided.dtype,
            x.new_empty_strided((2,), (1,), dtype=torch.int64).dtype,
            torch.empty_strided((2, 3), (3, 1)).zero_(),
            torch.empty_strided((2,), (1,), dtype=torch.int64, requires_grad=False).dtype,
            catch(lambda: torch.empty_strided((2, 3), (1,))),
        )

    _parity(prog)
    with pytest.raises(TypeError, match="new"):
        ac.ones(2).new(ac.tensor([1, 2]))
    check_error(lambda t: t.ones(2).new_empty_strided((2, 3), (1,)), require_torch())


# ----------------------------------------------------------------------------- splits, unfold
def test_directional_and_unsafe_splits():
    def prog(torch):
        x = torch.arange(24.0, dtype=torch.float64).reshape(2, 3, 4).requires_grad_()
        pieces = {
            "h": torch.hsplit(x, 3),
            "h_list": torch.hsplit(x, [1, 2]),
            "h_vector": torch.hsplit(torch.arange(4.0), 2),
            "v": torch.vsplit(x, 2),
            "d": x.dsplit([1, 3]),
            "sizes": torch.split_with_sizes(x, [1, 2], 1),
            "sizes_method": x.split_with_sizes([3, 1], dim=2),
            "unsafe": torch.unsafe_split(x, 2, 2),
            "unsafe_sizes": x.unsafe_split_with_sizes([1, 2], 1),
            "unsafe_chunk": torch.unsafe_chunk(x, 2, -1),
        }
        piece = torch.unsafe_split(x * 1, 2)[0]
        piece.mul_(2)  # not a view: in-place is allowed
        total = sum(p.sum() * (i + 1) for ps in pieces.values() for i, p in enumerate(ps))
        total = total + piece.sum()
        total.backward()
        return pieces, piece, x.grad

    _parity(prog)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.hsplit(t.ones(2, 4), 3),
        lambda t: t.hsplit(t.tensor(1.0), 2),
        lambda t: t.vsplit(t.ones(4), 2),
        lambda t: t.dsplit(t.ones(2, 2), 2),
        lambda t: t.split_with_sizes(t.ones(3), [1, 1]),
        lambda t: t.ones(3).unfold(0, 4, 1),
        lambda t: t.ones(3).unfold(0, 2, 0),
        lambda t: t.ones(3).unfold(0, -1, 1),
        lambda t: t.tensor(3.0).unfold(1, 1, 1),
        lambda t: t.tensor(3.0).unfold(0, 2, 1),
        lambda t: t.ones(3, 4).sum_to_size(2, 4),
        lambda t: t.narrow_copy(t.ones(3), 0, 2, 2),
    ],
)
def test_split_and_unfold_errors(call, real_torch):
    check_error(call, real_torch)


def test_unfold_is_a_view_with_pytorch_strides():
    def prog(torch):
        x = torch.arange(12.0, dtype=torch.float64).reshape(3, 4)
        windows = x.unfold(1, 2, 1)
        strided = x.unfold(1, 2, 2)
        strided.mul_(10)  # non-overlapping windows: written through to x
        leaf = torch.arange(12.0, dtype=torch.float64).reshape(3, 4).requires_grad_()
        out = leaf.unfold(0, 2, 1)
        (out * torch.arange(16.0, dtype=torch.float64).reshape(2, 4, 2)).sum().backward()
        scalar = torch.tensor(3.0)
        return (
            windows,
            windows.stride(),
            strided.stride(),
            x,
            out,
            leaf.grad,
            scalar.unfold(0, 1, 1),
            scalar.unfold(0, 0, 1),
            x.unfold(-1, 3, 1).is_contiguous(),
        )

    _parity(prog)


def test_sum_to_size_and_narrow_copy(real_torch):
    for size in ((1, 4), (4,), (3, 1), ((1, 1),), (3, 4)):
        check_case(lambda t, x, size=size: x.sum_to_size(*size), [arr(S)], real_torch)
    check_case(lambda t, x: t.narrow_copy(x, 1, -3, 2), [arr(S)], real_torch, jax_vjp=True)


# ----------------------------------------------------------------------------- scatters
@pytest.mark.parametrize(
    "name, fn, src_shape",
    [
        ("select", lambda t, x, s: t.select_scatter(x, s, 1, -1), (3,)),
        ("slice", lambda t, x, s: t.slice_scatter(x, s, 1, 1, None, 2), (3, 2)),
        ("slice_default", lambda t, x, s: x.slice_scatter(s, start=-2), (2, 4)),
        ("slice_clamped", lambda t, x, s: t.slice_scatter(x, s, 0, -5, 10), S),
        ("diagonal", lambda t, x, s: t.diagonal_scatter(x, s, -1), (2,)),
        ("diagonal_dims", lambda t, x, s: x.diagonal_scatter(s, 1, 1, 0), (2,)),
    ],
)
def test_view_scatters(name, fn, src_shape, real_torch):
    check_case(fn, [arr(S), arr(src_shape, seed=3)], real_torch, jax_vjp=name == "slice")


def test_view_scatter_casts_and_errors(real_torch):
    check_case(
        lambda t, x, s: t.select_scatter(x, s, 0, 1),
        [np.arange(12).reshape(S), arr((4,))],
        real_torch,
        grads=False,
    )
    for call in (
        lambda t: t.select_scatter(t.ones(S), t.ones(3), 0, 1),
        lambda t: t.select_scatter(t.ones(S), t.ones(4), 0, 3),
        lambda t: t.slice_scatter(t.ones(S), t.ones(3, 3), 1, 0, 4, 2),
        lambda t: t.slice_scatter(t.ones(S), t.ones(1, 4), 0, 1, 2, 0),
        lambda t: t.diagonal_scatter(t.ones(S), t.ones(2), 0),
        lambda t: t.diagonal_scatter(t.ones(S), t.ones(2), 0, 1, 1),
    ):
        check_error(call, real_torch)


_INDEX = np.array([[0, 0, 2], [1, 3, 1], [3, 3, 3]])


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_values_and_grads(reduce, include_self, real_torch):
    def fn(t, x, i, s):
        return t.scatter_reduce(x, 1, i, s, reduce, include_self=include_self)

    check_case(fn, [arr(S), _INDEX, arr((3, 3), seed=5)], real_torch, jax_vjp=reduce == "prod")
    ints = [np.arange(12).reshape(S) - 5, _INDEX, np.arange(9).reshape(3, 3) - 4]
    check_case(fn, ints, real_torch)


def test_scatter_reduce_ties_zeros_and_inplace():
    def prog(torch):
        x = torch.tensor([[1.0, 0.0, 2.0]], dtype=torch.float64, requires_grad=True)
        src = torch.tensor([[2.0, 0.0, 2.0, 3.0]], dtype=torch.float64, requires_grad=True)
        index = torch.tensor([[0, 1, 0, 1]])
        amax = torch.scatter_reduce(x * 2, 1, index, src, "amax")  # a three-way tie at 2
        prod = torch.scatter_reduce(x, 1, index, src, "prod")  # zeros in two places
        legacy = torch.scatter_reduce(x, 1, index, src, "max")  # computed, but not its grad
        refused = catch(lambda: torch.scatter_reduce(x, 1, index, src, "min").sum().backward())
        (amax.sum() + prod.sum()).backward()
        y = torch.zeros(2, 3)
        y.scatter_reduce_(0, torch.tensor([[1, 0, 1]]), torch.ones(1, 3) * 4, "sum")
        return amax, prod, legacy, refused, x.grad, src.grad, y

    _parity(prog)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.scatter_reduce(
            t.ones(2, 3), 1, t.zeros(2, 3, dtype=t.int64), t.ones(2, 3), "add"
        ),
        lambda t: t.scatter_reduce(
            t.ones(2, 3), 1, t.zeros(2, 3, dtype=t.int64), t.ones(2, 3, dtype=t.float64), "sum"
        ),
        lambda t: t.scatter_reduce(
            t.ones(2, 3), 1, t.full((2, 3), 3, dtype=t.int64), t.ones(2, 3), "sum"
        ),
        lambda t: t.index_reduce(t.ones(2, 3), 0, t.tensor([0, 0]), t.ones(2, 3), "sum"),
        lambda t: t.index_reduce(t.ones(2, 3), 0, t.tensor([0, 0, 1]), t.ones(2, 3), "prod"),
        lambda t: t.index_reduce(t.ones(2, 3), 0, t.tensor([0, 3]), t.ones(2, 3), "prod"),
        lambda t: t.index_reduce(t.ones(2, 3), 0, t.tensor([0.0, 1.0]), t.ones(2, 3), "prod"),
        lambda t: t.index_reduce(t.ones(2, 3), 0, t.tensor([0, 1]), t.ones(2, 2), "prod"),
        lambda t: t.index_reduce(
            t.ones(2, 3), 0, t.tensor([0, 1]), t.ones(2, 3, dtype=t.float64), "prod"
        ),
    ],
)
def test_reduce_errors(call, real_torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # index_reduce's beta warning, raised by both
        check_error(call, real_torch)


@pytest.mark.parametrize("reduce", ("prod", "mean", "amax", "amin"))
def test_index_reduce(reduce, real_torch):
    def fn(t, x, i, s):
        return x.index_reduce(0, i, s, reduce, include_self=reduce != "mean")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_case(fn, [arr(S), np.array([2, 0, 2, 2]), arr((4, 4), seed=8)], real_torch)
    scatters._warn_beta_once.cache_clear()
    with pytest.warns(UserWarning, match="index_reduce\\(\\) is in beta"):
        ac.ones(S).index_reduce_(0, ac.tensor([0]), ac.ones(1, 4), reduce)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per process, as PyTorch's TORCH_WARN_ONCE
        ac.ones(S).index_reduce_(0, ac.tensor([0]), ac.ones(1, 4), reduce)


def test_index_put_and_put():
    def prog(torch):
        x = torch.arange(12.0, dtype=torch.float64).reshape(3, 4).requires_grad_()
        v = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
        rows, cols = torch.tensor([0, 0, 2]), torch.tensor([1, 1, 3])
        added = torch.index_put(x, (rows, cols), v, accumulate=True)
        written = x.index_put([torch.tensor([0, 2])], torch.tensor(5.0, dtype=torch.float64))
        masked = torch.index_put(x, (torch.tensor([True, False, True]),), v[:1])
        flat = torch.put(x, torch.tensor([0, -1, 5]), v)
        summed = x.put(torch.tensor([0, 0, 11]), v, accumulate=True)
        (added.sum() + written.sum() + masked.sum() + (flat * flat).sum() + summed.sum()).backward()
        y = torch.zeros(2, 3, dtype=torch.int64)
        y.index_put_((torch.tensor([1, 1]),), torch.tensor([4, 5, 6]), accumulate=True)
        y.put_(torch.tensor([0]), torch.tensor([9]))
        y.index_put_((torch.tensor([0]), torch.tensor([2])), torch.tensor(-1))
        return added, written, masked, flat, summed, x.grad, v.grad, y

    _parity(prog)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.index_put(t.ones(2, 3), (t.tensor([0, 1]),), 5),
        lambda t: t.index_put(t.ones(2, 3), (t.tensor([0, 1]),), t.tensor(5)),
        lambda t: t.index_put(
            t.ones(2, 3, dtype=t.int64), (t.tensor([0]),), t.tensor(5.0), accumulate=True
        ),
        lambda t: t.index_put(t.ones(2, 3), (t.tensor([0, 5]),), t.tensor(5.0), accumulate=True),
        lambda t: t.put(t.ones(2, 3), t.tensor([0, 6]), t.ones(2)),
        lambda t: t.put(t.ones(2, 3), t.tensor([0, 1]), t.ones(1)),
        lambda t: t.put(t.ones(2, 3), t.tensor([0, 1]), t.ones(2, dtype=t.float64)),
        lambda t: t.put(t.ones(2, 3), t.tensor([0, 1], dtype=t.int32), t.ones(2)),
        lambda t: t.ones(2, requires_grad=True).put_(t.tensor([0]), t.ones(1)),
    ],
)
def test_index_put_and_put_errors(call, real_torch):
    check_error(call, real_torch)


# ----------------------------------------------------------------------------- attributes
def test_predicates_and_attributes():
    def prog(torch):
        x = torch.arange(6.0).reshape(2, 3)
        flags = [
            getattr(x, name)
            for name in (
                "is_sparse",
                "is_sparse_csr",
                "is_quantized",
                "is_meta",
                "is_nested",
                "is_mkldnn",
                "is_xla",
                "is_xpu",
                "is_mps",
                "is_ipu",
                "is_vulkan",
                "is_mtia",
                "is_maia",
            )
        ]
        return (
            flags,
            repr(x.layout),
            repr(torch.strided),
            repr(torch.sparse_coo),
            [repr(f) for f in (torch.contiguous_format, torch.channels_last)],
            [repr(f) for f in (torch.channels_last_3d, torch.preserve_format)],
            x.layout is torch.strided,
            x.is_conj(),
            torch.is_neg(x),
            x.resolve_conj() is x,
            torch.resolve_neg(x) is x,
            x.conj_physical() is x,
            x.conj_physical_() is x,
            x.is_same_size(x.t()),
            torch.is_same_size(x, x + 1),
            [torch.tensor(v).is_nonzero() for v in (0.0, [2], float("nan"), [False])],
            catch(lambda: torch.tensor([]).is_nonzero()),
            catch(lambda: torch.is_nonzero(torch.tensor([1, 2]))),
            x.is_distributed(),
            x.contiguous(memory_format=torch.contiguous_format),
            x.to(memory_format=torch.preserve_format),
            x.cfloat().dtype,
            x.cdouble().dtype,
            x.is_pinned(),
            x.is_shared(),
            x[0].is_shared(),
            catch(lambda: x.pin_memory()),
            x.is_set_to(x),
            x.is_set_to(x.clone()),
        )

    _parity(prog)
    assert pickle.loads(pickle.dumps(ac.channels_last)) is ac.channels_last
    assert isinstance(ac.strided, ac.layout) and isinstance(ac.channels_last, ac.memory_format)


def test_data_ptr_and_storage():
    x = ac.arange(12.0).reshape(3, 4)
    x.add_(1)
    ptr = x.data_ptr()
    assert x.data_ptr() == ptr  # stable until the memory is written (tests/tensor/test_data_ptr.py)
    assert x[1].data_ptr() == ptr + 4 * 4 and x.t().data_ptr() == ptr
    assert x.detach().data_ptr() == ptr and x.clone().data_ptr() != ptr
    storage = x[1:].untyped_storage()
    assert storage.nbytes() == 48 and storage.size() == 48 and storage.data_ptr() == ptr
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        typed = x.storage()
    assert typed.size() == 12 and typed.dtype is ac.float32 and typed.element_size() == 4
    assert x.is_set_to(x.view(3, 4)) and not x.is_set_to(x.t())
    assert x.const_data_ptr() == ptr and ac.is_storage(storage) and not ac.is_storage(x)
    assert isinstance(typed, ac.TypedStorage) and isinstance(storage, ac.UntypedStorage)


@pytest.mark.parametrize("perm", [(0, 1, 2), (2, 1, 0), (1, 0, 2), (0, 2, 1), (2, 0, 1)])
@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 1, 3)])
def test_dim_order(perm, shape, real_torch):
    ours = ac.ones(shape).permute(perm).dim_order()
    assert ours == real_torch.ones(shape).permute(perm).dim_order()
    assert ac.ones(shape)[:, :, ::2].dim_order() == real_torch.ones(shape)[:, :, ::2].dim_order()
    check_error(lambda t: t.ones(2, 1, 3).dim_order(ambiguity_check=True), real_torch)


def test_apply_map_and_resize():
    def prog(torch):
        x = torch.arange(6.0).reshape(2, 3)
        ints = torch.arange(3)
        view = torch.zeros(2, 3)
        view[1].apply_(lambda v: v + 5)
        mapped = x.clone().map_(torch.tensor([1.0, 2.0, 3.0]), lambda a, b: a * 10 + b)
        shrunk = x.clone().resize_(2, 2)
        grown = x.clone().resize_((3, 3))
        grown[2] = 0  # PyTorch leaves the new elements uninitialized
        return (
            x.clone().apply_(lambda v: v * v - 1),
            ints.apply_(lambda v: v + 0.7),
            view,
            mapped,
            shrunk,
            grown,
            x.clone().resize_as_(torch.ones(1, 6)),
            torch.resize_as_(x.clone(), torch.ones(3, 2)),
            catch(lambda: torch.ones(2, requires_grad=True).apply_(lambda v: v)),
            catch(lambda: torch.ones(2, requires_grad=True).map_(torch.ones(2), max)),
            catch(lambda: x.clone().map_(torch.ones(3, dtype=torch.int64), max)),
            catch(lambda: torch.ones(2, requires_grad=True).resize_(3)),
        )

    _parity(prog)
    base = ac.zeros(4)
    _view = base[:2]
    with pytest.raises(RuntimeError, match="resize a clone"):
        base.resize_(8)


def test_surface_oracle_is_present():
    """The oracle exists with every name this file compares (a guard for the parity runs)."""
    torch = require_torch()
    for name in ("unsafe_split", "scatter_reduce", "index_reduce", "slice_scatter", "put"):
        assert hasattr(torch, name) and hasattr(ac, name)


def test_zero_dim_reductions():
    def prog(torch):
        x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
        three = torch.tensor(3.0, dtype=torch.float64)
        a = torch.scatter_reduce(x, 0, torch.tensor(0), three, "prod")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the beta warning: once per process in both
            b = torch.index_reduce(x, 0, torch.tensor([0]), three + 2, "amax")
            c = catch(lambda: torch.index_reduce(x, 0, torch.tensor([0]), three.reshape(1), "amax"))
        (a + b).backward()
        return a, b, c, x.grad

    _parity(prog)


# ----------------------------------------------------------------------------- torch.* spellings
def test_view_copies_and_function_forms():
    def prog(torch):
        x = torch.arange(24.0, dtype=torch.float64).reshape(2, 3, 4).requires_grad_()
        outs = [
            torch.alias_copy(x),
            torch.diagonal_copy(x, 1, 1, 2),
            torch.permute_copy(x, (2, 0, 1)),
            torch.select_copy(x, 1, -1),
            torch.slice_copy(x, -1, 1, None, 2),
            torch.squeeze_copy(x[:1]),
            torch.t_copy(x[0]),
            torch.transpose_copy(x, 0, 2),
            torch.unfold_copy(x, 2, 2, 2),
            torch.unsqueeze_copy(x, 1),
            torch.view_copy(x, (6, 4)),
            *torch.split_copy(x, 1, 1),
            *torch.split_with_sizes_copy(x, [3, 1], 2),
            *torch.unbind_copy(x, 2),
        ]
        sum((o * (i + 1)).sum() for i, o in enumerate(outs)).backward()
        torch.t_copy(x.detach()[0])[0, 0] = 100.0  # shares no memory: x is unchanged
        y = torch.ones(2, 3)
        torch.abs_(torch.neg_(y))
        torch.clamp_(y, max=0.5)
        torch.fill_(y[0], 3.0)
        z = torch.zero_(torch.exp_(torch.zeros(3)))
        return (
            no_names(outs),  # PyTorch's nodes are PermuteBackward0_copy...; here the clone's
            x,
            x.grad,
            torch.detach_copy(x.detach()),
            y,
            z,
            torch.fill(y, 2.0),
            torch.detach(x),
            torch.detach_(x * 1),
            [torch.is_complex(x), torch.is_inference(x), torch.get_device(x)],
            torch.is_distributed(x),
        )

    _parity(prog)


def test_share_memory_refuses_clearly():
    """A child process's in-place updates could never reach this one: sharing raises at the
    call rather than being a no-op (Hogwild training would train nothing, silently)."""
    with pytest.raises(RuntimeError, match=r"share_memory_\(\): autograd_compat cannot share"):
        ac.ones(3).share_memory_()
    model = ac.nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match="Hogwild"):
        model.share_memory()
