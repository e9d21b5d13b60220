"""Bad arguments get PyTorch's error at the call, never a silently wrong number.

- Every public function and Tensor method taking `dim` (found by `inspect.signature`) is
  called with dim = ndim and dim = -ndim - 1 on a 2-D float tensor: PyTorch raises its
  IndexError ("Dimension out of range ..."), and so must autograd_compat (never computing
  along dim % ndim, as a wrapped dim would in softmax, log_softmax, normalize, glu, ...).
- The other dim-like arguments (dims, dim0/dim1, start_dim/end_dim, nn modules) by a table.
- Bad sizes and values for the factories and the shape ops: a float, str or bool
  size, a negative size, a value that overflows the dtype, an infinite or empty arange; the
  same exception type as PyTorch, and the same text where PyTorch's is stable (its
  "received an invalid combination of arguments" listings are compared by type only).
"""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest

import autograd_compat as ac
import autograd_compat.nn.functional as acF
from tests._helpers.torch_compare import catch, compare

# Where the sweep looks: (prefix, our namespace, the path of PyTorch's).
_NAMESPACES = (
    ("torch", ac, ()),
    ("F", acF, ("nn", "functional")),
    ("linalg", ac.linalg, ("linalg",)),
    ("special", ac.special, ("special",)),
    ("Tensor", ac.Tensor, ("Tensor",)),
)
# Arguments besides `dim` that a call needs, by parameter name ("x": the 2-D input, "index1":
# a 1-D int64 index, "index2": a 2x3 one), and per function where the name means another thing.
_VALUES = {
    "index": "index2",
    "indices": "index2",
    "src": "x",
    "source": "x",
    "other": "x",
    "x2": "x",
    "value": 1.0,
    "k": 1,
    "q": 0.5,
    "start": 0,
    "length": 1,
    "chunks": 2,
    "split_size_or_sections": 1,
    "indices_or_sections": 2,
    "sizes": (1, -1),
    "repeats": 1,
}
_PER_FUNCTION = {
    "index_select": {"index": "index1"},
    "index_add": {"index": "index1"},
    "index_copy": {"index": "index1"},
    "index_fill": {"index": "index1"},
    "select": {"index": 0},
    "select_copy": {"index": 0},
    "select_scatter": {"index": 0, "src": "row"},
    "trapezoid": {"x": "x"},
    "trapz": {"x": "x"},
    "cumulative_trapezoid": {"x": "x"},
}
# Optional in our signature, required by PyTorch's overloads.
_ALSO = {"repeat_interleave": ("repeats",), "scatter": ("src",)}
# A tuple of dims where PyTorch takes only a tuple: the out-of-range dim goes second.
_TUPLE_DIM = {"matrix_norm"}
_LISTS = {"cat", "concat", "concatenate", "stack"}


def _dim_functions():
    """(prefix, name, positional parameters up to the last one a call needs) for every public
    callable with a `dim` parameter."""
    found = []
    for prefix, namespace, _ in _NAMESPACES:
        for name in sorted(dir(namespace)):
            f = getattr(namespace, name)
            if name.startswith("_") or not callable(f) or isinstance(f, type):
                continue
            try:
                params = list(inspect.signature(f).parameters.values())[1:]
            except (TypeError, ValueError):
                continue
            if "dim" not in [p.name for p in params]:
                continue
            needed = [
                i
                for i, p in enumerate(params)
                if p.name == "dim"
                or p.name in _ALSO.get(name, ())
                or (p.default is p.empty and p.kind == p.POSITIONAL_OR_KEYWORD)
            ]
            positional = [
                (p.name, p.default)
                for p in params[: max(needed) + 1]
                if p.kind == p.POSITIONAL_OR_KEYWORD
            ]
            if not any(p == "dim" for p, _ in positional):  # dim is keyword-only
                positional.append(("dim", "keyword"))
            found.append((prefix, name, tuple(positional)))
    return found


_DIM_FUNCTIONS = _dim_functions()


def test_the_sweep_finds_the_dim_taking_ops():
    names = {f"{prefix}.{name}" for prefix, name, _ in _DIM_FUNCTIONS}
    assert len(names) > 100
    assert {"Tensor.softmax", "F.softmin", "F.normalize", "F.glu", "torch.sum"} <= names


