"""The XLA:CPU workaround: affected jaxlib versions get YNN fusion switched off, so a jitted
Jacobian that jaxlib 0.10.2 miscompiles (jax-ml/jax#39103) equals the eager one."""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._pure import xla_workarounds as xw


def test_jitted_jacobian_of_a_fused_reduction_equals_eager():
    a = jnp.linspace(-1, 1, 300, dtype=jnp.float32)

    def jac(x):
        return jax.jacrev(lambda y: jnp.tanh(y * y.sum()))(x)

    np.testing.assert_allclose(jax.jit(jac)(a), jac(a), rtol=1e-6, atol=1e-6)


def test_library_jacobian_of_the_same_function_is_right():
    x = torch.linspace(-1, 1, 300)
    jac = torch.autograd.functional.jacobian(lambda y: torch.tanh(y * y.sum()), x)
    s = float(np.sum(np.linspace(-1, 1, 300, dtype=np.float32)))
    xs = np.linspace(-1, 1, 300)
    slope = 1 - np.tanh(xs * s) ** 2
    expected = np.diag(slope * s) + slope[:, None] * xs[:, None]
    np.testing.assert_allclose(jac.numpy(), expected, atol=1e-4)


@pytest.mark.parametrize(
    ("version", "flags", "expected"),
    [
        ("0.10.2", "", "--xla_cpu_experimental_ynn_fusion_type="),
        ("0.11.0", "--foo=1", "--foo=1 --xla_cpu_experimental_ynn_fusion_type="),
        ("0.10.1", "", ""),  # before the regression: nothing to do
        ("0.12.0", "", ""),  # newer: not known to be affected
        ("0.10.2", "--xla_cpu_experimental_ynn_fusion_type=reduce", None),  # user's choice
    ],
)
def test_flag_is_added_only_on_affected_versions(monkeypatch, version, flags, expected):
    monkeypatch.setattr(xw.jaxlib, "__version__", version)
    monkeypatch.setenv("XLA_FLAGS", flags)
    added = xw.disable_ynn_fusion_if_affected()
    assert os.environ["XLA_FLAGS"] == (flags if expected is None else expected or flags)
    assert added == bool(expected)
