"""Reductions and orderings against real PyTorch, jax.vjp and finite differences."""

from __future__ import annotations

import math

import numpy as np
import pytest

import autograd_compat as ac
from tests._helpers.torch_compare import arr, assert_same, check_case, check_error

# name -> (function of (lib, x), input shape)
FLOAT_CASES = {
    "sum": (lambda t, x: x.sum(), (3, 4)),
    "sum_dims_keepdim": (lambda t, x: t.sum(x, (0, 2), keepdim=True), (2, 3, 4)),
    "sum_empty_dims_means_all": (lambda t, x: x.sum(()), (3, 4)),
    "mean_empty_dims_means_all": (lambda t, x: x.mean(dim=[]), (3, 4)),
    "mean_dim": (lambda t, x: x.mean(-1), (3, 4)),
    "norm_dim": (lambda t, x: x.norm(dim=1), (3, 4)),
    "prod": (lambda t, x: t.prod(x), (3, 4)),
    "prod_dim": (lambda t, x: x.prod(1), (3, 4)),
    "prod_dim_keepdim": (lambda t, x: x.prod(dim=-1, keepdim=True), (2, 3, 4)),
    "prod_zero_dim": (lambda t, x: x.prod(0), ()),
    "std": (lambda t, x: x.std(), (3, 4)),
    "std_dim": (lambda t, x: t.std(x, 1), (3, 4)),
    "std_unbiased_false": (lambda t, x: x.std(1, False), (3, 4)),
    "std_correction": (lambda t, x: t.std(x, dim=(0, 2), correction=0, keepdim=True), (2, 3, 4)),
    "std_positional_unbiased": (lambda t, x: x.std(False), (3, 4)),
    "var": (lambda t, x: t.var(x), (3, 4)),
    "var_dim": (lambda t, x: x.var(0, keepdim=True), (3, 4)),
    "var_correction_2": (lambda t, x: x.var(1, correction=2), (3, 4)),
    "var_unbiased_kw": (lambda t, x: x.var(unbiased=False), (3, 4)),
    "max": (lambda t, x: x.max(), (3, 4)),
    "max_dim": (lambda t, x: t.max(x, 1), (3, 4)),
    "max_dim_keepdim": (lambda t, x: x.max(dim=0, keepdim=True), (3, 4)),
    "max_zero_dim": (lambda t, x: x.max(0), ()),
    "min": (lambda t, x: t.min(x), (3, 4)),
    "min_dim": (lambda t, x: x.min(-1), (2, 3, 4)),
    "amax": (lambda t, x: x.amax(), (3, 4)),
    "amax_dims": (lambda t, x: t.amax(x, (0, 2)), (2, 3, 4)),
    "amin_dim_keepdim": (lambda t, x: x.amin(1, keepdim=True), (3, 4)),
    "logsumexp": (lambda t, x: t.logsumexp(x, 1), (3, 4)),
    "logsumexp_dims": (lambda t, x: x.logsumexp((0, 1), keepdim=True), (3, 4)),
    "cumsum": (lambda t, x: t.cumsum(x, 1), (3, 4)),
    "cumsum_neg_dim": (lambda t, x: x.cumsum(-3), (2, 3, 4)),
    "cumprod": (lambda t, x: x.cumprod(0), (3, 4)),
    "cumprod_zero_dim": (lambda t, x: t.cumprod(x, 0), ()),
    "median": (lambda t, x: x.median(), (3, 4)),
    "median_even": (lambda t, x: t.median(x), (4,)),
    "median_dim": (lambda t, x: t.median(x, 1), (3, 4)),
    "median_dim_keepdim": (lambda t, x: x.median(0, keepdim=True), (3, 4)),
    "topk": (lambda t, x: x.topk(2), (3, 4)),
    "topk_smallest_dim0": (lambda t, x: t.topk(x, 2, dim=0, largest=False), (3, 4)),
    "topk_batched": (lambda t, x: x.topk(3, 1), (2, 3, 4)),
    "sort": (lambda t, x: x.sort(), (3, 4)),
    "sort_descending_dim0": (lambda t, x: t.sort(x, 0, descending=True), (3, 4)),
    "sort_stable_kw": (lambda t, x: t.sort(x, dim=-1, stable=True), (2, 3, 4)),
    "argsort": (lambda t, x: x.argsort(), (3, 4)),
    "argsort_descending": (lambda t, x: t.argsort(x, 0, descending=True), (3, 4)),
    "argmax": (lambda t, x: x.argmax(), (3, 4)),
    "argmax_dim": (lambda t, x: t.argmax(x, 1, keepdim=True), (3, 4)),
    "argmin_keepdim": (lambda t, x: x.argmin(keepdim=True), (3, 4)),
    "argmin_dim": (lambda t, x: t.argmin(x, dim=-1), (2, 3, 4)),
}


