"""Graph introspection: the autograd.graph.Node ABC, name/next_functions/metadata, gradient
edges, versions, and to_dot."""

from __future__ import annotations

import pytest

import autograd_compat as torch
from autograd_compat.autograd.graph import GradientEdge, Node, get_gradient_edge, to_dot


def test_node_abc_matches_pytorch(real_torch):
    for lib in (torch, real_torch):
        x = lib.ones(2, requires_grad=True)
        y = (x * 2).sum()
        accumulator = y.grad_fn.next_functions[0][0].next_functions[0][0]
        assert isinstance(y.grad_fn, lib.autograd.graph.Node)
        assert isinstance(accumulator, lib.autograd.graph.Node)
        assert not isinstance(x, lib.autograd.graph.Node)
        assert y.grad_fn.name() == "SumBackward0"
        assert accumulator.name() == "torch::autograd::AccumulateGrad"
        assert y.grad_fn.metadata == {}
        y.grad_fn.metadata["note"] = 1
        assert y.grad_fn.metadata == {"note": 1}
    assert Node.__abstractmethods__ == frozenset(
        {"name", "next_functions", "metadata", "register_hook", "register_prehook"}
    )


def test_custom_function_nodes_are_nodes():
    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    y = Twice.apply(torch.ones(2, requires_grad=True))
    assert isinstance(y.grad_fn, Node)
    assert y.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"


def test_gradient_edges_versions_and_sequence_numbers(real_torch):
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    z = y.exp()
    assert get_gradient_edge(y) == GradientEdge(y.grad_fn, 0)
    assert get_gradient_edge(x).node.name() == "torch::autograd::AccumulateGrad"
    assert y.grad_fn._sequence_nr() < z.grad_fn._sequence_nr()
    before = x._version
    torch.autograd.graph.increment_version(x)
    assert x._version == before + 1

    def no_grad(lib):
        lib.autograd.graph.get_gradient_edge(lib.ones(2))

    with pytest.raises(RuntimeError) as info:
        no_grad(real_torch)
    with pytest.raises(RuntimeError, match=str(info.value)):
        no_grad(torch)


def test_to_dot():
    w = torch.ones(2, 3, requires_grad=True)
    x = torch.ones(3)
    out = (w @ x).tanh().sum()
    dot = to_dot(out, params={"w": w})
    assert dot.startswith("digraph {") and dot.endswith("}")
    for name in ("SumBackward0", "TanhBackward0", "w\\n(2, 3)", "output 0\\n()"):
        assert name in dot or name.replace("\\n", "\n") in dot
    assert dot.count("->") == 4  # w -> mv -> tanh -> sum -> output
    assert to_dot(torch.ones(2)).count("->") == 0
