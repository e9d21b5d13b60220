"""JAX's persistent compilation cache, on by default, so a new process reuses compiled ops.

Every op, vjp and fused backward compiles on first use (20-100 ms each): a script that touches
a few dozen ops spends seconds compiling before its first result. JAX can keep compiled
programs on disk; this turns that on, for programs of any size and compile time (JAX's default
keeps only those that took a second or more, which no single op does), in a per-user
directory: `$AUTOGRAD_COMPAT_CACHE_DIR` if set, else `$XDG_CACHE_HOME/autograd_compat/jax`,
else `~/.cache/autograd_compat/jax`. `AUTOGRAD_COMPAT_CACHE_DIR` empty, `0` or `off` switches
it off. A cache the user configured for JAX (`JAX_COMPILATION_CACHE_DIR` or
`jax.config.update("jax_compilation_cache_dir", ...)` before this import), or JAX's cache
switched off (`JAX_ENABLE_COMPILATION_CACHE=0`), is left as it is.

JAX creates the directory at the first compile, not here. A directory that cannot be written
or created is not used (JAX would warn on every write): the process then compiles as without
a cache. The cache key includes XLA_FLAGS and the jaxlib version, so the XLA workaround's flag
and an upgrade start fresh entries rather than reuse programs compiled otherwise.
"""

from __future__ import annotations

import os

import jax

ENV = "AUTOGRAD_COMPAT_CACHE_DIR"
OFF = ("", "0", "off", "false", "no", "none")


def default_dir() -> str:
    """`$XDG_CACHE_HOME/autograd_compat/jax`, or under `~/.cache` when that is unset."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG spec says to ignore a relative value
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "autograd_compat", "jax")


def chosen_dir() -> str | None:
    """The directory `AUTOGRAD_COMPAT_CACHE_DIR` names (None: off), else `default_dir()`."""
    value = os.environ.get(ENV)
    if value is None:
        return default_dir()
    if value.strip().lower() in OFF:
        return None
    return os.path.abspath(os.path.expanduser(value.strip()))


def usable(path: str) -> bool:
    """Whether `path` is a writable directory or could be created as one, creating nothing."""
    probe = path
    while not os.path.lexists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            return False
        probe = parent
    return os.path.isdir(probe) and os.access(probe, os.W_OK | os.X_OK)


def enable() -> str | None:
    """Point JAX's persistent cache at `chosen_dir()` unless the user configured JAX's cache,
    it is off, or the directory is unusable; the directory now in use by this, or None."""
    values = jax.config.values
    if values["jax_compilation_cache_dir"] is not None:
        return None
    if not values["jax_enable_compilation_cache"]:
        return None
    path = chosen_dir()
    if path is None or not usable(path):
        return None
    jax.config.update("jax_compilation_cache_dir", path)
    # Keep every program: a single op compiles in well under JAX's default of one second.
    # Values the user set for JAX through its environment variables win.
    if "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in os.environ:
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    if "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES" not in os.environ:
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)  # no minimum
    return path


CACHE_DIR = enable()