@pytest.mark.parametrize("name", sorted(FLOAT_CASES))
def test_reduction_float64(name, real_torch):
    fn, shape = FLOAT_CASES[name]
    check_case(fn, [arr(shape)], real_torch, jax_vjp=name in sorted(FLOAT_CASES)[::4])


@pytest.mark.parametrize("name", sorted(FLOAT_CASES)[1::4])
def test_reduction_float32(name, real_torch):
    fn, shape = FLOAT_CASES[name]
    check_case(fn, [arr(shape, dtype=np.float32)], real_torch)


INTEGER_CASES = [
    lambda t, x: x.prod(),
    lambda t, x: x.prod(1),
    lambda t, x: x.prod(dtype=t.float64),
    lambda t, x: x.cumsum(0),
    lambda t, x: x.cumprod(1, dtype=t.float32),
    lambda t, x: x.max(),
    lambda t, x: x.max(1),
    lambda t, x: x.min(0, keepdim=True),
    lambda t, x: x.amax(1),
    lambda t, x: x.argmax(),
    lambda t, x: x.median(),
    lambda t, x: x.median(1),
    lambda t, x: x.sort(1),
    lambda t, x: x.topk(2).values,  # the order of equal elements is unspecified
    lambda t, x: x.logsumexp(1),
    lambda t, x: x.all(),
    lambda t, x: x.any(1, keepdim=True),
    lambda t, x: t.all(x, (0, 1)),
    lambda t, x: x.sum(),
]


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.bool_], ids=str)
def test_reduction_integer_dtypes(dtype, real_torch):
    x = arr((3, 4), "int" if dtype in (np.int64, np.int32) else "nat", dtype)
    cases = list(enumerate(INTEGER_CASES))
    if dtype != np.int64:  # the other dtypes on a sample
        cases = cases[dtype != np.int32 :: 3]
    for i, fn in cases:
        if dtype == np.bool_ and i in (9, 10, 11, 12, 13, 14):  # PyTorch lacks these for bool
            continue
        check_case(fn, [x], real_torch)


def test_all_any_of_floats_and_uint8(real_torch):
    x = np.array([[0.0, 1.0, math.nan], [2.0, 3.0, -1.0]], np.float32)
    for fn in (
        lambda t, x: x.all(),
        lambda t, x: x.any(0),
        lambda t, x: t.all(x, 1, keepdim=True),
        lambda t, x: (x > 0).to(t.uint8).all(1),
        lambda t, x: (x > 0).to(t.uint8).any(),
    ):
        check_case(fn, [x], real_torch)


# ----------------------------------------------------------------------------- edge points
EDGES = {
    "max_ties": (lambda t, x: x.max(), [3.0, 1.0, 3.0]),
    "max_nan": (lambda t, x: x.max(), [1.0, math.nan, 3.0, math.nan]),
    "min_ties": (lambda t, x: x.min(), [1.0, 1.0, 3.0]),
    "max_dim_ties": (lambda t, x: x.max(0), [3.0, 1.0, 3.0]),
    "max_dim_nan": (lambda t, x: x.max(0), [1.0, math.nan, 3.0, math.nan]),
    "min_dim_nan": (lambda t, x: x.min(0), [1.0, math.nan, -3.0, math.nan]),
    "amax_ties": (lambda t, x: x.amax(), [3.0, 1.0, 3.0, 3.0]),
    "amax_nan": (lambda t, x: x.amax(), [1.0, math.nan, 3.0]),
    "median_ties": (lambda t, x: x.median(), [3.0, 1.0, 3.0]),
    "median_nan": (lambda t, x: x.median(), [1.0, math.nan, 3.0, math.nan]),
    "median_dim_ties": (lambda t, x: x.median(0), [2.0, 1.0, 2.0, 2.0, 3.0]),
    "median_dim_nan": (lambda t, x: x.median(0), [2.0, math.nan, 2.0, 2.0, 3.0]),
    "std_constant": (lambda t, x: x.std(), [2.0, 2.0, 2.0]),
    "var_constant": (lambda t, x: x.var(), [2.0, 2.0, 2.0]),
    "prod_one_zero": (lambda t, x: x.prod(), [2.0, 0.0, 3.0]),
    "prod_two_zeros": (lambda t, x: x.prod(), [0.0, 2.0, 0.0]),
    "prod_dim_zero": (lambda t, x: x.reshape(2, 2).prod(1), [0.0, 2.0, 3.0, 4.0]),
    "cumprod_zero": (lambda t, x: x.cumprod(0), [2.0, 0.0, 3.0, 0.0, 5.0]),
    "logsumexp_neg_inf": (lambda t, x: x.logsumexp(0), [-math.inf, -math.inf]),
    "logsumexp_inf": (lambda t, x: x.logsumexp(0), [math.inf, 1.0]),
    "logsumexp_mixed": (lambda t, x: x.logsumexp(0), [-math.inf, 1.0, 2.0]),
    "sort_nan_ties": (lambda t, x: x.sort(), [1.0, 3.0, 3.0, 2.0, math.nan, 1.0]),
    "sort_desc_nan_ties": (
        lambda t, x: x.sort(descending=True),
        [1.0, 3.0, 3.0, 2.0, math.nan, 1.0],
    ),
    "argsort_stable_desc": (
        lambda t, x: t.argsort(x, stable=True, descending=True),
        [1.0, 3.0, 3.0, 2.0, 1.0],
    ),
    "topk_nan": (lambda t, x: x.topk(2), [1.0, math.nan, 3.0, 2.0]),
    "norm_zero": (lambda t, x: x.norm(), [0.0, 0.0]),
    "norm_one_zero": (lambda t, x: x.norm(p=1), [0.0, 2.0, -1.0]),
    "argmax_nan": (lambda t, x: x.argmax(), [1.0, math.nan, 3.0, math.nan]),
    "argmin_ties": (lambda t, x: x.argmin(), [1.0, 0.0, 3.0, 0.0]),
}


