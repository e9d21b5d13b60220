"""The torch names torchvision, timm and torchmetrics import: torch.jit's TorchScript
decorators, nn.modules.utils, torch.ao.quantization's stubs, generic datasets and samplers,
torch.fx registration, torch.onnx registrations, nn.utils.fusion and
torch._dynamo.utils.is_compile_supported; against real PyTorch where it has the behaviour."""

from __future__ import annotations

import collections.abc
import typing
from collections import OrderedDict

import numpy as np
import pytest

import autograd_compat
import autograd_compat as torch
from autograd_compat import fx, nn


def test_the_modules_import_under_the_alias():
    with autograd_compat.alias_torch():
        import torch.ao.quantization
        import torch.fx
        import torch.fx.graph_module
        import torch.hub
        import torch.jit.annotations
        import torch.nn.modules.utils
        import torch.nn.utils.fusion
        import torch.onnx.symbolic_helper
        import torch.onnx.symbolic_opset11
        import torch.utils.model_zoo

        assert torch.fx.wrap is fx.wrap
        assert torch.nn.utils.fusion.fuse_conv_bn_eval is nn.utils.fusion.fuse_conv_bn_eval
        assert torch.utils.model_zoo.load_url is torch.hub.load_state_dict_from_url
        assert torch.ao.quantization.QuantStub.__module__ == "autograd_compat.ao.quantization.stubs"
    assert autograd_compat.nn.utils.__name__ == "autograd_compat.nn.utils"  # not modules.utils


def test_jit_decorators_return_what_they_are_given(real_torch):
    for lib in (torch, real_torch):

        class Model(lib.nn.Module):
            @lib.jit._overload_method  # noqa: F811
            def forward(self, x: int) -> int: ...

            def forward(self, x):  # noqa: F811
                return x + 1

        @lib.jit._script_if_tracing
        def double(x):
            return 2 * x

        assert Model()(1) == 2 and double(3) == 6
        assert lib.jit.Final is typing.Final
        assert lib.jit.annotations.BroadcastingList2[int] is None
    assert torch.jit.interface(Model) is Model


def test_nn_modules_utils_as_pytorch(real_torch):
    from autograd_compat.nn.modules import utils as ours

    theirs = _real_module(real_torch, "torch.nn.modules.utils")
    for name in ("_single", "_pair", "_triple", "_quadruple"):
        for value in (3, [1, 2], (4,)):
            assert getattr(ours, name)(value) == getattr(theirs, name)(value)
    assert ours._pair.__name__ == "_pair"
    assert ours._reverse_repeat_tuple((1, 2), 2) == theirs._reverse_repeat_tuple((1, 2), 2)
    assert ours._list_with_default([None, 4], [1, 2, 3]) == [2, 4]
    for module in (ours, theirs):
        state = OrderedDict({"module.a": 1, "b": 2})
        state._metadata = {"": {}, "module": {}, "module.a": {}}  # type: ignore[attr-defined]
        module.consume_prefix_in_state_dict_if_present(state, "module.")
        assert list(state) == ["b", "a"]
        assert sorted(state._metadata) == ["", "a"]  # type: ignore[attr-defined]


def _real_module(real_torch, name: str):
    import importlib

    assert real_torch is not None
    return importlib.import_module(name)


def test_quant_stubs_are_identities_in_float_mode():
    x = torch.randn(2, 3, requires_grad=True)
    model = nn.Sequential(torch.ao.quantization.QuantStub(), torch.ao.quantization.DeQuantStub())
    assert model(x) is x
    assert torch.ao.quantization.QuantStub(qconfig="q").qconfig == "q"
    assert not hasattr(torch.ao.quantization.DeQuantStub(), "qconfig")
    with pytest.raises(NotImplementedError, match="torch.ao.quantization.prepare: quantization"):
        torch.ao.quantization.prepare(model, inplace=True)
    with pytest.raises(
        AttributeError, match="^module 'torch.ao.quantization' has no attribute 'no_such_name'$"
    ):
        torch.ao.quantization.no_such_name  # noqa: B018  (PyTorch has none: its own text)


def test_datasets_and_samplers_are_generic():
    data = torch.utils.data

    class Numbers(data.Dataset[int]):
        def __getitem__(self, index: int) -> int:
            return index

        def __len__(self) -> int:
            return 4

    class Stream(data.IterableDataset[int]):
        def __iter__(self):
            return iter(range(3))

    class Every(data.Sampler[int]):
        def __iter__(self):
            return iter(range(4))

    assert typing.get_origin(data.Dataset[int]) is data.Dataset
    assert isinstance(Stream(), collections.abc.Iterable)
    assert list(data.DataLoader(Numbers(), batch_size=2, sampler=Every()))[1].tolist() == [2, 3]
    assert list(data.DataLoader(Stream(), batch_size=3))[0].tolist() == [0, 1, 2]
    for generic in (data.DataLoader, data.Subset, data.DistributedSampler, data.ConcatDataset):
        assert typing.get_origin(generic[int]) is generic
    assert data.BatchSampler.__orig_bases__ == (data.Sampler[list[int]],)
    assert typing.Generic in data.Sampler.__mro__


