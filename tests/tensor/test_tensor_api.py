"""The Tensor surface: attributes, conversions, factories, legacy constructors,
and PyTorch's errors for misuse (type and text)."""

from __future__ import annotations

import copy
import re
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._pure import device as _device
from autograd_compat._pure import errors as _errors
from autograd_compat.autograd import Variable


def test_metadata():
    t = torch.zeros(2, 3)
    assert t.shape == (2, 3) and repr(t.shape) == "torch.Size([2, 3])"
    assert t.size() == torch.Size([2, 3]) and t.size(1) == 3 and t.size(-1) == 3
    assert t.dim() == 2 and t.ndim == 2 and t.numel() == 6 and len(t) == 2
    assert t.dtype is torch.float32 and str(t.dtype) == "torch.float32"
    assert str(t.device) == "cpu" and t.device == torch.device("cpu")
    assert t.is_leaf and not t.requires_grad and t.grad is None and t.grad_fn is None
    assert t.type() == "torch.FloatTensor"


def test_size_slices_and_concatenations_are_sizes(real_torch):
    """A slice, a sum or a repetition of a Size is a Size (errors built from one print it as
    PyTorch's do); its items are ints; adding a list is PyTorch's TypeError."""
    for lib in (torch, real_torch):
        s = lib.Size([2, 3, 4])
        got = [s[1:], s[::-1], s + (5,), (5,) + s, s * 2, 2 * s, s + s]
        assert [repr(x) for x in got] == [
            "torch.Size([3, 4])",
            "torch.Size([4, 3, 2])",
            "torch.Size([2, 3, 4, 5])",
            "torch.Size([5, 2, 3, 4])",
            "torch.Size([2, 3, 4, 2, 3, 4])",
            "torch.Size([2, 3, 4, 2, 3, 4])",
            "torch.Size([2, 3, 4, 2, 3, 4])",
        ]
        assert type(s[0]) is int and hash(s) == hash((2, 3, 4))
        with pytest.raises(TypeError, match=r"can only concatenate tuple \(not list\) to torch"):
            s + [5]


def test_conversions():
    t = torch.tensor([[1.5, 2.0], [3.0, 4.0]])
    assert t.tolist() == [[1.5, 2.0], [3.0, 4.0]]
    assert torch.tensor(2.5).item() == 2.5 and float(torch.tensor(2.5)) == 2.5
    assert int(torch.tensor(3)) == 3 and bool(torch.tensor([True]))
    assert list(range(5))[torch.tensor(2)] == 2
    np.testing.assert_array_equal(np.asarray(t), [[1.5, 2.0], [3.0, 4.0]])
    assert isinstance(t.numpy(), np.ndarray)
    assert [row.tolist() for row in t] == [[1.5, 2.0], [3.0, 4.0]]
    assert t.jax().dtype == jnp.float32


def test_dtype_conversions_and_to():
    t = torch.tensor([1.7, -2.2])
    assert t.double().dtype is torch.float64 and t.long().tolist() == [1, -2]
    assert t.float() is t and t.to(torch.float32) is t
    assert t.to(torch.float64).dtype is torch.float64
    assert t.to("cpu") is t and t.to(torch.zeros(1, dtype=torch.int32)).dtype is torch.int32
    assert t.to(dtype=torch.float16).dtype is torch.float16
    assert t.to(None) is t and t.to(None, None) is t  # a device that may be None, as PyTorch
    assert t.to(None, torch.float64).dtype is torch.float64
    x = torch.ones(2, requires_grad=True)
    assert x.double().grad_fn.name() == "ToCopyBackward0"


def test_64_bit_types_are_real():
    assert torch.tensor([2**40]).dtype is torch.int64
    assert torch.tensor([2**40]).item() == 2**40
    assert torch.tensor([1.0], dtype=torch.float64).jax().dtype == jnp.float64
    assert (torch.tensor([1.0], dtype=torch.float64) + 1e-12).item() != 1.0


