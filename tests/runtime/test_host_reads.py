"""The cheap paths of a host read in a loop (`while y.data.norm() < 1000:`): a 0-d comparison
computed on the host, `x.norm()`'s common call, `.data`'s shared record. Each must give what
the op gives (values, dtypes, errors, modes) and PyTorch's results."""

from __future__ import annotations

import math

import jax
import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._state.tensor import HostTensor, Tensor
from tests._helpers.torch_compare import check_error, run_parity

_COMPARISONS = ("lt", "le", "gt", "ge", "eq", "ne")
_NUMBERS = (0, 1, -2, 1000, 0.5, -0.0, 2.5e9, 2**40 + 1, math.inf, -math.inf, math.nan, True)
_VALUES = {
    "float32": (0.0, -0.0, 0.5, -1.25, 1000.0, 3.0e38, math.inf, math.nan),
    "float64": (0.0, 0.5, -1.25, 1000.0, 1.0e300, -math.inf, math.nan),
    "float16": (0.0, 0.5, 1000.0, 65504.0, math.nan),
    "bfloat16": (0.0, 0.5, 1000.0, -3.0e38),
    "int64": (0, -3, 1000, 2**40),
    "int32": (0, 7, -1000),
    "uint8": (0, 1, 255),
    "bool": (False, True),
}


def _fits(number, dtype_name: str) -> bool:
    """Whether a Python number converts to the dtype without overflow: PyTorch raises for an
    int, and a finite number beyond float16's range gets a numpy overflow warning where
    `_pure/op.constant` first converts it (the op's path, a known difference)."""
    if dtype_name == "float16":
        return not math.isfinite(number) or abs(number) <= 65504
    if type(number) is not int or dtype_name.startswith(("float", "bfloat", "bool")):
        return True
    if dtype_name == "uint8":
        return 0 <= number < 256
    return abs(number) < 2**31


def _scalar_programs():
    """A program per dtype: every comparison of each value with each number and with 0-d
    tensors of other dtypes (mixed promotion), read back as tensors."""

    def make(dtype_name: str, values: tuple):
        def prog(lib):
            dtype = getattr(lib, dtype_name)
            out = []
            for value in values:
                t = lib.tensor(value, dtype=dtype)
                others = [n for n in _NUMBERS if _fits(n, dtype_name)]
                others += [lib.tensor(0.5), lib.tensor(7), lib.tensor(1000.0, dtype=lib.float64)]
                for other in others:
                    for name in _COMPARISONS:
                        out.append(getattr(lib, name)(t, other))
            return out

        prog.__name__ = f"compare_{dtype_name}"
        return prog

    return [make(name, values) for name, values in _VALUES.items()]


@pytest.mark.parametrize("prog", _scalar_programs(), ids=lambda p: p.__name__)
def test_zero_dim_comparisons_match_pytorch(prog):
    run_parity(prog)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bfloat16"])
def test_zero_dim_comparison_equals_the_op(dtype):
    """The host result is the XLA op's: a 0-d comparison against the same comparison of a
    one-element vector (which runs the op), subnormal values included (XLA:CPU flushes them,
    so they keep the op's path)."""
    tiny = float(np.finfo(np.float32).tiny) if dtype != "float64" else 1e-310
    values = [0.0, -0.0, 0.5, 3.0, math.nan, math.inf, tiny / 4, -tiny / 4]
    if dtype == "int64":
        values = [0, 3, -2, 2**40]
    for value in values:
        t = torch.tensor(value, dtype=getattr(torch, dtype))
        for other in (0, 0.0, 3, tiny / 8, math.nan, torch.tensor(0.0)):
            for name in _COMPARISONS:
                fn = getattr(torch, name)
                host = fn(t, other)
                vector = other.reshape(1) if isinstance(other, torch.Tensor) else other
                op = fn(t.reshape(1), vector)[0]
                assert host.dtype == torch.bool and host.shape == ()
                assert bool(host) == bool(op), (value, other, name)


def test_comparison_results_are_fresh_tensors():
    """A host result shares a cached array; changing one result in place changes no other,
    and none requires grad."""
    x = torch.tensor(2.0, requires_grad=True)
    first = x < 3
    first.logical_not_()
    second = x < 3
    assert bool(second) and not bool(first)
    first.fill_(True)
    third = x > 3
    assert not bool(third) and bool(first)
    assert not second.requires_grad and second.grad_fn is None and second.is_leaf
    fourth = x.data < 3
    assert fourth.data_ptr() != second.data_ptr()
    copied = fourth.numpy()  # a writable copy: writing it changes no later result
    copied[...] = False
    assert bool(x < 3) and bool(fourth) and not bool(x > 3)


