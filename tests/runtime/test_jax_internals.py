"""The JAX internals the library reads (`_pure/jax_internals.py`) are where it expects them on
the installed JAX: a JAX release that moves one fails here, naming it."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from autograd_compat._pure import jax_internals

NAMES = (
    "ArrayImpl",
    "trace_ctx",
    "backends_are_initialized",
    "registered_platforms",
    "started_backends",
    "clear_staging_caches",
    "dim_value",
    "batched_device_put",
    "COPY_DURING_CALL",
)


@pytest.mark.parametrize("name", NAMES)
def test_each_internal_is_found(name):
    assert getattr(jax_internals, name, None) is not None, f"jax {jax.__version__} moved {name}"


def test_the_internals_answer_as_the_library_reads_them():
    array = jax.device_put(np.ones(2, np.float32))
    assert type(array) is jax_internals.ArrayImpl
    assert jax_internals.trace_ctx.is_top_level()
    seen = []
    jax.jit(lambda x: seen.append(jax_internals.trace_ctx.is_top_level()) or x)(1.0)
    assert seen == [False]
    assert jax_internals.backends_are_initialized()
    assert "cpu" in jax_internals.registered_platforms()
    assert "cpu" in jax_internals.started_backends()
    a, b = jax.export.symbolic_shape("a, b")
    assert jax_internals.dim_value(2 * a + b - 1, {"a": 3, "b": 4}) == 9