@pytest.mark.parametrize("name", sorted(EDGES))
def test_reduction_edge_gradients(name, real_torch):
    fn, values = EDGES[name]
    check_case(fn, [np.array(values)], real_torch, finite_differences=False, jax_vjp=False)


def test_topk_ties_values_match_and_indices_are_stable(real_torch):
    """PyTorch's CPU order among equal elements is unspecified; ours is by index."""
    x = [1.0, 3.0, 3.0, 2.0, 5.0]
    ours = ac.tensor(x).topk(3)
    theirs = real_torch.tensor(x).topk(3)
    assert ours.values.tolist() == theirs.values.tolist()
    assert ours.indices.tolist() == [4, 1, 2]
    assert sorted(ours.indices.tolist()) == sorted(theirs.indices.tolist())


def test_second_order_through_reductions(real_torch):
    x = arr((3, 4), "pos")

    def fn(t, x):
        y = x.std(1).sum() * x.prod() + x.logsumexp(1).sum() + x.cumprod(1).sum()
        (g,) = t.autograd.grad(y, x, create_graph=True)
        return (g * g).sum()

    check_case(fn, [x], real_torch, names=False, jax_vjp=False, finite_differences=False)


def test_return_types_behave_like_pytorch(real_torch):
    ours, theirs = (
        ac.tensor([[1.0, 5.0], [7.0, 2.0]]).max(1),
        real_torch.tensor([[1.0, 5.0], [7.0, 2.0]]).max(1),
    )
    assert type(ours).__name__ == "max" and isinstance(ours, tuple)
    assert repr(ours) == repr(theirs)
    values, indices = ours
    assert values is ours.values and indices is ours.indices
    assert ac.return_types.max is type(ours)
    for name in ("min", "median", "sort", "topk"):
        assert getattr(ac.return_types, name).__name__ == name


def test_degrees_of_freedom_warning(real_torch):
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        value = ac.tensor([1.0]).std()
    assert math.isnan(value.item())
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        value = ac.tensor([1.0, 2.0]).var(correction=2)
    with pytest.warns(UserWarning):
        expected = real_torch.tensor([1.0, 2.0]).var(correction=2)
    assert value.item() == expected.item()


REDUCTION_ERRORS = [
    lambda t: t.ones(3, 4).sum(2),
    lambda t: t.ones(3, 4).prod(-3),
    lambda t: t.tensor(1.0).cumsum(1),
    lambda t: t.ones(3, 4).max(2),
    lambda t: t.ones(3, 4).amax(5),
    lambda t: t.ones(3, 4).argmax(2),
    lambda t: t.ones(3, 4).median(-3),
    lambda t: t.ones(3, 4).topk(1, 2),
    lambda t: t.ones(3, 4).sort(2),
    lambda t: t.ones(3, 4).logsumexp(3),
    lambda t: t.ones(3, 4).std(4),
    lambda t: t.ones(3, 4).any(2),
    lambda t: t.zeros(0).max(),
    lambda t: t.zeros(0).argmax(),
    lambda t: t.tensor([1.0, 3.0]).topk(3),
    lambda t: t.tensor([1, 2]).std(),
    lambda t: t.tensor([1, 2]).var(0),
    lambda t: t.ones(2, 2).sum((0, 0)),
    lambda t: t.tensor([True, False]).argmax(),
    lambda t: t.tensor([True, False]).topk(1),
]