def test_detach_clone_and_data():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None
    c = y.clone()
    assert c.grad_fn.name() == "CloneBackward0"
    alias = x.data
    assert not alias.requires_grad
    alias.add_(1)  # .data writes reach x without a version bump on x
    assert x.tolist() == [2.0, 3.0] and x._version == 0
    x.data = torch.tensor([5.0, 6.0])
    assert x.tolist() == [5.0, 6.0] and x.requires_grad
    y.detach_()
    assert y.is_leaf and not y.requires_grad


def test_requires_grad_rules():
    x = torch.ones(2)
    assert x.requires_grad_() is x and x.requires_grad
    x.requires_grad = False
    assert not x.requires_grad
    with pytest.raises(RuntimeError, match=re.escape(_errors.FLOAT_REQUIRES_GRAD)):
        torch.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(_errors.FLOAT_REQUIRES_GRAD_INPLACE)):
        torch.ones(2, dtype=torch.long).requires_grad_()
    y = torch.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match=re.escape(_errors.NON_LEAF_REQUIRES_GRAD)):
        y.requires_grad_(False)
    assert y.requires_grad_(True) is y


def test_numpy_of_a_tensor_requiring_grad_is_refused():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(_errors.NUMPY_REQUIRES_GRAD)):
        x.numpy()
    assert x.detach().numpy().tolist() == [1.0, 1.0]


def test_grad_assignment_is_checked():
    x = torch.ones(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="assigned a gradient of size|assign a gradient of size"):
        x.grad = torch.ones(3)
    with pytest.raises(RuntimeError, match="dtype 'double' to a tensor with grad_dtype 'Float'"):
        x.grad = torch.ones(2, 2, dtype=torch.float64)
    with pytest.raises(TypeError, match="expected to be a Tensor or None"):
        x.grad = 3
    x.grad = torch.zeros(2, 2)
    x.grad = None


