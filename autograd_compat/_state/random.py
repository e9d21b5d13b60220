"""The global PRNG: a JAX key advanced by every random draw, seeded by `manual_seed`.

The key is the only random state; `get_rng_state`/`set_rng_state` expose its bytes (a uint8
tensor, as PyTorch's ByteTensor state, which checkpoints save) so a training step can be lifted
into a pure function. Values differ from PyTorch's generator.
"""

from __future__ import annotations

import functools
import threading
from typing import cast

import jax
import jax.numpy as jnp
import numpy as np

from .._pure import dtypes as _dtypes
from .._pure import executables
from .tensor import Tensor


class _TracedKeys(threading.local):
    """Per thread: the keys a trace in progress in this thread drew to (JAX tracers). They
    are the trace's own: another thread drawing meanwhile reads and advances the real key,
    and the trace's end drops them rather than rewinding the real key (`restore_key`)."""

    def __init__(self) -> None:
        self.keys: dict[Generator, jax.Array] = {}


_traced = _TracedKeys()


class Generator:
    """A PRNG stream (`torch.Generator`): a JAX key split at every draw."""

    def __init__(self, device="cpu") -> None:
        self._key_data: jax.Array | None = None
        # held from reading the key to writing its successor: each draw takes its own key,
        # whichever threads draw (PyTorch's generators lock the same way)
        self.lock = threading.RLock()
        self._seed = 0
        self.manual_seed(_entropy() % 2**63)

    @property
    def _key(self) -> jax.Array:
        """The key data, made from the seed at the first draw: creating a generator (the
        global one, at import) must not start JAX's backend, which
        `torch.distributed.init_process_group` has to configure first."""
        traced = _traced.keys
        if traced and self in traced:
            return traced[self]
        if self._key_data is None:
            self._key_data = jax.random.key_data(jax.random.key(self._seed))
        return self._key_data

    @_key.setter
    def _key(self, value: jax.Array) -> None:
        if isinstance(value, jax.core.Tracer):
            _traced.keys[self] = value
            return
        _traced.keys.pop(self, None)
        self._key_data = value

    def restore_key(self, key: jax.Array) -> None:
        """End a trace that read `key` at its start: the keys it drew to in this thread are
        dropped, and draws other threads made meanwhile stand."""
        if isinstance(key, jax.core.Tracer):  # the outer trace's key, in a nested trace
            _traced.keys[self] = key
        else:
            _traced.keys.pop(self, None)

    def manual_seed(self, seed: int) -> Generator:
        self._seed = int(seed)
        self._key_data = None
        _traced.keys.pop(self, None)  # a key this thread's trace drew to is no longer current
        return self

    def seed(self) -> int:
        seed = int(_entropy() % 2**63)
        self.manual_seed(seed)
        return seed

    def initial_seed(self) -> int:
        return self._seed

    def next_key(self) -> jax.Array:
        """A fresh key for one draw; the stream moves on."""
        self.lock.acquire()
        try:
            self._key, key = _split(self._key)
        finally:
            self.lock.release()
        return key

    def get_state(self) -> Tensor:
        """The key's bytes, a uint8 tensor (PyTorch's ByteTensor state; its size differs)."""
        return Tensor._wrap(_key_bytes(self._key))

    def set_state(self, state) -> None:
        """Restore a state `get_state` returned (PyTorch's errors for another dtype or size)."""
        if not isinstance(state, Tensor) or state.dtype is not _dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        size = self._key.size * self._key.dtype.itemsize
        if state.numel() != size:
            raise RuntimeError(
                f"Expected a key state of size {size} but found the input RNG state size to be "
                f"{state.numel()}"
            )
        self._key = _key_of_bytes(state._value, self._key.shape, self._key.dtype)


def _entropy() -> int:
    """Fresh OS entropy, as an int (SeedSequence() without arguments always draws one)."""
    return cast(int, np.random.SeedSequence().entropy)


@executables.jit
def _split(key_data):
    keys = jax.random.key_data(jax.random.split(jax.random.wrap_key_data(key_data)))
    return keys[0], keys[1]


@executables.jit
def _key_bytes(key_data):
    return jax.lax.bitcast_convert_type(key_data, jnp.uint8).reshape(-1)


@functools.partial(executables.jit, static_argnums=(1, 2))
def _key_of_bytes(data, shape: tuple, dtype):
    return jax.lax.bitcast_convert_type(data.reshape(*shape, -1), dtype)


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the global generator; the same seed gives the same draws."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state) -> None:
    default_generator.set_state(state)


def key(generator: Generator | None = None) -> jax.Array:
    """A typed JAX key for one draw from `generator` (the global one by default)."""
    return jax.random.wrap_key_data((generator or default_generator).next_key())