def test_fx_wrap_registers_at_module_level():
    namespace: dict = {}
    code = "import autograd_compat as torch\ndef f(x):\n    return x\nresult = torch.fx.wrap(f)\n"
    exec(compile(code, "<module_source>", "exec"), namespace)
    assert namespace["result"] is namespace["f"]
    registry = fx._symbolic_trace._wrapped_fns_to_patch
    assert registry[(id(namespace), "f")] is namespace
    exec(compile("torch.fx.wrap('g')", "<module_source>", "exec"), namespace)
    assert (id(namespace), "g") in registry
    with pytest.raises(NotImplementedError, match="wrap must be called at the top level"):
        fx.wrap(len)
    with pytest.raises(RuntimeError, match="Must be either a callable or string name"):
        exec(compile("torch.fx.wrap(3)", "<module_source>", "exec"), namespace)


def test_fx_copy_attr():
    source = nn.Sequential(nn.Linear(2, 2))
    source.register_buffer("scale", torch.ones(2))
    target = nn.Module()
    fx.graph_module._copy_attr(source, target, "0.weight")
    fx.graph_module._copy_attr(source, target, "scale")
    assert target.get_submodule("0").weight is source[0].weight
    assert "scale" in dict(target.named_buffers())


def test_onnx_custom_op_registrations(real_torch):
    symbolic = lambda g, *args: None  # noqa: E731
    for lib in (torch, real_torch):
        lib.onnx.register_custom_op_symbolic("vision_test::nms", symbolic, 11)
        lib.onnx.unregister_custom_op_symbolic("vision_test::nms", 11)
        with pytest.raises(ValueError, match="onnx domain cannot be modified"):
            lib.onnx.register_custom_op_symbolic("onnx::Add", symbolic, 11)
        with pytest.raises(RuntimeError, match="must match the format domain::name"):
            lib.onnx.register_custom_op_symbolic("no_domain", symbolic, 11)
        assert lib.onnx.symbolic_helper.parse_args("v", "f")(symbolic) is not None
    assert torch.onnx.symbolic_helper.parse_args("v")(symbolic) is symbolic
    with pytest.raises(NotImplementedError, match="symbolic_opset11.unsqueeze: it runs only"):
        torch.onnx.symbolic_opset11.unsqueeze(None, None, 0)


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn_eval_as_pytorch(transpose, real_torch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    weight = rng.standard_normal((3, 4, 3, 3) if transpose else (4, 3, 3, 3))
    scale, shift, mean = rng.standard_normal((3, 4))
    var = rng.uniform(0.5, 2.0, 4)
    results = []
    for lib in (torch, real_torch):
        conv = (lib.nn.ConvTranspose2d if transpose else lib.nn.Conv2d)(3, 4, 3, bias=False)
        bn = lib.nn.BatchNorm2d(4)
        with lib.no_grad():
            for tensor, value in [
                (conv.weight, weight),
                (bn.weight, scale),
                (bn.bias, shift),
                (bn.running_mean, mean),
                (bn.running_var, var),
            ]:
                tensor.copy_(lib.tensor(value))
        conv.eval(), bn.eval()
        fused = lib.nn.utils.fusion.fuse_conv_bn_eval(conv, bn, transpose=transpose)
        with lib.no_grad():
            results.append((fused(lib.tensor(x)).numpy(), bn(conv(lib.tensor(x))).numpy()))
    np.testing.assert_allclose(results[0][0], results[0][1], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-4, atol=1e-4)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        torch.nn.utils.fusion.fuse_conv_bn_eval(nn.Conv2d(1, 1, 1), nn.BatchNorm2d(1))


def test_fuse_linear_bn_eval():
    linear, bn = nn.Linear(3, 4).eval(), nn.BatchNorm1d(4).eval()
    with torch.no_grad():
        bn.running_mean.copy_(torch.tensor([0.5, -1.0, 2.0, 0.0]))
        bn.running_var.copy_(torch.tensor([1.5, 0.5, 2.0, 1.0]))
    x = torch.randn(5, 3)
    fused = nn.utils.fusion.fuse_linear_bn_eval(linear, bn)
    np.testing.assert_allclose(fused(x).detach().numpy(), bn(linear(x)).detach().numpy(), 1e-5)
    with pytest.raises(AssertionError, match="linear.out_features == bn.num_features"):
        nn.utils.fusion.fuse_linear_bn_eval(linear, nn.BatchNorm1d(3).eval())


def test_is_compile_supported():
    from autograd_compat._dynamo.utils import is_compile_supported

    assert is_compile_supported("cpu") and not is_compile_supported("mps")


def test_torch_assert(real_torch):
    for lib in (torch, real_torch):
        lib._assert(lib.tensor(True), "never raised")
        with pytest.raises(AssertionError, match="the message"):
            lib._assert(False, "the message")
