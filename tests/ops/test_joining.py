"""meshgrid, atleast_nd, the hstack family, isin, scalar_tensor, asarray, can_cast and
result_type against real PyTorch: values, shapes, dtypes, warnings,
errors, and gradients through the composed views."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as ac
from tests._helpers.torch_compare import arr, catch, check_case, check_error, run_parity


# ----------------------------------------------------------------------------- meshgrid
def test_meshgrid_indexings_and_warning():
    def prog(torch):
        a, b, c = torch.arange(3.0), torch.tensor([5.0, 6.0]), torch.tensor(7.0)
        return {
            "default": torch.meshgrid(a, b),  # warns: indexing will be required
            "ij": torch.meshgrid([a, b, c], indexing="ij"),
            "xy": torch.meshgrid(a, b, c, indexing="xy"),
            "one": torch.meshgrid(a, indexing="xy"),
            "int": torch.meshgrid(torch.arange(2), torch.arange(4), indexing="xy"),
            "empty": torch.meshgrid(torch.zeros(0), b, indexing="ij"),
        }

    run_parity(prog)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.meshgrid(t.arange(3.0), indexing="foo"),
        lambda t: t.meshgrid(indexing="ij"),
        lambda t: t.meshgrid(t.arange(3.0), t.arange(2), indexing="ij"),
        lambda t: t.meshgrid(t.arange(3.0), 3, indexing="ij"),
    ],
    ids=["indexing", "empty", "dtypes", "not-tensor"],
)
def test_meshgrid_errors(call, real_torch):
    check_error(call, real_torch)


def test_meshgrid_rejects_matrices(real_torch):
    check_error(
        lambda t: t.meshgrid(t.zeros(2, 2), indexing="ij"),
        real_torch,
        message="torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got:",
    )


# ----------------------------------------------------------------------------- atleast / stacks
def test_atleast_shapes():
    def prog(torch):
        inputs = (torch.tensor(1.0), torch.arange(3), torch.zeros(2, 3), torch.zeros(1, 2, 3, 1))
        out = {}
        for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
            f = getattr(torch, name)
            out[name] = [f(x) for x in inputs] + [f(*inputs), f(list(inputs)), f()]
        return out

    run_parity(prog)


def test_atleast_rejects_numbers(real_torch):
    check_error(lambda t: t.atleast_2d(3), real_torch)


def test_stacks():
    def prog(torch):
        s, v = torch.tensor(9.0), torch.arange(3.0)
        m, i = torch.arange(6.0).reshape(3, 2), torch.arange(3)
        return {
            "hstack": (torch.hstack([s, v, i]), torch.hstack((m, m))),
            "vstack": (torch.vstack([v, v, i]), torch.vstack([m.T, v])),
            "row_stack": torch.row_stack([v, v]),
            "dstack": (torch.dstack([v, i]), torch.dstack([m, m]), torch.dstack([s, s])),
            "column_stack": (torch.column_stack([v, m, i]), torch.column_stack([s, s])),
        }

    run_parity(prog)


@pytest.mark.parametrize("name", ["hstack", "vstack", "row_stack", "dstack", "column_stack"])
def test_stack_errors(name, real_torch):
    check_error(lambda t: getattr(t, name)([]), real_torch)
    check_error(lambda t: getattr(t, name)(t.zeros(2)), real_torch)
    check_error(lambda t: getattr(t, name)([t.zeros(2), 1]), real_torch)


def test_hstack_mismatch(real_torch):
    check_error(lambda t: t.hstack([t.zeros(3), t.zeros(2, 2)]), real_torch)
    check_error(lambda t: t.vstack([t.zeros(3), t.zeros(2)]), real_torch)


@pytest.mark.parametrize(
    "fn",
    [
        lambda t, a, b: t.hstack([a, b]),
        lambda t, a, b: t.vstack([a, b]) * t.dstack([a, b]).sum(),
        lambda t, a, b: t.meshgrid(a[0], b[1], indexing="xy"),
        lambda t, a, b: t.atleast_3d(a, b[0, 0]),
        lambda t, a, b: t.column_stack([a[0], b.T]),
    ],
    ids=["hstack", "vstack-dstack", "meshgrid", "atleast", "column_stack"],
)
def test_gradients(fn, real_torch):
    check_case(fn, [arr((2, 3)), arr((2, 3))], real_torch, jax_vjp=True)


# ----------------------------------------------------------------------------- isin
def test_isin():
    def prog(torch):
        x = torch.tensor([[1, 2, 3], [4, 5, 2]])
        tests = torch.tensor([2, 4])
        return {
            "tensor": torch.isin(x, tests),
            "invert": torch.isin(x, tests, invert=True, assume_unique=True),
            "scalar_test": torch.isin(x, 2),
            "scalar_element": (torch.isin(2, tests), torch.isin(3, tests)),
            "promoted": (torch.isin(x, torch.tensor([2.0, 4.5])), torch.isin(x, 2.5)),
            "float": torch.isin(torch.tensor([1.5, float("nan")]), torch.tensor([float("nan")])),
            "empty": torch.isin(x, torch.tensor([], dtype=torch.int64)),
            "0d": torch.isin(torch.tensor(4), tests),
        }

    run_parity(prog)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.isin(2, 3),
        lambda t: t.isin(t.tensor([True]), t.tensor([1])),
        lambda t: t.isin(t.tensor([1]), t.tensor([1j])),
    ],
    ids=["numbers", "bool", "complex"],
)
def test_isin_errors(call, real_torch):
    check_error(call, real_torch)


# ----------------------------------------------------------------------------- conversions
def test_scalar_tensor():
    def prog(torch):
        return [
            torch.scalar_tensor(3),
            torch.scalar_tensor(2.5, dtype=torch.float64),
            torch.scalar_tensor(3, dtype=torch.int32),
            torch.scalar_tensor(True),
            torch.scalar_tensor(1 + 2j, dtype=torch.complex64),
            torch.scalar_tensor(torch.tensor(2)),
            torch.scalar_tensor(1.0, requires_grad=True),
            catch(lambda: torch.scalar_tensor(1 + 2j)),
            catch(lambda: torch.scalar_tensor(1 + 2j, dtype=torch.float64)),
            catch(lambda: torch.scalar_tensor(1 + 2j, dtype=torch.int64)),
            torch.scalar_tensor(2 + 0j, dtype=torch.float64),
            torch.scalar_tensor(2j, dtype=torch.bool),
            catch(lambda: torch.scalar_tensor([1])),
        ]

    run_parity(prog)


def test_asarray():
    def prog(torch):
        x = torch.tensor([1.0, 2.0])
        leaf = torch.tensor([3.0], requires_grad=True)
        copied = torch.asarray(leaf, copy=True)
        converted = torch.asarray(leaf, dtype=torch.float64)
        (copied.sum() + converted.sum()).backward()
        return {
            "data": (torch.asarray([1, 2]), torch.asarray(3), torch.asarray([[1.0], [2.0]])),
            "numpy": torch.asarray(np.array([1.0, 2.0]), dtype=torch.float32),
            "same": (torch.asarray(x) is x, torch.asarray(x, copy=False) is x),
            "copy": (torch.asarray(x, copy=True) is x, torch.asarray(x, copy=True)),
            "dtype": torch.asarray(x, dtype=torch.float64),
            "requires_grad": torch.asarray([1.0], requires_grad=True),
            "kept": torch.asarray(leaf),  # warns: requires_grad now follows obj
            "dropped": torch.asarray(leaf, requires_grad=False) is leaf,
            "graph": (copied, converted, leaf.grad),
            "alias_error": catch(lambda: torch.asarray(x, dtype=torch.float64, copy=False)),
            "bad": catch(lambda: torch.asarray("a")),
        }

    run_parity(prog)


def test_can_cast_and_result_type():
    def prog(torch):
        dtypes = (torch.bool, torch.uint8, torch.int32, torch.int64, torch.float16)
        dtypes += (torch.bfloat16, torch.float32, torch.float64, torch.complex64)
        i, f = torch.tensor([1]), torch.tensor(1.0, dtype=torch.float64)
        h = torch.tensor([1.0], dtype=torch.float16)
        return {
            "can_cast": [[torch.can_cast(a, b) for b in dtypes] for a in dtypes],
            "result_type": [
                torch.result_type(i, 1.0),
                torch.result_type(2, 3.0),
                torch.result_type(True, 2),
                torch.result_type(f, h),
                torch.result_type(f, 1j),
                torch.result_type(i, f),
            ],
            "promote_types": torch.promote_types(torch.int32, torch.float16),
        }

    run_parity(prog)


def test_can_cast_and_result_type_errors(real_torch):
    check_error(lambda t: t.can_cast(1, t.int32), real_torch)
    check_error(lambda t: t.can_cast(t.int32, "x"), real_torch)
    check_error(lambda t: t.result_type(1, "a"), real_torch)


def test_meshgrid_outputs_are_views():
    a = ac.arange(3.0)
    x, _ = ac.meshgrid(a, ac.arange(2.0), indexing="ij")
    assert x._base is a


# ----------------------------------------------------------------------------- complex
def test_complex_constructions():
    def prog(torch):
        inf = float("inf")
        re, im = torch.tensor([1.0, -2.0, inf]), torch.tensor([[0.5], [inf]])
        pairs = torch.tensor([[1.0, 2.0], [3.0, -4.0]], dtype=torch.float64)
        return {
            "view_as_real": torch.view_as_real(torch.tensor([1 + 2j, 3j, -1 + 0j])),
            "view_as_complex": (torch.view_as_complex(pairs), torch.view_as_complex(pairs[0])),
            "complex": torch.complex(re, im),  # broadcast; inf stays inf
            "polar": torch.polar(torch.tensor([2.0, inf]), torch.tensor([0.5, 0.0])),
        }

    run_parity(prog)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.view_as_real(t.tensor([1.0])),
        lambda t: t.view_as_complex(t.tensor([[1, 2]])),
        lambda t: t.view_as_complex(t.tensor(1.0)),
        lambda t: t.view_as_complex(t.zeros(2, 3)),
        lambda t: t.view_as_complex(t.zeros(2, 2).T),
        lambda t: t.complex(t.zeros(1), t.zeros(1, dtype=t.float64)),
        lambda t: t.complex(t.zeros(1, dtype=t.int64), t.zeros(1, dtype=t.int64)),
        lambda t: t.complex(t.zeros(1), 2.0),
        lambda t: t.complex(t.zeros(2), t.zeros(3)),
        lambda t: t.polar(t.zeros(1, dtype=t.int64), t.zeros(1)),
    ],
)
def test_complex_errors(call, real_torch):
    check_error(call, real_torch)


@pytest.mark.parametrize(
    "fn",
    [
        lambda t, a, b: t.view_as_real(t.complex(a, b) * (1 + 2j)),
        lambda t, a, b: t.polar(a, b).abs() + t.polar(a, b).angle(),
        lambda t, a, b: t.view_as_complex(t.stack([a, b], -1)).pow(2),
    ],
    ids=["complex-view_as_real", "polar", "view_as_complex"],
)
def test_complex_gradients(fn, real_torch):
    check_case(fn, [arr((2, 3), "pos"), arr((2, 3))], real_torch, names=False)


# ----------------------------------------------------------------------------- deterministic
def test_deterministic_algorithms_switch():
    def prog(torch):
        def state():
            return (
                torch.are_deterministic_algorithms_enabled(),
                torch.is_deterministic_algorithms_warn_only_enabled(),
                torch.get_deterministic_debug_mode(),
            )

        states = [state()]
        try:
            torch.use_deterministic_algorithms(True, warn_only=True)
            states.append(state())
            torch.use_deterministic_algorithms(True)
            states.append(state())
            for mode in ("warn", "default", 2, 0):
                torch.set_deterministic_debug_mode(mode)
                states.append(state())
            states.append(catch(lambda: torch.use_deterministic_algorithms(1)))
            states.append(catch(lambda: torch.use_deterministic_algorithms(False, warn_only=1)))
            states.append(catch(lambda: torch.set_deterministic_debug_mode("foo")))
            states.append(catch(lambda: torch.set_deterministic_debug_mode(3)))
            states.append(catch(lambda: torch.set_deterministic_debug_mode(1.0)))
        finally:
            torch.use_deterministic_algorithms(False)
        return states

    run_parity(prog)


# ----------------------------------------------------------------------------- printing
@pytest.mark.parametrize(
    "options",
    [
        {"precision": 2},
        {"precision": 6, "sci_mode": True},
        {"sci_mode": False},
        {"threshold": 5, "edgeitems": 2},
        {"threshold": 5, "edgeitems": 0},
        {"linewidth": 30},
        {"profile": "short"},
        {"profile": "full", "precision": 1},
    ],
    ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()),
)
def test_set_printoptions(options):
    def prog(torch):
        values = [
            torch.tensor([1.12345, -2.5, 1e-5]),
            torch.tensor([1.0, 2.0, 300000.0]),
            torch.arange(10.0),
            torch.arange(24).reshape(4, 6),
            torch.linspace(0, 1, 30, dtype=torch.float64).reshape(2, 15),
            torch.tensor([1.5 + 2j, -3j]),
            torch.tensor(3.14159),
        ]
        try:
            torch.set_printoptions(**options)
            return [repr(v) for v in values]
        finally:
            torch.set_printoptions(profile="default")

    run_parity(prog)
