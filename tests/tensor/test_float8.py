"""Conversions to the float8 dtypes give PyTorch's bit patterns: float8_e4m3fn saturates
overflow and infinities to +-448, float8_e5m2 keeps infinities and writes NaN as 0x7F,
float8_e8m0fnu rounds |x|'s exponent to nearest even, the fnuz dtypes give NaN for both;
through `to`, `tensor`, `copy_`, item assignment and fills (whose overflow errors are
PyTorch's)."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as ac
from tests._helpers.torch_compare import check_error

FLOAT8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]
_rng = np.random.default_rng(0)
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, 240.0, 241.0, 247.0, 248.0, 448.0, 449.0, 464.0]
SPECIAL += [465.0, 479.0, 480.0, 500.0, 1e4, -1e4, 57344.0, 57345.0, 61439.0, 61440.0]
SPECIAL += [65536.0, -65536.0, 1e30, -1e30, 3e38, np.inf, -np.inf, np.nan, -np.nan]
SPECIAL += [2.0**-6, 2.0**-7, 2.0**-9, 2.0**-10, 3 * 2.0**-11, 2.0**-11, 2.0**-12, -(2.0**-10)]
SPECIAL += [2.0**-14, 2.0**-16, 2.0**-17, 3 * 2.0**-18, 2.0**-24, 1e-40, 2.0**-127, 2.0**-128]
SPECIAL += [1.5 * 2.0**-127, 1.5, 1.75, 1.25, 1.125, 1.0625, 1.0 + 2.0**-23, 2.0**127, 1.7e38]
VALUES = np.concatenate(
    [
        np.array(SPECIAL, dtype=np.float32),
        (_rng.standard_normal(3000) * 10.0 ** _rng.integers(-12, 6, 3000)).astype(np.float32),
        -np.linspace(0, 600, 1201, dtype=np.float32),  # every rounding boundary up to 448
    ]
)


@pytest.mark.parametrize("source", ["float32", "float64", "float16"])
def test_conversion_bits_equal_pytorchs(source, real_torch):
    with np.errstate(over="ignore"):
        values = VALUES.astype(source)
    if source == "float16":  # PyTorch converts through float32: the same values, fewer of them
        values = values[np.isfinite(values) | np.isnan(values)]
    for name in FLOAT8:
        ours = ac.tensor(values).to(getattr(ac, name)).view(ac.uint8).numpy()
        theirs = real_torch.tensor(values).to(getattr(real_torch, name))
        expected = theirs.view(real_torch.uint8).numpy()
        bad = np.flatnonzero(ours != expected)
        assert not bad.size, (name, values[bad[:8]], ours[bad[:8]], expected[bad[:8]])
        back = ac.tensor(values).to(getattr(ac, name)).float().numpy()
        np.testing.assert_array_equal(back, theirs.float().numpy(), err_msg=name)


def test_integer_sources(real_torch):
    values = np.array([0, 1, -3, 447, 448, 449, 1000, 70000, -70000], dtype=np.int64)
    for name in FLOAT8:
        ours = ac.tensor(values).to(getattr(ac, name)).view(ac.uint8).numpy()
        theirs = real_torch.tensor(values).to(getattr(real_torch, name)).view(real_torch.uint8)
        np.testing.assert_array_equal(ours, theirs.numpy(), err_msg=name)


def _writes(t, name):
    """Every way of putting 500, -1e4, inf and NaN into a float8 tensor, as bytes."""
    d = getattr(t, name)
    big = [500.0, -1e4, float("inf"), float("nan")]
    z = t.zeros(4, dtype=d)
    z[0] = 500.0
    z[1:3] = -1e4
    results = [
        t.tensor(big, dtype=d),
        t.as_tensor(big, dtype=d),
        t.tensor(big, dtype=t.float64).type(d),
        t.zeros(4, dtype=d).copy_(t.tensor(big)),
        z,
        t.full((2,), float("nan"), dtype=d),
        t.full((2,), -3.0, dtype=d) if name != "float8_e8m0fnu" else t.full((2,), 3.0, dtype=d),
    ]
    return [r.view(t.uint8).tolist() for r in results]


@pytest.mark.parametrize("name", FLOAT8)
def test_writes_equal_pytorchs(name, real_torch):
    assert _writes(ac, name) == _writes(real_torch, name)


FILLS = [
    ("float8_e4m3fn", 449.0),
    ("float8_e4m3fn", float("inf")),
    ("float8_e5m2", 65536.0),
    ("float8_e4m3fnuz", 241.0),
    ("float8_e5m2fnuz", float("-inf")),
    ("float8_e8m0fnu", 0.0),
    ("float8_e8m0fnu", -3.0),
    ("float8_e8m0fnu", float("inf")),
]


@pytest.mark.parametrize(("name", "value"), FILLS)
def test_fill_overflow_errors(name, value, real_torch):
    check_error(lambda t: t.full((2,), value, dtype=getattr(t, name)), real_torch)
    check_error(lambda t: t.zeros(2, dtype=getattr(t, name)).fill_(value), real_torch)


def test_fills_in_range_and_e5m2_infinity(real_torch):
    for name, value in [("float8_e4m3fn", 448.0), ("float8_e5m2", float("inf"))]:
        ours = ac.full((2,), value, dtype=getattr(ac, name)).view(ac.uint8).tolist()
        theirs = real_torch.full((2,), value, dtype=getattr(real_torch, name))
        assert ours == theirs.view(real_torch.uint8).tolist()
