"""_counter(torch): the counts per module and op equal real
PyTorch's for an MLP, convolutions and the matmul family, forward and backward."""

import importlib

import pytest

import autograd_compat as torch
from autograd_compat._state.modes import modes


def _mlp(lib):
    model = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(), lib.nn.Linear(16, 4))
    model(lib.randn(2, 8, requires_grad=True)).sum().backward()


def _convs(lib):
    conv = lib.nn.Conv2d(3, 5, 3, padding=1)
    conv(lib.randn(2, 3, 6, 6, requires_grad=True)).sum().backward()
    conv(lib.randn(2, 3, 6, 6)).sum().backward()  # the weight's gradient only
    lib.nn.ConvTranspose2d(3, 2, 3, stride=2)(lib.randn(1, 3, 5, 5))
    lib.nn.Conv1d(4, 6, 3, groups=2)(lib.randn(4, 7))  # unbatched, grouped


def _matmuls(lib):
    lib.nn.Linear(8, 4)(lib.randn(2, 5, 8)).sum().backward()
    a = lib.randn(2, 3, 4, 5, requires_grad=True)
    (a @ lib.randn(2, 3, 5, 6)).sum().backward()
    lib.randn(2, 3, 4, 5) @ lib.randn(5, 6)
    lib.randn(4, 5) @ lib.randn(2, 5, 6)
    lib.baddbmm(lib.randn(2, 3, 5), lib.randn(2, 3, 4), lib.randn(2, 4, 5))
    lib.randn(3) @ lib.randn(3, 4)
    lib.mm(lib.randn(3, 4), lib.randn(4, 2, requires_grad=True)).sum().backward()
    lib.randn(3, 4) @ lib.randn(4)  # mv, elementwise ops: not counted


def _counter(lib):
    return importlib.import_module(f"{lib.__name__}.utils.flop_counter").FlopCounterMode


def _counts(lib, program):
    with _counter(lib)(display=False) as counter:
        program(lib)
    counts = {k: {str(op): n for op, n in v.items()} for k, v in counter.get_flop_counts().items()}
    return counter.get_total_flops(), counts


@pytest.mark.parametrize("program", [_mlp, _convs, _matmuls])
def test_counts_match_pytorch(program, real_torch):
    assert _counts(torch, program) == _counts(real_torch, program)


def test_backward_outside_the_block_is_not_counted_and_the_table(capsys):
    lin = torch.nn.Linear(8, 4)
    with _counter(torch)(depth=1) as counter:
        y = lin(torch.ones(2, 8, requires_grad=True))
    y.sum().backward()
    assert counter.get_total_flops() == 2 * 2 * 4 * 8
    printed = capsys.readouterr().out
    assert printed.splitlines()[0].split() == ["Module", "FLOP", "%", "Total"]
    assert " - aten.addmm" in printed and "Linear" in printed and "100.00%" in printed
    assert counter.get_table(depth=0).splitlines()[2].split() == ["Global", "128.000", "100.00%"]


def test_custom_mapping_counts_an_op_by_its_aten_name():
    mapping = {torch.ops.aten.mul: lambda a, b, out_shape: out_shape[0]}
    with _counter(torch)(display=False, custom_mapping=mapping) as c:
        torch.ones(7) * torch.ones(7)
    assert c.get_flop_counts()["Global"] == {torch.ops.aten.mul: 7}


def _meta_mlp(lib):
    """FLOPs of a model on the meta device: counted without computing anything."""
    with lib.device("meta"):
        model = lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.ReLU(), lib.nn.Linear(16, 4))
        model(lib.randn(2, 8))


def test_counts_on_the_meta_device_match_pytorch(real_torch):
    assert _counts(torch, _meta_mlp) == _counts(real_torch, _meta_mlp)


def test_the_mode_stops_observing_when_it_ends():
    """Leaving the block unregisters its observer (a bound method, removed by equality)."""
    before = list(modes.observers)
    with _counter(torch)(display=False):
        torch.ones(2) * torch.ones(2)
    assert modes.observers == before
