"""The bound on compiled programs kept alive: ever new shapes stay flat."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import weakref

import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._pure import executables
from autograd_compat._pure.jax_internals import _LOWERING_CACHES
from autograd_compat.autograd import functional
from tests._helpers.paths import ROOT

BOUND = 8
CHECK_EVERY = 2


@pytest.fixture
def own_registry(monkeypatch):
    """A registry holding only the functions the test makes, swept only when it says."""
    monkeypatch.setattr(executables, "_functions", weakref.WeakKeyDictionary())
    monkeypatch.setattr(executables, "CHECK_EVERY", 2**62)


def test_sweep_empties_the_largest_function_first(monkeypatch, own_registry):
    many = executables.jit(lambda x: x * 2)
    one = executables.jit(lambda x: x + 1)
    for n in (1, 2, 3):
        many(jnp.ones(n))
    one(jnp.ones(1))
    monkeypatch.setattr(executables, "MAX_EXECUTABLES", 3)  # 4 kept > 3: down to 3 * 0.75
    assert executables.sweep() == 1
    assert (many._cache_size(), one._cache_size()) == (0, 1)
    np.testing.assert_array_equal(many(jnp.ones(3)), [2.0, 2.0, 2.0])  # compiles again


def test_sweep_then_empties_the_least_recently_compiled(monkeypatch, own_registry):
    old = executables.jit(lambda x: x - 1)
    old(jnp.ones(2))
    assert executables.sweep() == 1  # under the bound: nothing emptied; `old` seen grown
    newer = [executables.jit(lambda x: x * 3), executables.jit(lambda x: x / 3)]
    for fn in newer:
        fn(jnp.ones(2))
    monkeypatch.setattr(executables, "MAX_EXECUTABLES", 2)
    monkeypatch.setattr(executables, "LOW_WATER", 0.5)  # 3 kept > 2: down to 1
    assert executables.sweep() == 1
    assert old._cache_size() == 0
    assert sorted(fn._cache_size() for fn in newer) == [0, 1]


def test_sweep_drops_traces_and_keeps_programs(own_registry):
    fn = executables.jit(lambda x: jnp.tanh(x) * 3)
    fn(jnp.ones(7))
    assert any(cache.cache_info().currsize for cache in _LOWERING_CACHES)
    executables.sweep()
    assert [cache.cache_info().currsize for cache in _LOWERING_CACHES] == [0] * 3
    compiled = executables._compiles
    np.testing.assert_allclose(fn(jnp.ones(7)), np.tanh(np.ones(7)) * 3, rtol=1e-6)
    assert executables._compiles == compiled  # the kept program ran: nothing compiled
    assert fn._cache_size() == 1


def test_a_transform_traced_again_after_a_sweep_compiles_nothing_new():
    x = torch.linspace(-1, 2, 9, dtype=torch.float64)
    functional.jacobian(lambda x: x.sin() * x.sum(), x)
    size = len(functional._ops_cache)
    executables.sweep()  # JAX's traces go: the next trace's nested jaxprs are new objects
    functional.jacobian(lambda x: x.sin() * x.sum(), x * 0.5)
    assert len(functional._ops_cache) == size


def test_a_long_compile_is_swept_at_once(own_registry):
    sweeps = executables._sweeps
    executables._on_compile(executables.COMPILE_EVENT, executables.SWEEP_AFTER_S / 2)
    assert executables._sweeps == sweeps
    executables._on_compile(executables.COMPILE_EVENT, executables.SWEEP_AFTER_S)
    assert executables._sweeps == sweeps + 1


def test_bound_from_the_environment(monkeypatch, own_registry):
    monkeypatch.setenv(executables.ENV, "256")
    assert executables._bound_from_env() == 256
    monkeypatch.delenv(executables.ENV)
    assert executables._bound_from_env() == 1024
    monkeypatch.setenv(executables.ENV, "lots")
    with pytest.raises(ValueError, match="AUTOGRAD_COMPAT_MAX_EXECUTABLES must be a count"):
        executables._bound_from_env()
    monkeypatch.setattr(executables, "MAX_EXECUTABLES", 0)  # 0: no bound
    fn = executables.jit(lambda x: x * 5)
    for n in (1, 2):
        fn(jnp.ones(n))
    assert executables.sweep() == 2


# Run in a fresh process: sweeping down to a bound of 8 empties every cache of the process it
# runs in, which would make the rest of a pytest worker's tests compile everything again.
_BOUNDED_RUN = textwrap.dedent(
    f"""
    import gc, json
    import jax
    import autograd_compat as torch
    from autograd_compat._pure import executables
    executables.MAX_EXECUTABLES, executables.CHECK_EVERY = {BOUND}, {CHECK_EVERY}

    def live():
        gc.collect()
        return len(jax.devices()[0].client.live_executables())

    executables.sweep()  # the whole process's programs down to the bound first
    start = live()
    kept, grown, grads = [], [], {{}}
    for _ in range(2):
        for n in range(1, 7):
            x = torch.linspace(-1, 1, n, dtype=torch.float64, requires_grad=True)
            (x * x).exp().sum().backward()
            grads.setdefault(n, []).append(x.grad.tolist())
            kept.append(executables.kept())
            grown.append(live() - start)
    print(json.dumps({{"kept": max(kept), "grown": max(grown), "grads": grads}}))
    """
)


def test_kept_programs_stay_bounded_over_new_shapes(real_torch):
    """Forwards, stepwise and fused backwards over 6 shapes, twice (the second pass fuses its
    backwards and recompiles evicted programs): never more than the bound plus one check's
    worth of programs alive, and the gradients right after their programs were evicted."""
    done = subprocess.run(
        [sys.executable, "-c", _BOUNDED_RUN], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["kept"] <= BOUND + CHECK_EVERY
    assert result["grown"] <= BOUND + CHECK_EVERY
    for n, (first, second) in result["grads"].items():
        x = real_torch.linspace(-1, 1, int(n), dtype=real_torch.float64, requires_grad=True)
        (x * x).exp().sum().backward()
        np.testing.assert_allclose(first, x.grad.numpy(), rtol=1e-12)
        np.testing.assert_array_equal(second, first)