@pytest.mark.parametrize("index", range(len(REDUCTION_ERRORS)))
def test_reduction_errors(index, real_torch):
    check_error(REDUCTION_ERRORS[index], real_torch)


def test_reduction_signature_errors(real_torch):
    check_error(lambda t: t.ones(2, 2).prod((0, 1)), real_torch, message=False)
    check_error(lambda t: t.ones(2, 2).max((0, 1)), real_torch, message=False)
    check_error(lambda t: t.ones(2, 2).logsumexp(), real_torch, message=False)


def test_reductions_under_jit():
    import jax

    @jax.jit
    def f(x):
        t = ac.from_jax(x)
        values, indices = t.max(1)
        return (values + t.median(1).values + t.sort(1).values[:, 0] + t.std(1)).jax(), (
            indices.jax()
        )

    x = np.arange(12.0).reshape(3, 4) ** 1.5
    out, idx = f(x)
    t = ac.tensor(x)
    expected = t.max(1).values + t.median(1).values + t.sort(1).values[:, 0] + t.std(1)
    np.testing.assert_allclose(np.asarray(out), expected.numpy(), rtol=1e-12)
    assert np.asarray(idx).tolist() == [3, 3, 3]


def test_extremes_of_infinite_slices_match_pytorch():
    """An all -inf (or +inf) slice reduces to that infinity, with the gradient split among
    its elements; the tie-splitting term must not compute inf - inf (it gave NaN)."""
    from tests._helpers.torch_compare import run_parity

    def prog(torch):
        x = torch.tensor([[-math.inf, -math.inf, -math.inf], [math.inf, 1.0, math.inf]])
        x.requires_grad_(True)
        y = x.amax(-1) + x.amin(-1) + x[0].max() + x[1].min()
        y.backward(torch.tensor([1.0, 2.0]))
        return [x.amax(-1), x.amin(1), x[0].max(), x[1].max(), x.grad]

    run_parity(prog)


@pytest.mark.parametrize(
    "name", ["sum", "mean", "std", "var", "prod", "max", "min", "any", "all", "logsumexp"]
)
def test_numpy_axis_and_keepdims_as_function_and_method(name, real_torch):
    """NumPy's `axis=`/`keepdims=` reach the reduction both as `torch.X` and as `Tensor.X`
    (the method is bound without the `out=` wrapper), with PyTorch's values."""
    values = arr((2, 3), "pos")
    for lib in (ac, real_torch):
        x = lib.tensor(values)
        by_method = getattr(x, name)(axis=1, keepdims=True)
        by_function = getattr(lib, name)(x, axis=1, keepdims=True)
        for result in (by_method, by_function):
            result = result[0] if isinstance(result, tuple) else result
            assert tuple(result.shape) == (2, 1)
            if lib is ac:
                mine = result.numpy()
            else:
                np.testing.assert_allclose(mine, result.numpy(), rtol=1e-6)


# (name, leading positional arguments, whether it takes keepdim)
AXIS_CASES = [
    ("amax", (), True), ("amin", (), True), ("nanmedian", (), True), ("mode", (), True),
    ("aminmax", (), True), ("kthvalue", (2,), True), ("quantile", (0.25,), True),
    ("nanquantile", (0.25,), True), ("count_nonzero", (), False), ("cumsum", (), False),
    ("cumprod", (), False), ("softmax", (), False), ("log_softmax", (), False),
    ("cummax", (), False), ("cummin", (), False), ("logcumsumexp", (), False),
    ("sort", (), False), ("argsort", (), False), ("topk", (2,), False), ("diff", (), False),
    ("unsqueeze", (), False),
]  # fmt: skip


@pytest.mark.parametrize("name,leading,keeps", AXIS_CASES, ids=[c[0] for c in AXIS_CASES])
def test_numpy_axis_everywhere_pytorch_takes_it(name, leading, keeps, real_torch):
    """PyTorch's argument parser takes `axis` (and `keepdims`) for every native function's
    `dim` (and `keepdim`): as `torch.X` and as `Tensor.X`, with the values of `dim=`."""
    values = arr((2, 3), "pos")
    extra = {"keepdims": True} if keeps else {}
    for lib in (ac, real_torch):
        x = lib.tensor(values)
        expected = getattr(lib, name)(x, *leading, dim=1, **({"keepdim": True} if keeps else {}))
        for result in (
            getattr(lib, name)(x, *leading, axis=1, **extra),
            getattr(x, name)(*leading, axis=1, **extra),
        ):
            pairs = zip(result, expected) if isinstance(result, tuple) else [(result, expected)]
            for got, want in pairs:
                np.testing.assert_array_equal(got.numpy(), want.numpy())


