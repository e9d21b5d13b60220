"""PyTorch's type promotion for tensor-with-tensor and tensor-with-Python-scalar."""

from __future__ import annotations

import itertools

import pytest

import autograd_compat as torch

DTYPES = ["bool", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
SCALARS = [True, 2, 2.5]


def _make(lib, name, zero_dim):
    dtype = getattr(lib, name)
    return lib.ones((), dtype=dtype) if zero_dim else lib.ones(2, dtype=dtype)


@pytest.mark.torch
@pytest.mark.parametrize("a,b", list(itertools.product(DTYPES, DTYPES)))
@pytest.mark.parametrize("zero_dim", [False, True], ids=["tensor", "zero_dim"])
def test_tensor_tensor_promotion_matches_pytorch(a, b, zero_dim, real_torch):
    ours = _make(torch, a, False) + _make(torch, b, zero_dim)
    theirs = _make(real_torch, a, False) + _make(real_torch, b, zero_dim)
    assert str(ours.dtype) == str(theirs.dtype)


@pytest.mark.torch
@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("scalar", SCALARS, ids=["bool", "int", "float"])
def test_tensor_scalar_promotion_matches_pytorch(a, scalar, real_torch):
    for op in (lambda t: t * scalar, lambda t: scalar + t, lambda t: t / scalar):
        ours, theirs = op(_make(torch, a, False)), op(_make(real_torch, a, False))
        assert str(ours.dtype) == str(theirs.dtype)


def test_promotion_without_pytorch():
    assert (torch.ones(2, dtype=torch.int32) * 2).dtype is torch.int32
    assert (torch.ones(2, dtype=torch.int64) * 2.5).dtype is torch.float32
    assert (torch.ones(2, dtype=torch.int64) / 2).dtype is torch.float32
    assert (torch.tensor([True]) + 1).dtype is torch.int64
    assert (torch.ones(2, dtype=torch.float16) + torch.tensor(1.0)).dtype is torch.float16
    i32 = torch.ones(2, dtype=torch.int32)
    assert (i32 + torch.tensor(1.0, dtype=torch.float64)).dtype is torch.float64
    assert (torch.ones(2, dtype=torch.float16) + torch.ones(2, dtype=torch.bfloat16)).dtype is (
        torch.float32
    )


def test_default_dtype_can_be_changed():
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.tensor([1.5]).dtype is torch.float64
        assert torch.ones(2).dtype is torch.float64
        assert (torch.ones(2, dtype=torch.int64) * 1.5).dtype is torch.float64
    finally:
        torch.set_default_dtype(torch.float32)
    with pytest.raises(TypeError, match="only floating-point types"):
        torch.set_default_dtype(torch.int64)


def test_binary_fast_path_agrees_and_is_taken(monkeypatch):
    """`binary_result_type` (every binary op's promotion) equals the general `result_type`
    for every dtype, shape and operand kind, and answers a float tensor with a Python number
    without it (`float`/`int` in that module are PyTorch's dtypes, not Python's types)."""
    from autograd_compat._pure import dtypes

    all_dtypes = [*DTYPES, "uint8", "int8", "int16", "complex64", "complex128"]
    others = [
        True,
        2,
        2.5,
        1j,
        torch.zeros(3, dtype=torch.int64),
        torch.zeros((), dtype=torch.float64),
    ]
    for name, zero_dim, other in itertools.product(all_dtypes, [False, True], others):
        x = _make(torch, name, zero_dim)
        assert dtypes.binary_result_type(x, other) == dtypes.result_type(x, other)

    def general(*operands):
        raise AssertionError("the fast path was not taken")

    monkeypatch.setattr(dtypes, "result_type", general)
    x = torch.ones(2)
    assert dtypes.binary_result_type(x, 2.5) is torch.float32
    assert dtypes.binary_result_type(x, 2) is torch.float32
    assert dtypes.binary_result_type(torch.ones(2, dtype=torch.int32), 2) is torch.int32
