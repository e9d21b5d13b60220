"""dtype and device errors raise PyTorch's exception type with PyTorch's text.

Two sweeps, each call run on real PyTorch and on autograd_compat:
- `test_op_table_dtypes`: every row of the op table whose op has dtype rules
  (`_pure/dtype_rules.RULES`), its floating inputs turned int64, bool or complex128, or its
  last floating input float32 beside float64 ones. Both libraries refuse the call (the same
  exception type, the same text) or both accept it (results of the same dtypes).
- `test_call_raises_pytorchs_error`: calls outside the table (modules, factories, in-place
  ops, indexing, requires_grad, devices).

"The same type" means that ours is an instance of PyTorch's exception class, so that code
catching PyTorch's `RuntimeError` (`NotImplementedError`, `AssertionError`...) catches ours.
One documented difference in text: where JAX has no GPU, CUDA's AssertionError is PyTorch's
text followed by a parenthesized note on what JAX has (see docs/errors.md).
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from collections.abc import Callable

import numpy as np
import pytest

import autograd_compat
from autograd_compat._pure.dtype_rules import CHECKS, RULES, Same
from autograd_compat._pure.op import registered_ops
from tests._helpers.eight_devices import run_script
from tests.ops.op_table import ROWS, OpCase, make_array

MODES = ("int", "bool", "complex", "mixed")
# PyTorch's text, then our note in parentheses (CUDA where JAX has no GPU)
_NOTE = re.compile(r"^(.*) \([^()]*(?:\([^()]*\)[^()]*)*\)$", re.S)


def _convert(array: np.ndarray, mode: str, last: bool) -> np.ndarray:
    if array.dtype != np.float64:
        return array
    if mode == "int":
        return np.round(array * 3).astype(np.int64)
    if mode == "bool":
        return array > 0
    if mode == "complex":
        return array.astype(np.complex128)
    return array.astype(np.float32) if last else array  # mixed: the last one float32


def _arrays(row: OpCase, mode: str) -> list[np.ndarray]:
    kinds = (row.domain,) * len(row.inputs) if isinstance(row.domain, str) else row.domain
    arrays = [make_array(s, k, i) for i, (s, k) in enumerate(zip(row.inputs, kinds))]
    floating = [i for i, a in enumerate(arrays) if a.dtype == np.float64]
    return [_convert(a, mode, floating and i == floating[-1]) for i, a in enumerate(arrays)]


def _outcome(call: Callable):
    """("raises", the exception) or ("returns", the dtypes of the tensors returned)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = call()
    except Exception as error:  # noqa: BLE001 - every exception is a result to compare
        return "raises", error
    results = result if isinstance(result, (tuple, list)) else (result,)
    return "returns", [str(r.dtype) for r in results if hasattr(r, "dtype")]


def _same_message(theirs: str, ours: str) -> bool:
    if ours == theirs:
        return True
    noted = _NOTE.match(ours)
    return noted is not None and noted.group(1) == theirs and "CUDA" in theirs


def assert_same_outcome(expected, actual) -> None:
    """Both raise (ours an instance of PyTorch's class, with its text) or both return."""
    (kind, theirs), (our_kind, ours) = expected, actual
    assert kind == our_kind, f"torch {kind} {theirs!r}; autograd_compat {our_kind} {ours!r}"
    if kind == "returns":
        assert theirs == ours
        return
    assert isinstance(ours, type(theirs)), f"torch raised {theirs!r}, autograd_compat {ours!r}"
    assert _same_message(str(theirs), str(ours)), f"\n torch: {theirs}\n  ours: {ours}"


# ----------------------------------------------------------------------------- the op table
# (row id, mode) -> why autograd_compat differs from PyTorch there
KNOWN = {
    ("sub.alpha", "bool"): "sub(bool, bool, alpha=2) multiplies first: the one-bool text",
    ("binary_cross_entropy", "int"): "the input range check comes first",
}


_MODE_DTYPES = {"int": np.int64, "bool": np.bool_, "complex": np.complex128}


def _modes(op_id: str) -> tuple:
    """The conversions that an op's rules are about: mixed floating dtypes for a rule that
    compares dtypes (`Same`), and each of int64, bool and complex128 that its rules do not
    all pass when every input has it."""
    passing = CHECKS[op_id].uniform
    refused = tuple(m for m, d in _MODE_DTYPES.items() if np.dtype(d) not in passing)
    compares = any(type(rule) is Same for rule in RULES[op_id])
    return (("mixed",) if compares else ()) + refused


TABLE = [
    pytest.param(
        row,
        mode,
        id=f"{row.id}-{mode}",
        marks=[pytest.mark.xfail(strict=True, reason=KNOWN[(row.id, mode)])]
        if (row.id, mode) in KNOWN
        else [],
    )
    for row in ROWS
    if row.id in RULES and row.torch and all(isinstance(s, tuple) for s in row.inputs)
    for mode in _modes(row.id)
    if any(a.dtype == np.float64 for a in _arrays(row, "none"))
]


