"""The names Lightning's Trainer meets beyond torch.distributed: `torch._C._nn._parse_to`,
`torch._C._TensorMeta`, TorchScript's classes, `torch._dynamo.OptimizedModule`, DataLoader's
iterator classes and `multiprocessing_context`, CUDA RNG states on a CPU host,
`TorchFunctionMode`, `PyTorchFileReader` and a callable `map_location`."""

from __future__ import annotations

import pytest

import autograd_compat as torch
from autograd_compat._overrides import install
from autograd_compat.utils.data import DataLoader, TensorDataset
from autograd_compat.utils.data import dataloader as loader_module
from tests._helpers.torch_compare import check_error

TO_CALLS = [
    ((), {}),
    (("cpu",), {}),
    (("float64",), {}),
    (("cpu", "float16", True), {}),
    (("tensor",), {}),
    ((), {"device": "cpu", "dtype": "float32", "non_blocking": True}),
    (("float64", True), {}),
    ((), {"memory_format": "channels_last"}),
]


def _resolve(lib, value):
    if value == "tensor":
        return lib.zeros(2, dtype=lib.int32)
    if value in ("float64", "float16", "float32", "channels_last"):
        return getattr(lib, value)
    return value


def _parse(lib, args, kwargs):
    args = tuple(_resolve(lib, a) for a in args)
    kwargs = {k: _resolve(lib, v) for k, v in kwargs.items()}
    return lib._C._nn._parse_to(*args, **kwargs)


@pytest.mark.parametrize(("args", "kwargs"), TO_CALLS)
def test_parse_to_is_pytorchs(real_torch, args, kwargs):
    ours, theirs = _parse(torch, args, kwargs), _parse(real_torch, args, kwargs)
    assert len(ours) == len(theirs) == 4
    assert [str(v) for v in ours] == [str(v) for v in theirs]


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t._C._nn._parse_to("cpu", None, False, True),
        lambda t: t._C._nn._parse_to("cpu", "cpu"),
        lambda t: t._C._nn._parse_to(t.float32, t.float32),
        lambda t: t._C._nn._parse_to(foo=1),
    ],
)
def test_parse_to_errors_are_pytorchs(real_torch, call):
    check_error(call, real_torch)


def test_classes_for_isinstance_checks():
    assert isinstance(torch.Tensor, torch._C._TensorMeta)
    assert torch.jit.ScriptModule is torch.ScriptModule
    assert issubclass(torch.ScriptModule, torch.nn.Module)
    assert not isinstance(torch.jit.script(torch.nn.Linear(2, 2)), torch.jit.ScriptModule)
    compiled = torch.compile(torch.nn.Linear(2, 2))
    assert isinstance(compiled, torch._dynamo.OptimizedModule)
    assert torch.nn.parameter.is_lazy(torch.nn.parameter.UninitializedParameter())


def test_dataloader_iterators():
    loader = DataLoader(TensorDataset(torch.arange(5.0)), batch_size=2)
    iterator = iter(loader)
    assert isinstance(iterator, loader_module._SingleProcessDataLoaderIter)
    assert isinstance(iterator, loader_module._BaseDataLoaderIter)
    assert len(iterator) == 3 and iter(iterator) is iterator
    assert [b[0].tolist() for b in iterator] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    assert iterator._num_yielded == 3


def test_multiprocessing_context(real_torch):
    assert DataLoader([1, 2]).multiprocessing_context is None
    context = DataLoader([1, 2], num_workers=2, multiprocessing_context="spawn")
    assert context.multiprocessing_context.get_start_method() == "spawn"
    data = real_torch.utils.data

    for make in (
        lambda d: d.DataLoader([1, 2], multiprocessing_context="spawn"),
        lambda d: d.DataLoader([1, 2], num_workers=2, multiprocessing_context=3),
    ):
        check_error(lambda t, m=make: m(data if t is real_torch else torch.utils.data), real_torch)
    with pytest.raises(ValueError, match="valid start method in \\['spawn', 'forkserver'\\]"):
        DataLoader([1, 2], num_workers=2, multiprocessing_context="fork")


def test_cuda_rng_states_on_a_cpu_host(real_torch):
    assert torch.cuda.get_rng_state_all() == real_torch.cuda.get_rng_state_all() == []
    torch.cuda.set_rng_state_all([])
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        torch.cuda.set_rng_state_all([torch.zeros(3, dtype=torch.uint8)])


def test_a_torch_function_mode_sees_the_calls_in_its_block():
    """Lightning's `_EmptyInit` is a TorchFunctionMode (tests/overrides checks the protocol)."""
    seen = []

    class Mode(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    try:
        with Mode():
            torch.ones(2).sum()
    finally:
        install.uninstall()  # dispatch off again, as the other tests expect a process to be
    assert seen == ["ones", "sum"]


def test_file_reader_and_callable_map_location(real_torch, tmp_path):
    path = tmp_path / "state.pt"
    real_torch.save({"w": real_torch.arange(4.0), "n": real_torch.tensor([7])}, path)
    ours, theirs = torch.PyTorchFileReader(str(path)), real_torch.PyTorchFileReader(str(path))
    assert ours.get_all_records() == theirs.get_all_records()
    assert ours.get_record("data.pkl") == theirs.get_record("data.pkl")
    assert ours.serialization_id() == theirs.serialization_id()
    assert ours.has_record("byteorder") and not ours.has_record("nothing")
    assert ours.get_storage_from_record("data/0", 4, torch.float32).tolist() == [0, 1, 2, 3]
    seen = []

    def keep(storage, location):
        seen.append((location, storage.nbytes()))
        return storage

    loaded = torch.load(path, map_location=keep)
    assert loaded["w"].tolist() == [0.0, 1.0, 2.0, 3.0] and loaded["n"].tolist() == [7]
    assert sorted(seen) == [("cpu", 8), ("cpu", 16)]
    assert torch.load(path, map_location=lambda storage, location: None)["n"].tolist() == [7]
