"""The torch names Hugging Face transformers reaches for at import and on its main path, each
against real PyTorch where PyTorch on this host has the case."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex
from tests._helpers.torch_compare import check_error

STORAGE_DTYPES = ["uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2"]
STORAGE_DTYPES += ["float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]


@pytest.mark.parametrize("name", STORAGE_DTYPES)
def test_storage_dtypes_match_pytorch(name, real_torch):
    ours, theirs = getattr(torch, name), getattr(real_torch, name)
    assert repr(ours) == repr(theirs)
    for field in ("is_floating_point", "is_complex", "is_signed", "itemsize"):
        assert getattr(ours, field) == getattr(theirs, field), field
    if ours.is_floating_point:
        info, t_info = torch.finfo(ours), real_torch.finfo(theirs)
        assert (info.bits, info.max, info.tiny) == (t_info.bits, t_info.max, t_info.tiny)
        if name != "float8_e5m2fnuz":  # PyTorch says 0.125; its 2 mantissa bits give 0.25
            assert info.eps == t_info.eps
    else:
        assert (torch.iinfo(ours).max, torch.iinfo(ours).bits) == (
            real_torch.iinfo(theirs).max,
            real_torch.iinfo(theirs).bits,
        )
    values = [0.0, 1.0, 2.0, 16.0] if name != "float8_e8m0fnu" else [1.0, 2.0, 16.0]
    x = torch.tensor(values).to(ours)
    assert x.dtype is ours and x.to(torch.float32).tolist() == values
    assert torch.zeros(2, dtype=ours).type() == real_torch.zeros(2, dtype=theirs).type()


@pytest.mark.parametrize(
    "pair",
    [("float8_e4m3fn", "float32"), ("float8_e4m3fn", "float8_e5m2"), ("uint16", "uint8")]
    + [("uint8", "uint32"), ("uint64", "bool"), ("float8_e5m2", "bool")],
)
def test_storage_dtypes_do_not_promote(pair, real_torch):
    a, b = pair
    check_error(lambda t: t.promote_types(getattr(t, a), getattr(t, b)), real_torch)


def test_bare_grad_mode_decorators_match_pytorch(real_torch):
    def run(t):
        @t.no_grad
        def off(x):
            return x * 2

        @t.enable_grad
        def on(x):
            return x * 2

        @t.inference_mode
        def inference(x):
            return x * 2

        @t.no_grad
        def steps(x):
            yield x * 2
            yield x * 3

        x = t.ones(2, requires_grad=True)
        with t.no_grad():
            inside = on(x).requires_grad
        flags = [off(x).requires_grad, inside, inference(x).requires_grad]
        return flags + [y.requires_grad for y in steps(x)] + [off.__name__]

    assert run(torch) == run(real_torch) == [False, True, False, False, False, "off"]


def test_default_device():
    assert torch.get_default_device() == torch.tensor([]).device
    torch.set_default_device("cpu")
    try:
        assert torch.get_default_device() == torch.device("cpu")
        assert torch.ones(2).device == torch.device("cpu")
    finally:
        torch.set_default_device(None)
    assert torch.get_default_device() == torch.tensor([]).device
    with torch.device("meta"):
        assert torch.get_default_device() == torch.device("meta") == torch.tensor([]).device


def test_cuda_streams_and_graphs_are_importable_and_refuse_use():
    with torch.cuda.stream(None), torch.cuda.StreamContext(None):
        pass
    assert torch.cuda.is_current_stream_capturing() is False
    for make, name in [
        (torch.cuda.Stream, "torch.cuda.Stream"),
        (torch.cuda.Event, "torch.cuda.Event"),
        (torch.cuda.CUDAGraph, "torch.cuda.CUDAGraph"),
        (torch.cuda.current_stream, "torch.cuda.current_stream"),
        (lambda: torch.cuda.graph(None), "torch.cuda.graph"),
    ]:
        with pytest.raises(RuntimeError, match=f"^{name}: CUDA .* not available in autograd_c"):
            make()
    assert isinstance(torch.cuda.CUDAGraph | None, object)  # usable in annotations


def test_accelerator_follows_cuda(real_torch):
    accelerator = torch.accelerator
    assert accelerator.is_available() == torch.cuda.is_available()
    assert accelerator.device_count() == torch.cuda.device_count()
    if torch.cuda.is_available():
        assert accelerator.current_accelerator() == torch.device("cuda")
        assert accelerator.current_device_index() == 0
        accelerator.synchronize()
    else:
        assert accelerator.current_accelerator() is None
        check_error(lambda t: t.accelerator.current_device_index(), real_torch)
        check_error(lambda t: t.accelerator.synchronize(), real_torch)
        for name in ("memory_allocated", "max_memory_allocated", "get_memory_info"):
            check_error(lambda t, name=name: getattr(t.accelerator, name)(), real_torch)


def test_cuda_memory_queries(real_torch):
    queries = ["memory_allocated", "max_memory_allocated", "memory_reserved"]
    queries += ["max_memory_reserved", "memory_stats"]
    for name in queries:
        value = getattr(torch.cuda, name)()
        if not torch.cuda.is_available():
            assert value == getattr(real_torch.cuda, name)()
        else:
            assert isinstance(value, (int, dict))
    if not torch.cuda.is_available():
        for name in ("mem_get_info", "get_device_capability"):
            message = "Torch not compiled with CUDA enabled"
            check_error(lambda t, name=name: getattr(t.cuda, name)(), real_torch, message=message)
    else:
        free, total = torch.cuda.mem_get_info()
        assert 0 <= free <= total and min(torch.cuda.get_device_capability()) >= 0


def test_dynamo_and_compiler_decorators(real_torch):
    def f(x):
        return x + 1

    for module in (torch._dynamo, torch.compiler):
        assert module.allow_in_graph(f) is f and module.assume_constant_result(f) is f
    assert torch._dynamo.allow_in_graph([f, f]) == [f, f]
    check_error(lambda t: t._dynamo.allow_in_graph(3), real_torch)
    check_error(lambda t: t._dynamo.mark_static_address(3), real_torch)
    assert not torch.compiler.is_dynamo_compiling() and not torch.compiler.is_exporting()
    seen = []

    @torch.compile
    def step(x):
        seen.append(torch.compiler.is_dynamo_compiling())
        return torch.compiler.allow_in_graph(f)(x) * 2

    assert step(torch.ones(2)).tolist() == step(torch.ones(2)).tolist() == [4.0, 4.0]
    assert seen[0] is False and len(seen) > 1 and all(seen[1:])  # eager first, then traced


def test_sparse_init_zeros_per_column(real_torch):
    w = torch.empty(40, 30)
    torch.nn.init.sparse_(w, 0.25, std=0.5)
    zeros = (w == 0).sum(0)
    assert (zeros == 10).all()
    assert np.std(w.numpy()[w.numpy() != 0]) == pytest.approx(0.5, rel=0.1)
    check_error(lambda t: t.nn.init.sparse_(t.empty(2, 2, 2), 0.1), real_torch)


def test_index_tensors_stay_tensor_ops_under_transform_get_item_to_index():
    pad = torch.tensor([[True, False], [True, True]])
    with TransformGetItemToIndex():
        out = torch.vmap(lambda b: pad[b, torch.tensor(1)])(torch.arange(2))
    assert out.tolist() == [False, True]


def test_saving_a_storage_only_dtype_says_it_is_not_supported(tmp_path):
    """PyTorch has no typed storage for them (it writes their bytes untyped): no file with a
    storage class PyTorch lacks is written."""
    with pytest.raises(RuntimeError, match="torch.uint16 tensor is not yet supported"):
        torch.save(torch.tensor([1, 2], dtype=torch.uint16), tmp_path / "x.pt")