@pytest.mark.torch
@pytest.mark.parametrize(("row", "mode"), TABLE)
def test_op_table_dtypes(row, mode, real_torch):
    arrays = _arrays(row, mode)
    expected = _outcome(lambda: row.call(real_torch, *[real_torch.tensor(a) for a in arrays]))
    actual = _outcome(
        lambda: row.call(autograd_compat, *[autograd_compat.tensor(a) for a in arrays])
    )
    assert_same_outcome(expected, actual)


def test_every_rule_names_a_registered_op():
    assert set(RULES) <= set(registered_ops())


def test_the_table_sweep_covers_the_rules():
    swept = {param.values[0].id for param in TABLE}
    assert {"mm", "linear.addmm", "layer_norm", "convolution", "lt"} <= swept
    assert len(swept) > 75


# ----------------------------------------------------------------------------- other calls
def _F(t):
    return t.nn.functional


def _t(t, dtype: str, *shape):
    return t.ones(*(shape or (2, 3)), dtype=getattr(t, dtype))


@dataclasses.dataclass(frozen=True)
class Case:
    """A call `call(torch)` that PyTorch refuses (or, where said, accepts)."""

    id: str
    call: Callable
    xfail: str = ""


CASES = [
    # matrix products of mixed dtypes: JAX would promote them
    Case("mm", lambda t: t.mm(_t(t, "float32", 2, 3), _t(t, "float64", 3, 2))),
    Case("mm-long", lambda t: t.mm(_t(t, "int64", 2, 3), _t(t, "float32", 3, 2))),
    Case("mm-half", lambda t: t.mm(_t(t, "float16", 2, 2), _t(t, "float32", 2, 2))),
    Case("matmul-dot", lambda t: t.matmul(_t(t, "float32", 3), _t(t, "float64", 3))),
    Case("matmul-mv", lambda t: t.matmul(_t(t, "float32", 2, 3), _t(t, "float64", 3))),
    Case("matmul-bmm", lambda t: t.matmul(_t(t, "float32", 2, 2, 3), _t(t, "float64", 2, 3, 2))),
    Case("matmul-batched-mv", lambda t: t.matmul(_t(t, "float32", 2, 2, 3), _t(t, "float64", 3))),
    Case("@", lambda t: _t(t, "float64", 2, 3) @ _t(t, "float32", 3, 2)),
    Case("bmm", lambda t: t.bmm(_t(t, "int64", 2, 2, 2), _t(t, "float32", 2, 2, 2))),
    Case(
        "addmm-self",
        lambda t: t.addmm(_t(t, "float64", 2, 2), _t(t, "float64", 2, 3), _t(t, "float32", 3, 2)),
    ),
    Case(
        "baddbmm",
        lambda t: t.baddbmm(
            _t(t, "float64", 2, 2, 2), _t(t, "float32", 2, 2, 2), _t(t, "float32", 2, 2, 2)
        ),
    ),
    Case(
        "addr-promotes",
        lambda t: t.addr(_t(t, "float64", 2, 2), _t(t, "float32", 2), _t(t, "float32", 2)),
    ),
    Case(
        "linear-bias",
        lambda t: _F(t).linear(_t(t, "float32"), _t(t, "float32", 4, 3), _t(t, "float64", 4)),
    ),
    Case("Linear-double-input", lambda t: t.nn.Linear(3, 4)(_t(t, "float64"))),
    Case("Linear-long-input", lambda t: t.nn.Linear(3, 4)(_t(t, "int64"))),
    Case("Conv2d-double-input", lambda t: t.nn.Conv2d(1, 1, 3)(_t(t, "float64", 1, 1, 4, 4))),
    Case(
        "conv1d-weight",
        lambda t: _F(t).conv1d(_t(t, "float32", 1, 1, 4), _t(t, "float64", 1, 1, 3)),
    ),
    Case("LayerNorm-double-input", lambda t: t.nn.LayerNorm(3)(_t(t, "float64"))),
    Case(
        "layer_norm-weight", lambda t: _F(t).layer_norm(_t(t, "float32"), (3,), _t(t, "float64", 3))
    ),
    Case(
        "layer_norm-half-float-params",
        lambda t: _F(t).layer_norm(
            _t(t, "float16"), (3,), _t(t, "float32", 3), _t(t, "float32", 3)
        ),
    ),
    Case("BatchNorm1d-double-input", lambda t: t.nn.BatchNorm1d(3)(_t(t, "float64"))),
    Case("LSTM-double-input", lambda t: t.nn.LSTM(3, 2)(_t(t, "float64", 1, 1, 3))),
    Case(
        "sdpa",
        lambda t: _F(t).scaled_dot_product_attention(
            _t(t, "float32", 1, 2, 4), _t(t, "float64", 1, 2, 4), _t(t, "float32", 1, 2, 4)
        ),
    ),
    Case(
        "einsum-contraction",
        lambda t: t.einsum("ij,jk->ik", _t(t, "float32", 2, 2), _t(t, "float64", 2, 2)),
    ),
    Case(
        "einsum-product-promotes",
        lambda t: t.einsum("ij,ij->ij", _t(t, "float32", 2, 2), _t(t, "float64", 2, 2)),
    ),
    # integral or bool tensors where PyTorch's kernels take floats
    Case("mean-long", lambda t: _t(t, "int64").mean()),
    Case("softmax-long-dim0", lambda t: _F(t).softmax(_t(t, "int64"), dim=0)),
    Case("log_softmax-long", lambda t: _F(t).log_softmax(_t(t, "int64"), dim=1)),
    Case("softmax-dtype-long", lambda t: _F(t).softmax(_t(t, "float32"), 1, dtype=t.int64)),
    Case("gelu-long", lambda t: _F(t).gelu(_t(t, "int64"))),
    Case("silu-bool", lambda t: _F(t).silu(_t(t, "bool"))),
    Case("hardtanh-long-keeps-long", lambda t: _F(t).hardtanh(_t(t, "int64") * 3)),
    Case("relu-bool", lambda t: t.relu(_t(t, "bool"))),
    Case("mse_loss-long", lambda t: _F(t).mse_loss(_t(t, "int64"), _t(t, "int64"))),
    Case(
        "cross_entropy-long-input", lambda t: _F(t).cross_entropy(_t(t, "int64"), t.tensor([0, 1]))
    ),
    Case(
        "cross_entropy-long-probabilities",
        lambda t: _F(t).cross_entropy(_t(t, "float32"), _t(t, "int64")),
    ),
    Case(
        "binary_cross_entropy-mixed",
        lambda t: _F(t).binary_cross_entropy(_t(t, "float32") * 0.5, _t(t, "float64")),
    ),
    Case("dropout-long", lambda t: _F(t).dropout(_t(t, "int64"), 0.5)),
    Case("avg_pool1d-long-truncates", lambda t: _F(t).avg_pool1d(t.tensor([[[1, 2, 4, 7]]]), 2)),
    Case("avg_pool1d-byte", lambda t: _F(t).avg_pool1d(_t(t, "uint8", 1, 1, 4), 2)),
    Case("interpolate-long", lambda t: _F(t).interpolate(_t(t, "int64", 1, 1, 4), scale_factor=2)),
    Case(
        "interpolate-byte",
        lambda t: _F(t).interpolate(_t(t, "uint8", 1, 1, 4), scale_factor=2),
        "uint8 resizes in float32",
    ),
    Case("randn-long", lambda t: t.randn(2, dtype=t.int64)),
    Case("rand-long", lambda t: t.rand(2, dtype=t.int64)),
    Case("randn_like-long", lambda t: t.randn_like(_t(t, "int64"))),
    Case("arange-bool", lambda t: t.arange(3, dtype=t.bool)),
    Case("repeat_interleave-float", lambda t: t.repeat_interleave(t.tensor([1.0, 2.0]))),
    Case("sub-bool", lambda t: _t(t, "bool") - _t(t, "bool")),
    Case("rsub-bool", lambda t: 1 - _t(t, "bool")),
    Case("div-trunc-bool", lambda t: t.div(_t(t, "bool"), _t(t, "bool"), rounding_mode="trunc")),
    Case("median-bool", lambda t: _t(t, "bool").median()),
    Case("lt-complex", lambda t: _t(t, "complex64") < _t(t, "complex64")),
    Case("max-complex", lambda t: _t(t, "complex64").max()),
    Case("sort-complex", lambda t: _t(t, "complex64").sort()),
    # floating tensors where PyTorch needs integers
    Case("index-float", lambda t: _t(t, "float32", 4)[t.tensor([0.0, 1.0])]),
    Case(
        "embedding-float", lambda t: _F(t).embedding(t.tensor([0.0, 1.0]), _t(t, "float32", 3, 2))
    ),
    Case(
        "cross_entropy-float-target",
        lambda t: _F(t).cross_entropy(_t(t, "float32"), t.tensor([0.0, 1.0])),
    ),
    Case("gather-float", lambda t: t.gather(_t(t, "float32"), 1, t.tensor([[0.0], [1.0]]))),
    Case("bitwise_and-float", lambda t: t.bitwise_and(_t(t, "float32"), _t(t, "float32"))),
    Case("one_hot-float", lambda t: _F(t).one_hot(t.tensor([0.0, 1.0]))),
    # results that cannot be cast to the destination, masks and conditions
    Case("add_-long-float", lambda t: _t(t, "int64").add_(_t(t, "float32"))),
    Case("copy_-float-to-long-casts", lambda t: _t(t, "int64").copy_(_t(t, "float32") * 1.5)),
    Case(
        "index_put_-double",
        lambda t: _t(t, "float32", 4).index_put_((t.tensor([0, 1]),), _t(t, "float64", 2)),
    ),
    Case("masked_fill-float-mask", lambda t: _t(t, "float32").masked_fill(_t(t, "float32"), 0.0)),
    Case(
        "where-long-condition",
        lambda t: t.where(_t(t, "int64"), _t(t, "float32"), _t(t, "float32")),
    ),
    Case(
        "where-byte-condition",
        lambda t: t.where(_t(t, "uint8"), _t(t, "float32"), _t(t, "float32")),
    ),
    Case("clamp_-long-float", lambda t: _t(t, "int64").clamp_(0.5, 1.5), "PyTorch names long int"),
    # requires_grad of integral tensors
    Case("requires_grad_-long", lambda t: _t(t, "int64").requires_grad_()),
    Case("requires_grad-set-long", lambda t: setattr(_t(t, "int64"), "requires_grad", True)),
    Case("Parameter-long", lambda t: t.nn.Parameter(_t(t, "int64"))),
    Case("tensor-requires_grad-long", lambda t: t.tensor([1, 2], requires_grad=True)),
    # devices
    Case("meta-then-cpu", lambda t: t.ones(2, 3, device="meta") + t.ones(2, 3)),
    Case("cpu-then-meta", lambda t: t.ones(2, 3) + t.ones(2, 3, device="meta")),
    Case("cat-meta-cpu", lambda t: t.cat([t.ones(2, device="meta"), t.ones(2)])),
    Case("meta-tolist", lambda t: t.ones(2, device="meta").tolist()),
    Case("to-cuda", lambda t: t.ones(2).to("cuda")),
    Case("ones-cuda", lambda t: t.ones(2, device="cuda")),
    Case("Module-cuda", lambda t: t.nn.Linear(2, 2).cuda()),
    Case("device-unknown-type", lambda t: t.device("foo")),
    Case("device-invalid-string", lambda t: t.ones(2).to("float32x")),
    Case("device-bad-index", lambda t: t.device("cuda:01")),
    Case("device-negative-index", lambda t: t.device("cpu", -2)),
    Case("device-empty", lambda t: t.device("")),
    Case("type-unknown", lambda t: t.ones(2).type("torch.FooTensor")),
    Case("type-legacy-name", lambda t: t.ones(2).type("torch.DoubleTensor")),
    Case("lshift-float", lambda t: _t(t, "float32") << 1),
    Case("ones-dtype-str", lambda t: t.ones(2, dtype="float32"), "a dtype name is taken"),
]