# name -> a call of the function taking `dim` by the keyword given (NumPy's `axis` or `dim`)
AXIS_CALLS = {
    "cat": lambda t, x, k: t.cat([x, x], **{k: 1}),
    "concatenate": lambda t, x, k: t.concatenate([x, x], **{k: 1}),
    "stack": lambda t, x, k: t.stack([x, x], **{k: 1}),
    "chunk": lambda t, x, k: x.chunk(2, **{k: 1}),
    "select": lambda t, x, k: t.select(x, index=1, **{k: 1}),
    "unbind": lambda t, x, k: x.unbind(**{k: 1}),
    "unflatten": lambda t, x, k: t.unflatten(x, sizes=(3, 1), **{k: 1}),
    "gather": lambda t, x, k: x.gather(index=t.tensor([[0, 2], [1, 1]]), **{k: 1}),
    "index_select": lambda t, x, k: t.index_select(x, index=t.tensor([2, 0]), **{k: 1}),
    "index_add": lambda t, x, k: x.index_add(index=t.tensor([0]), source=x[:, :1], **{k: 1}),
    "index_copy": lambda t, x, k: t.index_copy(x, index=t.tensor([2]), source=x[:, :1], **{k: 1}),
    "scatter_add": lambda t, x, k: x.scatter_add(index=t.tensor([[1], [0]]), src=x, **{k: 1}),
    "scatter_reduce": lambda t, x, k: x.scatter_reduce(
        index=t.tensor([[1], [0]]), src=x, reduce="amax", **{k: 1}
    ),
    "take_along_dim": lambda t, x, k: t.take_along_dim(x, t.tensor([[2], [0]]), **{k: 1}),
}


@pytest.mark.parametrize("name", sorted(AXIS_CALLS))
def test_numpy_axis_in_the_joining_and_indexing_ops(name, real_torch):
    """`axis=` for `dim=` beyond the reductions (Funnel's `torch.cat(..., axis=...)`), as
    function and as method, with the values of `dim=`."""
    call, values = AXIS_CALLS[name], arr((2, 3), "pos")
    ours = call(ac, ac.tensor(values), "axis")
    assert_same(ours, call(ac, ac.tensor(values), "dim"))
    assert_same(ours, call(real_torch, real_torch.tensor(values), "axis"))


@pytest.mark.parametrize(
    ("ndim", "dims", "span"),
    [
        (4, (0, 2, 3), (1, 2)),
        (4, (0, 1, 3), (2, 3)),
        (5, (0, 3, 4), (1, 3)),
        (4, (0,), None),  # nothing trailing
        (4, (2, 3), None),  # nothing leading
        (4, (0, 2), None),  # a kept dim after the trailing ones
        (4, (0, 1, 2, 3), None),
    ],
)
def test_middle_spans(ndim, dims, span):
    from autograd_compat._pure.middle_sums import middle

    assert middle(ndim, dims) == span


@pytest.mark.parametrize("shape", [(4, 3, 5, 6), (2, 0, 3, 3), (0, 3, 2, 2), (3, 2, 1)])
def test_sums_over_leading_and_trailing_dims_run_in_two_stages(shape, real_torch):
    # A per-channel sum of an NCHW batch: each (sample, channel) row, then the samples (see
    # _pure/middle_sums); values, gradients and shapes are PyTorch's.
    import jax

    from autograd_compat._ops.reduce import _sum

    dims = (0,) + tuple(range(2, len(shape)))
    x = np.random.default_rng(0).standard_normal(shape)
    jaxpr = jax.make_jaxpr(lambda a: _sum(a, dims=dims, keepdim=False, dtype=a.dtype))(x)
    axes = [e.params["axes"] for e in jaxpr.jaxpr.eqns if e.primitive.name == "reduce_sum"]
    assert axes == [(1,), (0,)]
    for keepdim in (False, True):  # (an empty mean is NaN: no finite differences there)
        check_case(
            lambda t, a, k=keepdim: (a.sum(dims, keepdim=k), a.mean(dims, k)),
            [x],
            real_torch,
            finite_differences=x.size > 0,
        )
