"""The XLA:CPU workaround: on affected jaxlib versions YNN fusion is limited to single matrix
multiplies, so the reductions jaxlib 0.10.2 miscompiles (jax-ml/jax#39103) or crashes on
(jax-ml/jax#39257) are compiled by XLA itself, and matmuls still reach YNNPACK.

XLA reads XLA_FLAGS once, when its CPU backend starts, so each reproducer runs in a fresh
process that imports this library first (which sets the flag) and then runs plain JAX."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import jaxlib
import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._pure import xla_workarounds as xw
from tests._helpers.paths import ROOT

AFFECTED = xw.AFFECTED[0] <= xw._version(jaxlib.__version__) < xw.AFFECTED[1]

# Each reproducer prints one JSON line when it finishes; a crash leaves the later ones out.
REPROS = textwrap.dedent(
    """
    import json, sys
    import autograd_compat  # sets XLA_FLAGS before JAX's CPU backend starts
    import jax, jax.numpy as jnp, numpy as np

    def report(name, **values):
        print(json.dumps({"name": name, **values}), flush=True)

    if "flags" in sys.argv:
        import os
        report("flags", value=os.environ.get("XLA_FLAGS", ""))

    if "jacobian" in sys.argv:  # jax-ml/jax#39103, as this library meets it
        a = jnp.linspace(-1, 1, 300, dtype=jnp.float32)
        jac = lambda x: jax.jacrev(lambda y: jnp.tanh(y * y.sum()))(x)
        report("jacobian", diff=float(jnp.max(jnp.abs(jax.jit(jac)(a) - jac(a)))))

    if "vmap" in sys.argv:  # jax-ml/jax#39103's own reproducer
        out = {}
        for dtype, n in ((jnp.float64, 16_385), (jnp.float32, 32_769)):
            i = jnp.arange(n, dtype=dtype)
            x = jnp.stack((i, jnp.zeros_like(i), jnp.zeros_like(i)), axis=1)
            m = jnp.eye(3, dtype=dtype)
            f = lambda x: jax.vmap(lambda row: jnp.sum((m @ row) ** 2))(x)
            out[dtype.__name__] = [float(f(x)[-1]), float(jax.jit(f)(x)[-1])]
        report("vmap", **out)

    if "rank7" in sys.argv:  # jax-ml/jax#39257's sharper trigger (filed as #40412): SIGSEGV
        shape = (3, 1, 2, 2, 8, 8, 8)
        u = jax.random.normal(jax.random.PRNGKey(0), shape, dtype=jnp.float32)
        v = jax.random.normal(jax.random.PRNGKey(1), shape, dtype=jnp.float32)
        got = np.asarray(jax.jit(lambda a, b: jnp.sum(a * b, axis=3))(u, v))
        want = np.sum(np.asarray(u, np.float64) * np.asarray(v, np.float64), axis=3)
        report("rank7", diff=float(np.max(np.abs(got - want))), shape=list(got.shape))

    if "rank8" in sys.argv:  # jax-ml/jax#39257's reproducer: SIGSEGV or hang
        def f(obs, A):
            lik = jnp.sum(obs[..., None, None, None, None, None] * A, axis=2)
            return jnp.log(jnp.maximum(lik, 2.220446049250313e-16))
        obs = jnp.ones((10, 4, 6), jnp.float32)
        A = jnp.ones((10, 4, 6, 9, 9, 9, 9, 9), jnp.float32)
        r = jax.jit(f)(obs, A)
        report("rank8", lo=float(r.min()), hi=float(r.max()), shape=list(r.shape))

    if "fusions" in sys.argv:  # what reaches YNNPACK under the flag
        a = jnp.ones((256, 256), jnp.float32)
        text = lambda f: jax.jit(f).lower(a).compile().as_text()
        report(
            "fusions",
            matmul="__ynn_fusion" in text(lambda x: jnp.tanh(x @ x) @ x),
            reduce="__ynn_fusion" in text(lambda x: jnp.sum(x * x, axis=1)),
        )
    """
)


def _run(*names: str, xla_flags: str | None = None) -> tuple[dict, subprocess.CompletedProcess]:
    env = dict(os.environ, JAX_PLATFORMS="cpu", AUTOGRAD_COMPAT_CACHE_DIR="off")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.pop("XLA_FLAGS", None)
    if xla_flags is not None:
        env["XLA_FLAGS"] = xla_flags
    proc = subprocess.run(
        [sys.executable, "-W", "error", "-c", REPROS, *names],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return {line.pop("name"): line for line in lines}, proc


@pytest.fixture(scope="module")
def under_workaround():
    """The reproducers, in one fresh process that imports this library first."""
    results, proc = _run("flags", "jacobian", "vmap", "rank7", "rank8", "fusions")

    def get(name: str) -> dict:
        assert name in results, (
            f"reproducer {name!r} did not finish (exit status {proc.returncode}; a negative "
            f"one is the signal that killed it)\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        )
        return results[name]

    return get


@pytest.mark.skipif(not AFFECTED, reason="jaxlib version not known to be affected")
def test_the_flag_set_is_the_narrow_one(under_workaround):
    assert under_workaround("flags")["value"] == f"{xw.YNN_FLAG}={xw.YNN_SAFE}"


def test_jitted_jacobian_of_a_fused_reduction_equals_eager_in_a_fresh_process(under_workaround):
    assert under_workaround("jacobian")["diff"] <= 1e-6


def test_vmapped_matvec_then_reduction_is_exact(under_workaround):
    got = under_workaround("vmap")
    assert got["float64"] == [268435456.0, 268435456.0]
    assert got["float32"] == [1073741824.0, 1073741824.0]


def test_rank7_multiply_reduce_runs_and_is_right(under_workaround):
    got = under_workaround("rank7")
    assert got["shape"] == [3, 1, 2, 8, 8, 8]
    assert got["diff"] < 1e-5


def test_rank8_broadcast_multiply_reduce_runs_and_is_right(under_workaround):
    got = under_workaround("rank8")
    assert got["shape"] == [10, 4, 9, 9, 9, 9, 9]
    np.testing.assert_allclose([got["lo"], got["hi"]], np.log(6.0), rtol=1e-6)


@pytest.mark.skipif(not AFFECTED, reason="jaxlib version not known to be affected")
def test_matmul_still_reaches_ynnpack_and_reductions_do_not(under_workaround):
    assert under_workaround("fusions") == {"matmul": True, "reduce": False}


@pytest.mark.skipif(jaxlib.__version__ != "0.10.2", reason="the control is for jaxlib 0.10.2")
def test_control_default_fusion_types_still_miscompile():
    """Without the workaround (the user's explicit choice of jaxlib 0.10.2's default set, which
    the library leaves alone) the reproducer still fails, so the tests above are not vacuous."""
    results, proc = _run("flags", "jacobian", xla_flags=f"{xw.YNN_FLAG}=individual_dot,reduce")
    assert results["flags"]["value"] == f"{xw.YNN_FLAG}=individual_dot,reduce", proc.stderr
    assert results["jacobian"]["diff"] > 0.1


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


SET = f"{xw.YNN_FLAG}={xw.YNN_SAFE}"


@pytest.mark.parametrize(
    ("version", "flags", "expected"),
    [
        ("0.10.2", "", SET),
        ("0.11.0", "--foo=1", f"--foo=1 {SET}"),
        ("0.10.1", "", ""),  # before the regression: nothing to do
        ("0.12.0", "", ""),  # newer: not known to be affected
        ("0.10.2", "--xla_cpu_experimental_ynn_fusion_type=", None),  # user's choice
        ("0.10.2", "--xla_cpu_experimental_ynn_fusion_type=-reduce", None),  # user's choice
    ],
)
def test_flag_is_added_only_on_affected_versions(monkeypatch, version, flags, expected):
    monkeypatch.setattr(xw.jaxlib, "__version__", version)
    monkeypatch.setenv("XLA_FLAGS", flags)
    added = xw.limit_ynn_fusion_if_affected()
    assert os.environ["XLA_FLAGS"] == (flags if expected is None else expected or flags)
    assert added == bool(expected)
