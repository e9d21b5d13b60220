"""The JAX internals (`jax._src`) the library reads, imported here and nowhere else.

JAX's public API has no equivalent for these (checked on jax 0.10.2, the version
pyproject.toml's range allows); a JAX release that moves one fails in this module, and
`tests/runtime/test_jax_internals.py` names it:
- `ClosedJaxpr`, `Jaxpr`, `Literal`: the jaxpr classes. `jax.extend.core` re-exports them, but
  importing `jax.extend` imports every one of its submodules, Pallas among them: ~10 ms of CPU
  at every import of the library.
- `ArrayImpl`: the class of every concrete `jax.Array`. Per-op paths test
  `type(x) is ArrayImpl` (one pointer comparison; `isinstance(x, jax.Array)` also matches
  tracers and goes through an ABC check) and read its `_committed` flag (whether the array was
  placed on a device explicitly, which a deferred or in-place result must keep).
- `trace_ctx`: JAX's tracing context; `trace_ctx.is_top_level()` says whether code runs
  outside every trace (a deferred segment flushed inside `jax.jit` must compute concrete
  values, not trace them into the caller's program).
- `backends_are_initialized`: whether JAX's backend has started, which `jax.distributed` must
  come before (`init_process_group` says so instead of failing inside JAX).
- `registered_platforms()`: the platforms with a backend plugin, read without starting a
  backend (`cuda.is_available()` before `init_process_group`).
- `started_backends()`: every backend JAX started, by platform (`jax.devices()` shows only
  the default one's devices): whether the process has one device in all.
- `clear_staging_caches`: JAX's tracing and lowering caches cleared, its compiled programs
  kept (`jax.clear_caches` drops those too); None where this JAX has no such function, and the
  caches stay JAX's own LRUs.
- `clear_lowerings()`: `jax.jit`'s caches of the jaxprs it traced and the MLIR modules it
  lowered them to emptied (0.4 to 1.2 MiB a program on CPU, kept only to trace and lower a
  signature again through JAX's Python dispatch); the compiled programs stay, and a call of a
  kept one runs them without tracing. A no-op where this JAX lacks either cache.
- `dim_value(expr, dims)`: the value of a symbolic dimension (`jax.export.symbolic_shape`)
  where its variables take the ints of `dims` (a jaxpr traced over symbolic dimensions,
  evaluated on the host at one shape: `_pure/first_calls.py`); `affine(expr, names)` the same
  expression as a constant and a coefficient per variable, where it is one (`d0 + 1`), read
  from its terms: evaluated per call in a few additions instead of ~10 us.
- `batched_device_put`, `COPY_DURING_CALL`, `ZERO_COPY`: jaxlib's batched host-to-device
  transfer, the one `jax.jit` uses for numpy arguments (~5 us where `jax.device_put` spends
  ~40 us in Python), copying the host buffer during the call, or (`ZERO_COPY`) taking it as
  the device buffer where the device can; None where this jaxlib lacks it, and transfers go
  through `jax.device_put`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from jax._src import pjit as _pjit
from jax._src import util as _jax_util
from jax._src import xla_bridge as _xla_bridge
from jax._src.array import ArrayImpl
from jax._src.core import ClosedJaxpr, Jaxpr, Literal, trace_ctx
from jax._src.interpreters import partial_eval as _partial_eval

__all__ = [
    "COPY_DURING_CALL",
    "ZERO_COPY",
    "Affine",
    "ArrayImpl",
    "ClosedJaxpr",
    "Jaxpr",
    "Literal",
    "backends_are_initialized",
    "batched_device_put",
    "clear_lowerings",
    "affine",
    "clear_staging_caches",
    "dim_value",
    "registered_platforms",
    "started_backends",
    "trace_ctx",
]

backends_are_initialized = _xla_bridge.backends_are_initialized
started_backends = _xla_bridge.backends
clear_staging_caches = getattr(_jax_util, "clear_all_caches", None)
_LOWERING_CACHES: tuple[Any, ...] = tuple(
    cache
    for cache in (
        getattr(_partial_eval, "trace_to_jaxpr", None),
        getattr(_pjit, "_infer_params_cached", None),
        getattr(_pjit, "_pjit_lower", None),
    )
    if hasattr(cache, "cache_clear")
)


def dim_value(expr, dims: dict[str, int]) -> int:
    """The int a symbolic dimension `expr` takes where its variables are `dims`."""
    return int(expr._evaluate(dims))


class Affine(NamedTuple):
    """A symbolic dimension as `constant + sum(coefficient * sizes[index])`."""

    constant: int
    terms: tuple  # ((index of a variable in the names, coefficient), ...)


def affine(expr, names: tuple) -> Affine | None:
    """`expr` (a symbolic dimension over the variables `names`) as an `Affine`, or None where
    a term is no constant and no single variable (a product, a floordiv, a max)."""
    constant = 0
    terms = []
    for term, coefficient in expr._sorted_terms:
        if term.is_constant:
            constant += coefficient
            continue
        name = term.to_var()
        if name not in names:
            return None
        terms.append((names.index(name), coefficient))
    return Affine(constant, tuple(terms))


def clear_lowerings() -> None:
    """Empty `jax.jit`'s caches of traces and lowerings (`_LOWERING_CACHES`)."""
    for cache in _LOWERING_CACHES:
        cache.cache_clear()


try:
    from jax._src.lib import xla_client as _xla_client

    batched_device_put = _xla_client.batched_device_put
    COPY_DURING_CALL = _xla_client.HostBufferSemantics.IMMUTABLE_ONLY_DURING_CALL
    ZERO_COPY = _xla_client.HostBufferSemantics.ZERO_COPY
except (ImportError, AttributeError):  # pragma: no cover - a jaxlib that moved it
    batched_device_put = None
    COPY_DURING_CALL = None
    ZERO_COPY = None


def registered_platforms() -> frozenset:
    """The platforms JAX has a backend factory for ("cpu", "cuda", "rocm", "tpu"...), read
    without starting any backend."""
    return frozenset(_xla_bridge._backend_factories)
