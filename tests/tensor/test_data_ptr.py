"""A tensor's memory as host bytes: data_ptr, untyped_storage, UntypedStorage.from_file,
frombuffer and view(dtype), against real PyTorch and the bytes numpy reads."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import autograd_compat as torch
from tests._helpers.torch_compare import catch, check_error, run_parity

DTYPES = ["float32", "float16", "bfloat16", "int64", "bool"]


def _read(address: int, nbytes: int) -> bytes:
    return ctypes.string_at(address, nbytes)


@pytest.mark.parametrize("name", DTYPES)
def test_data_ptr_reads_the_values_bytes(name, real_torch):
    values = np.arange(-3, 9).reshape(3, 4) % 5
    ours = torch.tensor(values).to(getattr(torch, name))
    theirs = real_torch.tensor(values).to(getattr(real_torch, name))
    row = ours[1]  # a view at offset 4 elements
    assert _read(ours.data_ptr(), 12 * ours.element_size()) == _read(
        theirs.data_ptr(), 12 * theirs.element_size()
    )
    assert row.data_ptr() - ours.data_ptr() == 4 * ours.element_size()
    assert _read(row.data_ptr(), 4 * ours.element_size()) == _read(
        theirs[1].data_ptr(), 4 * theirs.element_size()
    )


def test_data_ptr_names_one_memory():
    a, b = torch.zeros(3), torch.zeros(3)  # one shared filled array underneath
    assert a.data_ptr() != b.data_ptr()
    assert a.data_ptr() == a.data_ptr() == a.detach().data_ptr() == a.view(3).data_ptr()
    assert a.untyped_storage().data_ptr() == a.data_ptr()
    assert a.t().untyped_storage().data_ptr() == a.data_ptr()
    b.copy_(torch.ones(3))
    assert _read(b.data_ptr(), 12) == np.ones(3, np.float32).tobytes()
    assert torch.empty(0).data_ptr() == 0


def test_a_write_moves_the_address_and_releases_the_copy():
    a = torch.arange(4.0)
    address = a.data_ptr()
    buffer = a._storage.buffer
    assert buffer.pinned is buffer.value
    a.add_(1)
    assert buffer.pinned is None  # the copy data_ptr pinned is no longer held
    assert a.data_ptr() != address
    assert _read(a.data_ptr(), 16) == np.arange(1.0, 5.0, dtype=np.float32).tobytes()


def test_traced_tensor_has_no_address():
    def f(x):
        x.data_ptr()
        return x.sum()

    with pytest.raises(RuntimeError, match="data_ptr: this tensor is traced"):
        torch.func.grad(f)(torch.ones(2))


def test_untyped_storage_parity():
    def prog(torch):
        x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
        s = x.t().untyped_storage()
        part = s[4:12]
        return {
            "nbytes": s.nbytes(),
            "len": len(s),
            "byte": s[7],
            "last": s[-1],
            "part": part.tolist(),
            "offset": part.data_ptr() - s.data_ptr(),
            "repr": repr(torch.tensor([7, 9], dtype=torch.uint8).untyped_storage()),
            "made": torch.UntypedStorage(3).nbytes(),
            "untyped": s.untyped() is s,
            "class": isinstance(s, torch.storage.UntypedStorage),
            "as_float": torch.asarray(part, dtype=torch.float32),
            "as_default": torch.asarray(s[:16]),
            "out_of_range": catch(lambda: s[24], message=False),
        }

    run_parity(prog)


def test_asarray_of_a_storage_shares_the_tensors_memory():
    x = torch.arange(4.0)
    y = torch.asarray(x.untyped_storage()[4:12], dtype=torch.int32)
    y.fill_(0)
    assert x.tolist() == [0.0, 0.0, 0.0, 3.0]


def test_from_file(tmp_path, real_torch):
    path = tmp_path / "bytes.bin"
    path.write_bytes(np.arange(16, dtype=np.uint8).tobytes())
    for lib in (torch, real_torch):
        s = lib.UntypedStorage.from_file(str(path), shared=False, nbytes=12)
        assert s.nbytes() == 12 and s.tolist() == list(range(12))
        t = lib.asarray(s[4:12], dtype=lib.uint8).view(dtype=lib.float32)
        assert t.shape == (2,)
        assert t.numpy().tobytes() == bytes(range(4, 12))
    with pytest.raises(RuntimeError, match="shared=True"):
        torch.UntypedStorage.from_file(str(path), shared=True, nbytes=4)


def test_frombuffer_parity(real_torch):
    def prog(torch):
        data = bytearray(np.arange(8, dtype=np.float32).tobytes())
        return {
            "all": torch.frombuffer(data, dtype=torch.float32),
            "some": torch.frombuffer(data, dtype=torch.int16, count=3, offset=4),
            "grad": torch.frombuffer(data, dtype=torch.float32, requires_grad=True),
        }

    run_parity(prog)
    for args, kwargs in [
        ((bytearray(),), {}),
        ((bytearray(b"abc"),), {}),
        ((bytearray(b"abcdefgh"),), {"count": 3}),
        ((bytearray(b"abcdefgh"),), {"offset": 9}),
    ]:
        check_error(
            lambda lib, a=args, k=kwargs: lib.frombuffer(*a, dtype=lib.float32, **k), real_torch
        )


def test_view_dtype_parity(real_torch):
    def prog(torch):
        x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
        as_bytes = x.view(dtype=torch.uint8)
        as_bytes[1, 4:8] = torch.tensor([0, 0, 128, 191], dtype=torch.uint8)  # through x
        half = x[:, 1:].view(torch.int16)
        g = torch.ones(3, requires_grad=True)
        return {
            "bytes": as_bytes,
            "strides": (as_bytes.stride(), half.stride(), half.storage_offset()),
            "x": x,
            "ints": x.view(torch.int32),
            "bools": torch.tensor([0, 1], dtype=torch.uint8).view(torch.bool),
            "bf16": torch.tensor([1.5, -2.0], dtype=torch.bfloat16).view(torch.int16),
            "grad": g.view(torch.float16).requires_grad,
            "odd": catch(lambda: torch.zeros(3, dtype=torch.uint8).view(torch.int16)),
            "stride": catch(lambda: x.t().view(torch.int16)),
            "zero_dim": catch(lambda: torch.tensor(1, dtype=torch.uint8).view(torch.int16)),
        }

    run_parity(prog)