def _call(lib, prefix, name, positional, dim):
    x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    special = {
        "x": x,
        "index1": lib.tensor([0]),
        "index2": lib.zeros(2, 3, dtype=lib.long),
        "row": lib.tensor([1.0, 2.0, 3.0]),
    }

    def value(param, default):
        if param == "dim":
            return (0, dim) if name in _TUPLE_DIM else dim
        chosen = _PER_FUNCTION.get(name, {}).get(param, _VALUES.get(param, default))
        if chosen is inspect.Parameter.empty:
            raise AssertionError(f"{prefix}.{name}: no value for its argument {param!r}")
        return special.get(chosen, chosen) if isinstance(chosen, str) else chosen

    args = [value(p, d) for p, d in positional if d != "keyword"]
    kwargs = {"dim": value("dim", None)} if positional[-1] == ("dim", "keyword") else {}
    if prefix == "Tensor":
        return getattr(x, name)(*args, **kwargs)
    namespace = lib
    for part in dict((p[0], p[2]) for p in _NAMESPACES)[prefix]:
        namespace = getattr(namespace, part)
    return getattr(namespace, name)([x, x] if name in _LISTS else x, *args, **kwargs)


@pytest.mark.parametrize("dim", [2, -3])
@pytest.mark.parametrize(
    ("prefix", "name", "positional"),
    _DIM_FUNCTIONS,
    ids=[f"{p}.{n}" for p, n, _ in _DIM_FUNCTIONS],
)
def test_out_of_range_dim_matches_pytorch(prefix, name, positional, dim, real_torch):
    namespace = real_torch
    for part in dict((p[0], p[2]) for p in _NAMESPACES)[prefix]:
        namespace = getattr(namespace, part)
    if not hasattr(namespace, name):
        pytest.skip(f"PyTorch has no {prefix}.{name}")
    expected = catch(lambda: _call(real_torch, prefix, name, positional, dim))
    actual = catch(lambda: _call(ac, prefix, name, positional, dim))
    differences = compare(expected, actual)
    assert not differences, "\n".join(differences)


# Other dim-like arguments, the dim-taking nn modules, 0-d inputs (range [-1, 0]) and a
# missing required dim: `lib`, a 2-D `x`, a 1-D `v` and a 0-d `s` are in scope.
_DIM_LIKE = [
    "x.diagonal(0, 2, 0)",
    "x.diag_embed(0, 3, 0)",
    "x.flatten(2)",
    "x.flatten(0, -3)",
    "s.flatten(1)",
    "s.flatten(-1, 0)",
    "x.flip((0, -3))",
    "x.flip((0, -2))",
    "x.movedim(2, 0)",
    "x.permute(0, -3)",
    "x.roll(1, 2)",
    "x.rot90(1, (0, 2))",
    "x.transpose(0, 2)",
    "x.size(2)",
    "x.stride(-3)",
    "x.unsqueeze(3)",
    "x.unsqueeze(-4)",
    "x.squeeze((0, 2))",
    "x.sum((0, 2))",
    "x.sum((0, -2))",
    "lib.stack([x, x], 3)",
    "lib.tensordot(x, x, ([2], [0]))",
    "lib.nn.Softmax(dim=2)(x)",
    "lib.nn.LogSoftmax(dim=-3)(x)",
    "lib.nn.Softmin(dim=2)(x)",
    "lib.nn.Flatten(2)(x)",
    "lib.nn.Flatten(0, 2)(x)",
    "lib.nn.Flatten()(s)",
    "lib.nn.Unflatten(2, (1, 3))(x)",
    "lib.nn.Unflatten(1, (3, 1))(x)",
    "lib.nn.GLU(2)(x)",
    "lib.nn.functional.normalize(x, dim=(0, 2))",
    "lib.nn.functional.normalize(x, dim=(0, 1))",
    "lib.nn.functional.normalize(x, dim=(0, -2))",
    "lib.nn.functional.normalize(s, dim=1)",
    "lib.nn.functional.normalize(s, dim=0)",
    "lib.nn.functional.cosine_similarity(s, s, dim=1)",
    "lib.nn.functional.cosine_similarity(s, s, dim=0)",
    "lib.nn.functional.cosine_similarity(v, x, dim=2)",
    "lib.nn.functional.glu(s)",
    "lib.nn.functional.glu(v, -2)",
    "lib.nn.functional.softmax(s, -2)",
    "s.softmax(1)",
    "s.log_softmax(-1)",
    "x.softmax(None)",
    "x.log_softmax(None)",
    "lib.softmax(x, None)",
    "lib.log_softmax(x, None)",
    "lib.special.softmax(x, None)",
    "lib.special.log_softmax(x, None)",
    "lib.linalg.vector_norm(x, dim=(0, 0))",
]