@pytest.mark.torch
@pytest.mark.parametrize(
    "case",
    [
        pytest.param(case, id=case.id, marks=[pytest.mark.xfail(strict=True, reason=case.xfail)])
        if case.xfail
        else pytest.param(case, id=case.id)
        for case in CASES
    ],
)
def test_call_raises_pytorchs_error(case, real_torch):
    assert_same_outcome(
        _outcome(lambda: case.call(real_torch)), _outcome(lambda: case.call(autograd_compat))
    )


def test_rules_are_checked_before_the_op_runs():
    """The error comes at the call, with autograd_compat's deferral on (not at a read)."""
    x = autograd_compat.ones(2, 3)
    with pytest.raises(RuntimeError, match="expected m1 and m2"):
        autograd_compat.mm(x, autograd_compat.ones(3, 2, dtype=autograd_compat.float64))
    with pytest.raises(NotImplementedError, match="GeluKernelImpl"):
        autograd_compat.nn.functional.gelu(x.long())


def test_inputs_on_two_devices_raise_pytorchs_error():
    """Tensors on two CPU devices (8 simulated ones) in one op: PyTorch's RuntimeError, as for
    two CUDA devices, from JAX's refusal translated at the op call."""
    found = run_script(
        """
        a, b = torch.ones(2, device="cpu:0"), torch.ones(2, device="cpu:1")
        errors = {}
        for name, call in {
            "add": lambda: a + b,
            "mm": lambda: torch.mm(b.reshape(1, 2), a.reshape(2, 1)),
            "cat": lambda: torch.cat([a, b]),
        }.items():
            try:
                call()
            except RuntimeError as error:
                errors[name] = str(error)
        print(json.dumps(errors))
        """
    )
    expected = "Expected all tensors to be on the same device, but found at least two devices, "
    assert found == {
        "add": expected + "cpu:0 and cpu:1!",
        "mm": expected + "cpu:1 and cpu:0!",
        "cat": expected + "cpu:0 and cpu:1!",
    }