def test_scalar_conversion_errors():
    with pytest.raises(RuntimeError, match=re.escape(_errors.SCALAR_CONVERSION.format(numel=6))):
        torch.ones(2, 3).item()
    with pytest.raises(RuntimeError, match=re.escape(_errors.AMBIGUOUS_BOOL)):
        bool(torch.ones(2))
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(torch.tensor(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(torch.tensor(1.0))


def test_factories_and_default_dtypes():
    assert torch.tensor([1, 2]).dtype is torch.int64
    assert torch.tensor([1.0, 2]).dtype is torch.float32
    assert torch.tensor([True]).dtype is torch.bool
    assert torch.tensor(np.array([1.0])).dtype is torch.float64
    assert torch.from_numpy(np.arange(3, dtype=np.int32)).dtype is torch.int32
    assert torch.as_tensor([1.0]).dtype is torch.float32
    assert torch.zeros(2, 3).shape == (2, 3) and torch.ones((2, 3)).shape == (2, 3)
    assert torch.full((2,), 7).dtype is torch.int64 and torch.full((2,), 7.0).dtype is torch.float32
    assert torch.empty(4).shape == (4,)
    assert torch.arange(5).tolist() == [0, 1, 2, 3, 4] and torch.arange(5).dtype is torch.int64
    assert torch.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert torch.linspace(0, 1, 3).tolist() == [0.0, 0.5, 1.0]
    assert torch.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    like = torch.zeros(2, dtype=torch.float64)
    assert torch.ones_like(like).dtype is torch.float64 and torch.zeros_like(like).shape == (2,)
    assert torch.full_like(like, 3).tolist() == [3.0, 3.0]


def test_random_factories_follow_manual_seed():
    torch.manual_seed(123)
    a = torch.rand(3)
    b = torch.randn(2, 2)
    torch.manual_seed(123)
    assert torch.rand(3).tolist() == a.tolist() and torch.randn(2, 2).tolist() == b.tolist()
    assert a.dtype is torch.float32 and (0 <= a.numpy()).all() and (a.numpy() < 1).all()


def test_legacy_constructors():
    w = torch.FloatTensor([0.1, 1.0, 0.0001])
    assert w.dtype is torch.float32 and isinstance(w, torch.FloatTensor)
    assert not isinstance(w, torch.LongTensor)
    assert torch.FloatTensor(2, 3).shape == (2, 3)
    assert torch.DoubleTensor([1]).dtype is torch.float64
    assert torch.LongTensor([1, 2]).dtype is torch.int64
    assert torch.Tensor([1, 2]).dtype is torch.float32
    assert torch.Tensor(2, 2).shape == (2, 2)


def test_variable_returns_a_leaf_tensor():
    v = Variable(torch.ones(2), requires_grad=True)
    assert isinstance(v, torch.Tensor) and v.is_leaf and v.requires_grad
    with pytest.raises(TypeError):
        Variable([1.0])


def test_deepcopy_of_a_leaf():
    x = torch.tensor([1.0], requires_grad=True)
    y = copy.deepcopy(x)
    assert y is not x and y.requires_grad and y.tolist() == [1.0]


def test_deepcopy_of_a_deferred_or_host_value_is_a_working_tensor():
    """A copy of a value not computed yet (a deferred op's, read on the host) is a tensor
    like any other: ops, detach and clone work on it (torchmetrics deep-copies its states)."""
    small = torch.tensor(2.0)
    for _ in range(3):  # (a shape met a third time is deferred)
        deferred = torch.maximum(small, torch.tensor(3.0))
    host = torch.zeros(3)
    host[1] = 5.0  # (a small tensor written item by item lives on the host)
    for original, expected in ((deferred, 3.0), (host, [0.0, 5.0, 0.0])):
        duplicate = copy.deepcopy(original)
        assert duplicate.detach().clone().tolist() == expected
        assert (duplicate + 1).tolist() == (torch.tensor(expected) + 1).tolist()


def test_devices():
    assert torch.device("cuda:1").index == 1 and str(torch.device("cuda", 0)) == "cuda:0"
    assert repr(torch.device("cpu")) == "device(type='cpu')"
    with pytest.raises(AssertionError, match=re.escape(_errors.NO_CUDA)):
        torch.ones(2, device="cuda")
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        torch.device("npu")
    assert str(torch.device("vulkan")) == "vulkan"  # a PyTorch device type: named, holds nothing
    with pytest.raises(RuntimeError, match="the vulkan device has no backend"):
        torch.ones(2, device="vulkan")


@pytest.mark.parametrize("factory", ["tensor", "as_tensor", "from_numpy"])
def test_factories_copy_numpy_data(factory):
    """JAX on CPU may alias a numpy buffer: a later write to the array must not reach the
    tensor (PyTorch's tensor() copies; here from_numpy and as_tensor copy too, as documented)."""
    a = np.ones(3, np.float32)
    t = getattr(torch, factory)(a)
    a[0] = 5.0
    np.testing.assert_array_equal(t.numpy(), np.ones(3, np.float32))


@pytest.mark.parametrize(
    "array",
    [
        np.float32(2.5),
        np.arange(6, dtype=np.float64).reshape(2, 3),
        np.arange(12, dtype=np.int64).reshape(3, 4)[:, ::2],  # not contiguous
        np.array([True, False]),
        np.ones(3, np.float16),
        np.array([1 + 2j], np.complex64),
        np.zeros((0, 4), np.float32),
    ],
    ids=["0d", "f64", "strided", "bool", "f16", "c64", "empty"],
)
def test_host_transfer_matches_device_put(array):
    """The fast host-to-device transfer gives what `jax.device_put` gives: the same values,
    dtype, shape and device, uncommitted (so jitted ops see one kind of argument)."""
    expected = jax.device_put(array)
    got = _device.host_to_device(np.asarray(array))
    assert (got.shape, got.dtype, got.committed) == (expected.shape, expected.dtype, False)
    assert got.devices() == expected.devices()
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))


def test_float_of_a_requires_grad_tensor_warns_only_with_grad_mode_on(real_torch):
    # PyTorch warns once per process unless told to warn always (another test may have made it)
    previous = real_torch.is_warn_always_enabled()
    real_torch.set_warn_always(True)
    try:
        for lib in (torch, real_torch):
            x = lib.ones(1, requires_grad=True) * 2
            with lib.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("error")
                assert float(x) == 2.0  # LBFGS reads its losses like this
            with pytest.warns(UserWarning, match="requires_grad=True to a scalar"):
                float(x)
    finally:
        real_torch.set_warn_always(previous)