def test_a_comparison_is_read_on_the_host_until_an_op_reads_it():
    """`bool()` and `.item()` of a host result read no device array (the `while` test of a
    loop); an op reading it gets one, with the same value."""
    x = torch.tensor(2.0)
    result = x < 3
    assert isinstance(result, HostTensor)
    assert bool(result) and result.item() is True and isinstance(result, HostTensor)
    assert torch.where(result, x, -x).item() == 2.0
    assert isinstance(result._value, jax.Array) and type(result) is Tensor
    assert (x > 3).logical_not().item() is True


def test_comparison_modes_and_traces():
    """Inference mode marks the result; jax traces (vmap, torch.compile) and arrays committed
    to a device keep the op (its result is committed too)."""
    x = torch.tensor(0.25)
    with torch.inference_mode():
        assert (x < 1).is_inference()
    assert not (x < 1).is_inference()
    per_row = torch.func.vmap(lambda row: row.sum() < 1)(torch.tensor([[0.1, 0.2], [0.9, 0.8]]))
    assert per_row.tolist() == [True, False]
    compiled = torch.compile(lambda t: torch.where(t.sum() < 1, t, -t))
    for value in (0.25, 2.0, 0.5, 3.0):
        assert compiled(torch.tensor(value)).item() == (value if value < 1 else -value)
    committed = torch.Tensor._wrap(jax.device_put(np.float32(0.5), jax.devices()[0]))
    assert (committed < 1)._value.committed and (x < committed)._value.committed
    traced = jax.jit(lambda a: (torch.Tensor._wrap(a) < 1)._value)
    assert bool(traced(np.float32(0.5))) and not bool(traced(np.float32(1.5)))


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: lib.tensor(1.0) < "a",
        lambda lib: lib.lt(1.0, lib.tensor(1.0)),
        lambda lib: lib.tensor([1.0, 2.0]) < lib.tensor([1.0, 2.0, 3.0]),
    ],
)
def test_comparison_errors_match_pytorch(fn, real_torch):
    check_error(fn, real_torch, message=False)


def test_complex_equality_matches_pytorch():
    """Complex values keep the op's path."""
    run_parity(
        lambda lib: [
            lib.tensor(1 + 1j) == 1,
            lib.tensor(1j) != lib.tensor(1j),
            lib.tensor(2.0) == 2 + 0j,
        ]
    )


def _norm_program(lib):
    x = lib.tensor([[0.3, -1.2], [0.8, 2.0]], requires_grad=True)
    results = [x.norm(), x.norm(2), x.norm(2.0), x.norm("fro"), x.norm(keepdim=False)]
    results += [x.double().norm(), x.half().norm(), lib.tensor([3 + 4j, 1j]).norm()]
    results += [x.norm(dim=1), x.norm(1), x.norm(p=2, dtype=lib.float64)]
    total = sum(r.double().sum() for r in results[:5])
    total.backward()
    return results, x.grad


def test_norm_matches_pytorch():
    run_parity(_norm_program)


def test_norm_of_integers_raises_as_pytorch(real_torch):
    check_error(lambda lib: lib.tensor([3, 4]).norm(), real_torch)


def _data_program(lib):
    """`.data` and `detach()` of one tensor: writes through each are seen by all, `.data`
    keeps its own version counter, `detach()` shares it; views of a `.data` alias too."""
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    data, detached = y.data, y.detach()
    data.mul_(10)
    detached.add_(1)
    y_data_view = data[1:]
    y_data_view.zero_()
    versions = (y._version, data._version, detached._version)
    again = y.data
    again.fill_(5.0)
    return y.detach(), data, detached, again, versions, data.requires_grad, data.is_leaf


def test_data_aliases_match_pytorch():
    run_parity(_data_program)


def test_data_of_a_view_and_a_parameter():
    """`.data` of a view aliases the view's elements; a parameter's `.data` its memory."""
    base = torch.zeros(4)
    view = base[1:3]
    view.data.fill_(7.0)
    assert base.tolist() == [0.0, 7.0, 7.0, 0.0]
    param = torch.nn.Parameter(torch.ones(2))
    alias = param.data
    alias.mul_(3)
    param.data.add_(1)
    assert param.tolist() == alias.tolist() == [4.0, 4.0]
