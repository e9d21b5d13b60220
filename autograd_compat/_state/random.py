"""The CPU generator: PyTorch's mt19937 stream, seeded by `manual_seed` as PyTorch seeds it.

A `Generator` holds an mt19937 engine (numpy's `MT19937`, whose seeding and outputs are
PyTorch's `at::mt19937`), the seed, and the two cached normal samples of PyTorch's scalar
Box-Muller path. Eager draws (`_state/draws.py`) take its 32- and 64-bit outputs, so a seeded
program draws PyTorch's numbers; `get_rng_state` returns PyTorch's 5,056-byte state and
`set_rng_state` takes one that real PyTorch saved.

A trace (torch.compile, torch.func, a `jax.jit`/`vmap` around library code) cannot run a host
engine per call: its draws come from a JAX key instead, made from the engine's next 64-bit
output (`_key`); writing the key's successor back moves the engine past that output, so
traced and eager draws both advance the one stream, and the 5,056 bytes determine both. A
trace's draws differ from the eager draws at the same point of the stream.
"""

from __future__ import annotations

import threading
from typing import NamedTuple, cast

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import core as _jax_core

from .._pure import dtypes as _dtypes
from .._pure import executables
from .._pure.device import device as _device
from .modes import modes
from .tensor import Tensor

_STATE_WORDS = 624  # mt19937's state: 624 32-bit words
_STATE_SIZE = 5056  # sizeof(CPUGeneratorImplState): PyTorch's get_rng_state layout
# byte offsets in that layout (x86-64 alignment)
_LEFT, _SEEDED, _NEXT, _WORDS = 8, 12, 16, 24
_NORMAL_Y, _NORMAL_VALID = _WORDS + 8 * _STATE_WORDS + 8, _WORDS + 8 * _STATE_WORDS + 24
_FLOAT_NORMAL, _FLOAT_VALID = 5048, 5052
_MAX_SEED = 2**64

_trace_state_clean = getattr(_jax_core, "trace_state_clean", lambda: True)


class _TracedKeys(threading.local):
    """Per thread: the keys a trace in progress in this thread drew to (JAX tracers). They
    are the trace's own: another thread drawing meanwhile reads and advances the real
    engine, and the trace's end drops them (`restore_key`)."""

    def __init__(self) -> None:
        self.keys: dict[Generator, jax.Array] = {}


_traced = _TracedKeys()


class Cached(NamedTuple):
    """The normal samples PyTorch's scalar Box-Muller path keeps for its next call."""

    double: float | None
    single: float | None