@pytest.mark.parametrize("code", _DIM_LIKE)
def test_dim_like_arguments_match_pytorch(code, real_torch):
    def run(lib):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        v, s = lib.tensor([1.0, 2.0, 3.0]), lib.tensor(2.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # deprecation notes are not what is compared
            return eval(code, {"lib": lib, "x": x, "v": v, "s": s})

    differences = compare(catch(lambda: run(real_torch)), catch(lambda: run(ac)))
    assert not differences, "\n".join(differences)


# Each case is evaluated with `lib` (either library), `math` and `np` in scope. A case in
# _TYPE_ONLY compares only the exception type (PyTorch's text lists its overloads).
_BAD_SIZES = [
    # sizes that are not ints
    "lib.zeros(2.5)",
    "lib.zeros(2, 2.5)",
    "lib.zeros(2.5, 2)",
    "lib.zeros((2.5, 2))",
    "lib.zeros([2, 2.5])",
    "lib.zeros((2, 'a'))",
    "lib.zeros(None)",
    "lib.ones('3')",
    "lib.zeros(True)",
    "lib.ones(True, 2)",
    "lib.ones(2, True)",
    "lib.zeros(np.int32(2))",
    "lib.zeros(np.float64(2))",
    "lib.zeros(lib.tensor(2))",
    "lib.zeros(lib.tensor(2.0))",
    "lib.zeros(2, lib.tensor(2.0))",
    "lib.empty(2.0)",
    "lib.full((2.5,), 1.0)",
    "lib.full(3, 1.0)",
    "lib.full((2,), 'a')",
    "lib.rand(2.5)",
    "lib.randn(2.5)",
    "lib.randn((2, 2.5))",
    "lib.randint(10, (2.5,))",
    "lib.randperm(2.5)",
    "lib.randperm(np.int64(3)).sort().values",
    "lib.eye(2.5)",
    "lib.eye(2, 2.5)",
    "lib.linspace(0, 1, 2.5)",
    "lib.zeros(3).new_zeros(2.5)",
    "lib.zeros(3).new_zeros(2.5, 2)",
    "lib.zeros(3).new_ones((2, 2.5))",
    "lib.zeros(3).new_full((2.5,), 1.0)",
    "lib.zeros(3).new_full(3, 1.0)",
    "lib.zeros(6).reshape(2.5, 2)",
    "lib.zeros(6).reshape('2', 3)",
    "lib.zeros(2).reshape((2.5,))",
    "lib.zeros(2).reshape(1, 2.5)",
    "lib.zeros(2).reshape(2.0)",
    "lib.zeros(6).view(2.0, 3)",
    "lib.zeros(2).view((1, 2.5))",
    "lib.zeros(3).expand(2.5, 3)",
    "lib.zeros(2).expand((2.5,))",
    "lib.zeros(3).repeat(2.5)",
    "lib.zeros(2).repeat(1, 2.5)",
    "lib.zeros(2).tile((2.5,))",
    "lib.zeros(3).tile(2.5)",
    "lib.zeros(3).roll(2.5)",
    "lib.zeros(2).broadcast_to((2.5,))",
    "lib.arange('a')",
    "lib.arange(0, 'a')",
    # negative sizes
    "lib.zeros(-1)",
    "lib.zeros(2, -1)",
    "lib.ones(-1)",
    "lib.ones(-2, -1)",
    "lib.empty(-1)",
    "lib.empty(2, 3, -1)",
    "lib.full((-1,), 1.0)",
    "lib.rand(-1)",
    "lib.randn(2, -1)",
    "lib.randint(0, 10, (-1,))",
    "lib.randperm(-1)",
    "lib.normal(0.0, 1.0, (-1,))",
    "lib.linspace(0, 1, -1)",
    "lib.logspace(0, 1, -1)",
    "lib.eye(-1)",
    "lib.eye(2, -1)",
    "lib.zeros(3).new_zeros(-1)",
    "lib.zeros(3).new_ones((2, -1))",
    "lib.zeros(3).new_empty(-1)",
    "lib.zeros(3).new_full((-1,), 1.0)",
    "lib.zeros(3).repeat(-1)",
    "lib.zeros(2, 3).repeat(1, -1)",
    "lib.zeros(3).tile(-1)",
    "lib.zeros(6).reshape(2, -2)",
    "lib.zeros(6).reshape(-1, -1)",
    "lib.zeros(6).view(2, -3)",
    "lib.zeros(6).view(4, -1)",
    "lib.zeros(0).reshape(-1, 0)",
    "lib.zeros(3).expand(2, -2)",
    "lib.zeros(2, 3).unflatten(1, (2, 2))",
    # ranges
    "lib.arange(0, math.inf)",
    "lib.arange(0.5, math.inf)",
    "lib.arange(-math.inf, 0)",
    "lib.arange(0, math.nan)",
    "lib.arange(1, 2, math.nan)",
    "lib.arange(1, 2, math.inf)",
    "lib.arange(0, 10, 0)",
    "lib.arange(0, 10, -1)",
    "lib.arange(10, 0)",
    "lib.arange(0.0, 3, -0.5)",
    "lib.arange(0, 0, -1)",
    "lib.arange(0, 3, 0.5, dtype=lib.int64)",
    "lib.arange(2.5, dtype=lib.int64)",
    "lib.randint(5, 5, (2,))",
    "lib.randint(0, 300, (2,), dtype=lib.uint8)",
    "lib.randint(-1, 3, (2,), dtype=lib.uint8)",
    "lib.randint(0, 2**40, (2,), dtype=lib.int32)",
    "lib.randint(0, 3, (2,), dtype=lib.bool)",
    # values that overflow the dtype
    "lib.tensor([300], dtype=lib.uint8)",
    "lib.tensor([-1], dtype=lib.uint8)",
    "lib.tensor(300, dtype=lib.uint8)",
    "lib.tensor([300.0], dtype=lib.uint8)",
    "lib.tensor([2**40], dtype=lib.int32)",
    "lib.tensor([2**31], dtype=lib.int32)",
    "lib.tensor([2**15], dtype=lib.int16)",
    "lib.tensor([200], dtype=lib.int8)",
    "lib.tensor([math.nan], dtype=lib.int64)",
    "lib.tensor([math.inf], dtype=lib.int32)",
    "lib.tensor([1.5], dtype=lib.int64)",
    "lib.tensor([1e300], dtype=lib.float32)",
    "lib.tensor([2**63])",
    "lib.tensor(2**63)",
    "lib.tensor([2**64])",
    "lib.tensor([-(2**63) - 1])",
    "lib.tensor([2**63 - 1])",
    "lib.tensor([[1, 2], [3]])",
    "lib.tensor([[1, 2], [3, 4, 5]])",
    "lib.tensor('a')",
    "lib.tensor(['a'])",
    "lib.tensor([1, 'a'])",
    "lib.zeros(3).new_tensor([300], dtype=lib.uint8)",
    "lib.full((2,), 300, dtype=lib.uint8)",
    "lib.full((2,), -1, dtype=lib.uint8)",
    "lib.full((2,), 2**40, dtype=lib.int32)",
    "lib.full((2,), math.inf, dtype=lib.int64)",
    "lib.full((2,), 1e39)",
    "lib.full_like(lib.zeros(3, dtype=lib.uint8), 300)",
    "lib.zeros(2, dtype=lib.int32).fill_(2**40)",
    "lib.zeros(2, dtype=lib.uint8).fill_(300)",
    "lib.zeros(2, dtype=lib.uint8).fill_(-1)",
    "lib.zeros(2, dtype=lib.int8).fill_(-129)",
    "lib.zeros(2, dtype=lib.int64).fill_(math.nan)",
    "lib.zeros(2, dtype=lib.float32).fill_(1e39)",
    "lib.zeros(2, dtype=lib.float32).fill_(math.inf)",
    "lib.zeros(3, dtype=lib.uint8).masked_fill(lib.ones(3, dtype=lib.bool), 300)",
    "lib.zeros(3, dtype=lib.uint8).masked_fill(lib.ones(3, dtype=lib.bool), -1)",
    "lib.zeros(3, dtype=lib.uint8).index_fill(0, lib.tensor([0]), 300)",
    "lib.zeros(3, dtype=lib.int64).index_fill(0, lib.tensor([0]), math.nan)",
    "lib.zeros(3, dtype=lib.uint8).scatter(0, lib.tensor([0]), 300)",
    "lib.linspace(0, 300, 3, dtype=lib.uint8)",
]
_TYPE_ONLY = {
    "lib.eye(2, 2.5)",
    "lib.linspace(0, 1, 2.5)",
    "lib.zeros(6).view(2.0, 3)",
    "lib.arange(0, 'a')",
    "lib.zeros(3).new_zeros(2.5, 2)",
}


def _setitem(t, index, value):
    t[index] = value
    return t


_BAD_SIZES += [
    "setitem(lib.zeros(2, dtype=lib.uint8), 0, 300)",
    "setitem(lib.zeros(2, dtype=lib.uint8), 0, -1)",
    "setitem(lib.zeros(2, dtype=lib.int32), 0, 2**40)",
]


@pytest.mark.parametrize("code", _BAD_SIZES)
def test_bad_sizes_and_values_match_pytorch(code, real_torch):
    def run(lib):
        scope = {"lib": lib, "math": math, "np": np, "setitem": _setitem}
        return eval(code, scope)

    message = code not in _TYPE_ONLY
    expected = catch(lambda: run(real_torch), message=message)
    actual = catch(lambda: run(ac), message=message)
    differences = compare(expected, actual)
    assert not differences, "\n".join(differences)
