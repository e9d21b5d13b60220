"""The op registry: one unique id per op, one registry entry per maths across torch.*,
Tensor.*, F.* and nn modules, and the F.* ops behaving as their torch.* twins (PyTorch's)."""

import re

import pytest

import autograd_compat as torch
import autograd_compat.nn.functional as F
from autograd_compat._pure import op as _op
from autograd_compat._pure.op import register, registered_ops

# What PyTorch's node names end with ("DiagonalBackward0_copy" is torch.diag's, verbatim).
_NODE_NAME = re.compile(r"(Backward\d*(_copy)?|Backwards|NotImplemented|CopySlices)$")


def test_registering_an_id_twice_raises(monkeypatch):
    monkeypatch.setattr(_op, "_REGISTRY", dict(_op._REGISTRY))
    op = register("test.twice", lambda x: x, node="TestBackward0")
    assert registered_ops()["test.twice"] is op
    with pytest.raises(ValueError, match=r"'test\.twice'"):
        register("test.twice", lambda x: x, node="TestBackward0")
    with pytest.raises(ValueError, match="'exp'"):
        register("exp", lambda x: x, node="ExpBackward0")


def test_every_op_has_one_unique_id_and_a_pytorch_node_name():
    ops = registered_ops()
    assert len(ops) > 300
    assert len({id(op) for op in ops.values()}) == len(ops)  # no op under two ids
    for op_id, op in ops.items():
        assert op.id == op_id
        assert _NODE_NAME.search(op.name), (op_id, op.name)
        assert op.saves in ("all", "none", "others", "output", "positions"), op_id
        assert op.shown_inputs is None or isinstance(op.shown_inputs, tuple), op_id


def _x():
    return torch.tensor([[0.5, -1.0, 2.0], [0.0, 1.5, -0.25]], requires_grad=True)


# (registry id, ways to reach it): torch.X, Tensor.X, F.X and nn modules record the same op.
_SAME_OP = [
    (
        "tanh",
        [torch.tanh, torch.Tensor.tanh, F.tanh, torch.nn.Tanh()],
    ),
    (
        "sigmoid",
        [torch.sigmoid, torch.Tensor.sigmoid, F.sigmoid, torch.nn.Sigmoid(), torch.special.expit],
    ),
    (
        "relu",
        [
            torch.relu,
            torch.Tensor.relu,
            F.relu,
            torch.nn.ReLU(),
            lambda x: F.relu(x.clone(), inplace=True),
            lambda x: torch.nn.ReLU(inplace=True)(x.clone()),
            lambda x: x.clone().relu_(),
        ],
    ),
    (
        "softmax",
        [
            lambda x: torch.softmax(x, 1),
            lambda x: x.softmax(1),
            lambda x: F.softmax(x, 1),
            torch.nn.Softmax(1),
            lambda x: torch.special.softmax(x, 1),
        ],
    ),
    (
        "log_softmax",
        [
            lambda x: torch.log_softmax(x, 1),
            lambda x: x.log_softmax(1),
            lambda x: F.log_softmax(x, 1),
            torch.nn.LogSoftmax(1),
            lambda x: torch.special.log_softmax(x, 1),
        ],
    ),
]


@pytest.mark.parametrize(("op_id", "fns"), _SAME_OP, ids=[case[0] for case in _SAME_OP])
def test_every_namespace_records_the_same_registry_entry(op_id, fns):
    op = registered_ops()[op_id]
    for fn in fns:
        assert fn(_x()).grad_fn.op is op, fn


@pytest.mark.parametrize("name", ["tanh", "sigmoid", "relu"])
def test_f_op_modified_in_place_fails_backward_as_in_pytorch(name, real_torch):
    messages = []
    for lib, functional in ((torch, F), (real_torch, real_torch.nn.functional)):
        x = lib.tensor([0.5, -1.0], requires_grad=True)
        y = getattr(functional, name)(x)
        y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
            y.sum().backward()
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
def test_f_op_float16_gradient_is_the_torch_ops_and_pytorchs(name, real_torch):
    values = [0.5, -1.3, 2.0, 0.1]
    grads = []
    for fn in (getattr(F, name), getattr(torch, name)):
        x = torch.tensor(values, dtype=torch.float16, requires_grad=True)
        fn(x).sum().backward()
        grads.append(x.grad.tolist())
    x = real_torch.tensor(values, dtype=real_torch.float16, requires_grad=True)
    getattr(real_torch.nn.functional, name)(x).sum().backward()
    assert grads[0] == grads[1] == x.grad.tolist()


def _set_rows(y, rows, value):
    y[rows] = value
    return y


# Ops whose index, mask or scalar inputs are no inputs of PyTorch's node: next_functions
# lists only the others (the ops' shown_inputs).
_SHOWN = [
    ("index", lambda lib, x: x[lib.tensor([1, 0])]),
    ("index_put", lambda lib, x: _set_rows(x.clone(), lib.tensor([0]), x[1])),
    ("gather", lambda lib, x: x.gather(1, lib.tensor([[0], [2]]))),
    ("index_select", lambda lib, x: x.index_select(1, lib.tensor([2, 0]))),
    ("take", lambda lib, x: x.take(lib.tensor([4, 1]))),
    ("masked_select", lambda lib, x: x.masked_select(x > 0)),
    ("masked_fill", lambda lib, x: x.masked_fill(x > 0, 3.0)),
    ("masked_fill.tensor", lambda lib, x: x.masked_fill(x > 0, x[0, 0])),
    ("scatter", lambda lib, x: x.scatter(1, lib.tensor([[0], [1]]), x[:, :1])),
    ("scatter.value", lambda lib, x: x.scatter(1, lib.tensor([[0], [1]]), 2.0)),
    ("scatter_add", lambda lib, x: x.scatter_add(1, lib.tensor([[0], [1]]), x[:, :1])),
    ("index_add", lambda lib, x: x.index_add(1, lib.tensor([0]), x[:, :1])),
    ("index_fill", lambda lib, x: x.index_fill(1, lib.tensor([0]), 2.0)),
    ("index_copy", lambda lib, x: x.index_copy(1, lib.tensor([0]), x[:, :1])),
    ("masked_scatter", lambda lib, x: x.masked_scatter(x > 0, x * 2)),
    ("rsub.scalar", lambda lib, x: 2 - x),
    ("pow.scalar_base", lambda lib, x: 2**x),
]


@pytest.mark.parametrize(("op_id", "fn"), _SHOWN, ids=[case[0] for case in _SHOWN])
def test_next_functions_list_the_shown_inputs(op_id, fn, real_torch):
    def listed(lib):
        out = fn(lib, lib.tensor([[0.5, -1.0, 2.0], [0.0, 1.5, -0.25]], requires_grad=True))
        return out.grad_fn, [type(n).__name__ for n, _ in out.grad_fn.next_functions]

    node, ours = listed(torch)
    real_node, theirs = listed(real_torch)
    assert node.op is registered_ops()[op_id]
    assert node.op.shown_inputs is not None
    assert (node.name(), ours) == (real_node.name(), theirs)