class Generator:
    """A PRNG stream (`torch.Generator`): PyTorch's CPU mt19937 engine."""

    def __init__(self, device="cpu") -> None:
        self.device = _device(device)
        self._engine = np.random.MT19937()
        self._draws = np.random.Generator(self._engine)  # its full-range uint32 draws are raw
        self._seed = 0
        self._fresh = True  # seeded, not drawn from: PyTorch's state says next=0, left=1
        self.cached = Cached(None, None)
        self._key_data: jax.Array | None = None
        # held from reading the state to writing its successor: each draw takes its own
        # outputs, whichever threads draw (PyTorch's generators lock the same way)
        self.lock = threading.RLock()
        self.manual_seed(_entropy())

    # ------------------------------------------------------------------ seeding
    def manual_seed(self, seed) -> Generator:
        """Seed as PyTorch does: the low 32 bits start the engine; the seed is kept whole."""
        seed = int(seed)
        if not -(2**63) <= seed < _MAX_SEED:
            raise ValueError("Overflow when unpacking long long")
        with self.lock:
            self._seed = seed % _MAX_SEED
            self._engine._legacy_seeding(self._seed & 0xFFFFFFFF)
            self._fresh = True
            self.cached = Cached(None, None)
            self._key_data = None
            _traced.keys.pop(self, None)  # a key this thread's trace drew to is no longer current
        return self

    def seed(self) -> int:
        seed = _entropy()
        self.manual_seed(seed)
        return seed

    def initial_seed(self) -> int:
        return self._seed

    # ------------------------------------------------------------------ raw draws
    def words(self, n: int) -> np.ndarray:
        """The engine's next `n` 32-bit outputs (uint32 array); the caller holds `lock`."""
        self._fresh = False
        self._key_data = None
        return self._draws.integers(0, 2**32, n, dtype=np.uint32)

    def words64(self, n: int) -> np.ndarray:
        """`n` 64-bit draws, each two 32-bit outputs, the first the high half (`random64`)."""
        pairs = self.words(2 * n).reshape(n, 2).astype(np.uint64)
        high = pairs[:, 0] << np.uint64(32)
        high |= pairs[:, 1]
        return high

    def random(self) -> int:
        """One 32-bit draw (PyTorch's `CPUGeneratorImpl::random`)."""
        with self.lock:
            return int(self.words(1)[0])

    def random64(self) -> int:
        """One 64-bit draw (PyTorch's `CPUGeneratorImpl::random64`)."""
        with self.lock:
            return int(self.words64(1)[0])

    # ------------------------------------------------------------------ traced draws
    def traced(self) -> bool:
        """Whether a draw now is part of a trace in this thread (it then takes a JAX key)."""
        return (
            self in _traced.keys or bool(modes.tracing and modes.traces) or not _trace_state_clean()
        )

    @property
    def _key(self) -> jax.Array:
        """The JAX key of this thread's trace, or the one the engine's next 64-bit output
        makes (made once per engine position: programs compare it by identity)."""
        traced = _traced.keys
        if traced and self in traced:
            return traced[self]
        if self._key_data is None:
            with self.lock, jax.ensure_compile_time_eval():  # a concrete key, even in a trace
                peek = np.random.MT19937()
                peek.state = self._engine.state
                high, low = peek.random_raw(2)
                self._key_data = _key_of_seed(np.uint64((int(high) << 32) | int(low)))
        return self._key_data

    @_key.setter
    def _key(self, value: jax.Array) -> None:
        """A trace's key (a tracer) stays this thread's; a concrete successor, written back
        after a program drew from the key, moves the engine past the output that made it."""
        if isinstance(value, jax.core.Tracer):
            _traced.keys[self] = value
            return
        _traced.keys.pop(self, None)
        with self.lock:
            self.words(2)

    def restore_key(self, key: jax.Array) -> None:
        """End a trace that read `key` at its start: the keys it drew to in this thread are
        dropped, and draws other threads made meanwhile stand."""
        if isinstance(key, jax.core.Tracer):  # the outer trace's key, in a nested trace
            _traced.keys[self] = key
        else:
            _traced.keys.pop(self, None)

    def next_key(self) -> jax.Array:
        """Key data for one draw through JAX: the current key split, its successor written
        back (eagerly, the engine moves past the output that made the key), so an eager draw
        takes the key a compiled call drawing once would take."""
        with self.lock:
            self._key, key = _split(self._key)
        return key

    # ------------------------------------------------------------------ state bytes
    def get_state(self) -> Tensor:
        """PyTorch's `CPUGeneratorImplState` bytes (5,056 uint8s)."""
        return Tensor._wrap(jnp.asarray(np.frombuffer(self._state_bytes(), np.uint8)))

    def _state_bytes(self) -> bytes:
        with self.lock:
            state = self._engine.state["state"]
            position = int(state["pos"])
            buffer = bytearray(_STATE_SIZE)
            view = memoryview(buffer)
            next_ = 0 if self._fresh else position
            left = 1 if position == _STATE_WORDS else _STATE_WORDS + 1 - position
            view[0:8] = np.uint64(self._seed).tobytes()
            view[_LEFT:_SEEDED] = np.int32(left).tobytes()
            view[_SEEDED:_NEXT] = np.int32(1).tobytes()
            view[_NEXT : _NEXT + 8] = np.uint64(next_).tobytes()
            words = np.asarray(state["key"], np.uint64).tobytes()
            view[_WORDS : _WORDS + len(words)] = words
            double, single = self.cached
            if double is not None:
                view[_NORMAL_Y : _NORMAL_Y + 8] = np.float64(double).tobytes()
                view[_NORMAL_VALID : _NORMAL_VALID + 4] = np.int32(1).tobytes()
            if single is not None:
                view[_FLOAT_NORMAL : _FLOAT_NORMAL + 4] = np.float32(single).tobytes()
                view[_FLOAT_VALID] = 1
        return bytes(buffer)

    def set_state(self, new_state) -> None:
        """Restore bytes `get_state` returned here or in PyTorch (PyTorch's errors)."""
        if not isinstance(new_state, Tensor) or new_state.dtype is not _dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if new_state.numel() != _STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found the input "
                f"RNG state size to be {new_state.numel()}"
            )
        self._set_bytes(np.asarray(new_state._value).tobytes())

    def _set_bytes(self, data: bytes) -> None:
        seed = int(np.frombuffer(data, np.uint64, 1, 0)[0])
        left = int(np.frombuffer(data, np.int32, 1, _LEFT)[0])
        seeded = data[_SEEDED]
        next_ = int(np.frombuffer(data, np.uint32, 1, _NEXT)[0])
        if not (seeded and 0 < left <= _STATE_WORDS and next_ <= _STATE_WORDS):
            raise RuntimeError("Invalid mt19937 state")
        if left != 1 and left + next_ != _STATE_WORDS + 1:
            raise RuntimeError(
                f"mt19937 state with left={left} and next={next_}: this generator takes the "
                "states PyTorch's engine reaches (left + next = 625, or left = 1)"
            )
        words = np.frombuffer(data, np.uint64, _STATE_WORDS, _WORDS).astype(np.uint32)
        valid = np.frombuffer(data, np.int32, 1, _NORMAL_VALID)[0]
        double = float(np.frombuffer(data, np.float64, 1, _NORMAL_Y)[0]) if valid else None
        single_valid = data[_FLOAT_VALID]
        single = float(np.frombuffer(data, np.float32, 1, _FLOAT_NORMAL)[0])
        with self.lock:
            position = _STATE_WORDS if left == 1 else next_
            self._engine.state = {
                "bit_generator": "MT19937",
                "state": {"key": words, "pos": position},
            }
            self._seed = seed
            self._fresh = left == 1 and next_ == 0
            self.cached = Cached(double, single if single_valid else None)
            self._key_data = None
            _traced.keys.pop(self, None)

    def clone_state(self) -> Generator:
        """A new generator in this one's state."""
        return _restored(str(self.device), self._state_bytes())

    def get_offset(self) -> int:
        raise RuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset: int) -> Generator:
        raise RuntimeError("CPU Generator does not use offset")

    def __reduce__(self):
        return (_restored, (str(self.device), self._state_bytes()))


def _restored(device: str, state: bytes) -> Generator:
    """A generator unpickled from its device and state bytes."""
    generator = Generator(device)
    generator._set_bytes(state)
    return generator


def _entropy() -> int:
    """A fresh 53-bit seed from OS entropy (PyTorch's nondeterministic seeds are 53-bit)."""
    return cast(int, np.random.SeedSequence().entropy) % 2**53


@executables.jit
def _split(key_data):
    keys = jax.random.key_data(jax.random.split(jax.random.wrap_key_data(key_data)))
    return keys[0], keys[1]


@executables.jit
def _key_of_seed(seed):
    return jax.random.key_data(jax.random.key(seed))


default_generator = Generator()


def manual_seed(seed) -> Generator:
    """Seed the global generator; the same seed gives PyTorch's draws."""
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
