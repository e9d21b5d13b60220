"""The global PRNG: a JAX key advanced by every random draw, seeded by `manual_seed`.

The key is the only random state; `get_rng_state`/`set_rng_state` expose its bytes (a uint8
tensor, as PyTorch's ByteTensor state, which checkpoints save) so a training step can be lifted
into a pure function. Values differ from PyTorch's generator.
"""

from __future__ import annotations

import functools
from typing import cast

import jax
import jax.numpy as jnp
import numpy as np

from .._pure import dtypes as _dtypes
from .._pure import executables
from .tensor import Tensor


class Generator:
    """A PRNG stream (`torch.Generator`): a JAX key split at every draw."""

    def __init__(self, device="cpu") -> None:
        self._key_data: jax.Array | None = None
        self._seed = 0
        self.manual_seed(_entropy() % 2**63)

    @property
    def _key(self) -> jax.Array:
        """The key data, made from the seed at the first draw: creating a generator (the
        global one, at import) must not start JAX's backend, which
        `torch.distributed.init_process_group` has to configure first."""
        if self._key_data is None:
            self._key_data = jax.random.key_data(jax.random.key(self._seed))
        return self._key_data

    @_key.setter
    def _key(self, value: jax.Array) -> None:
        self._key_data = value

    def manual_seed(self, seed: int) -> Generator:
        self._seed = int(seed)
        self._key_data = None
        return self

    def seed(self) -> int:
        seed = int(_entropy() % 2**63)
        self.manual_seed(seed)
        return seed

    def initial_seed(self) -> int:
        return self._seed

    def next_key(self) -> jax.Array:
        """A fresh key for one draw; the stream moves on."""
        self._key, key = _split(self._key)
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
