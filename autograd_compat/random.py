"""torch.random: the global generator's functions, `fork_rng` and `thread_safe_generator`.

This library has one generator for every device (`docs/random.md`), so forking the random
state saves and restores that one generator, whichever devices are named.
"""

from __future__ import annotations

import contextlib

from ._state.random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

__all__ = [
    "Generator",
    "default_generator",
    "fork_rng",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
    "thread_safe_generator",
]


@contextlib.contextmanager
def fork_rng(
    devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"
):
    """Random draws inside the block leave the generator as it was before it (the state is
    restored on exit, also when the block raises); with `enabled=False` it does nothing."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def thread_safe_generator() -> Generator | None:
    """PyTorch's generator of a DataLoader thread worker, None elsewhere (the global
    generator then serves). DataLoader workers are processes here, so it is None, as
    PyTorch's in the main process and in process workers."""
    return None
