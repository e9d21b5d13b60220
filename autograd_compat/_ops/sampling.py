"""torch.multinomial: draw category indices from rows of (unnormalized) probabilities.

One jitted function per (shape, dtype, num_samples, replacement) draws the samples and, in the
same call, the per-row validity codes PyTorch's checks need, so a text generator calling
`torch.multinomial(probs, 1)` in a loop compiles once and pays one small host read per call.
Eagerly on the CPU backend the draws are PyTorch's, computed on the host (`_host_draw`):
- with replacement: per row, a float64 uniform per sample searched in the row's sequential
  cumulative sum (normalized, its last entry 1);
- without replacement (and for one sample): the top `num_samples` of `p / q` with
  `q ~ Exponential(1)` (equivalent to sequential draws without replacement).
In a trace or on an accelerator, keys come from `_state/random.py` (reproducible under
`manual_seed`, PyTorch's distribution, other values): `jax.random.categorical` on
log-probabilities with replacement, the same top-k of `p / q` without.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .._pure import executables
from .._state import draws as _draws
from .._state import random as _random
from .._state.tensor import Tensor
from .._tape.args import scalar_type_name
from .factories import _device_array
from .out_arg import takes_out
from .random import host_generator

__all__ = ["multinomial"]

# The per-row codes of `_draw`, and PyTorch's texts for them (ATen's Distributions.cpp). The
# fast path (no replacement, or one sample) checks the whole tensor; the with-replacement
# kernel checks row by row, element by element.
_OK, _NEGATIVE, _INFINITE, _ZERO_SUM = 0, 1, 2, 3
_FAST_PATH_INVALID = "probability tensor contains either `inf`, `nan` or element < 0"
_ZERO_SUM_TEXT = "invalid multinomial distribution (sum of probabilities <= 0)"
_KERNEL_TEXT = {
    _NEGATIVE: "invalid multinomial distribution (encountering probability entry < 0)",
    _INFINITE: "invalid multinomial distribution (encountering probability entry = infinity "
    "or NaN)",
    _ZERO_SUM: _ZERO_SUM_TEXT,
}


def _row_codes(p, xp=jnp):
    """For each row of the 2-D `p`: its first problem, as the with-replacement kernel finds it
    (an entry that is not >= 0, then one that is not finite, then a sum <= 0). `xp`: jax.numpy
    in a program, numpy for a host array (`_check_host`)."""
    element = xp.where(~(p >= 0), _NEGATIVE, xp.where(~xp.isfinite(p), _INFINITE, _OK))
    bad = element != _OK
    first = xp.take_along_axis(element, xp.argmax(bad, axis=-1)[:, None], axis=-1)[:, 0]
    zero = xp.sum(xp.where(bad, 0, p), axis=-1) <= 0
    return xp.where(xp.any(bad, axis=-1), first, xp.where(zero, _ZERO_SUM, _OK))


@partial(executables.jit, static_argnames=("num_samples", "replacement"))
def _draw(key_data, probs, *, num_samples: int, replacement: bool):
    """(indices int64 [rows, num_samples], per-row codes) for the 2-D `probs`."""
    key = jax.random.wrap_key_data(key_data)
    p = probs.astype(jnp.float64 if probs.dtype == jnp.float64 else jnp.float32)
    codes = _row_codes(p)
    rows = p.shape[0]
    if replacement and num_samples > 1:
        logits = jnp.log(jnp.where(p > 0, p, 0))
        samples = jax.random.categorical(key, logits, axis=-1, shape=(num_samples, rows)).T
    else:
        q = jax.random.exponential(key, p.shape, p.dtype)
        scores = p / q
        if num_samples == 1:
            samples = jnp.argmax(scores, axis=-1)[:, None]
        else:
            samples = jax.lax.top_k(scores, num_samples)[1]
    return samples.astype(jnp.int64), codes


def _host_draw(g: _random.Generator, rows: np.ndarray, num_samples: int, replacement: bool):
    """PyTorch's CPU multinomial of the 2-D host array `rows` from generator `g`."""
    if replacement:
        cumulative = np.cumsum(rows.astype(np.float32 if rows.itemsize < 8 else np.float64), -1)
        cumulative = cumulative / cumulative[:, -1:]
        cumulative[:, -1] = 1.0
        with g.lock:
            uniform = _draws.unit(g, rows.shape[0] * num_samples, 53)
        uniform = uniform.reshape(rows.shape[0], num_samples)
        picked = [np.searchsorted(c.astype(np.float64), u) for c, u in zip(cumulative, uniform)]
        return np.stack(picked)
    compute = np.float64 if rows.dtype == np.float64 else np.float32
    q = _draws.exponential(g, rows.size, 1.0).astype(rows.dtype).reshape(rows.shape)
    scores = (rows.astype(compute) / q.astype(compute)).astype(rows.dtype)
    if num_samples == 1:
        return np.argmax(scores, axis=-1)[:, None]
    return np.argsort(-scores.astype(np.float64), axis=-1, kind="stable")[:, :num_samples]


def _check_host(p: np.ndarray, fast_path: bool) -> None:
    """PyTorch's checks of the 2-D host array `p`: three reductions where every row is finite,
    non-negative and of positive sum (an XLA call of `_row_codes` and its read cost ~10 us a
    draw), the row codes computed with numpy otherwise."""
    if p.min() >= 0 and p.max() < np.inf and p.sum(axis=-1).min() > 0:
        return
    _check_codes(_row_codes(p, np), fast_path)


def _check_codes(codes: np.ndarray, fast_path: bool) -> None:
    bad = np.flatnonzero(codes)
    if bad.size == 0:
        return
    if fast_path:
        if np.any((codes == _NEGATIVE) | (codes == _INFINITE)):
            raise RuntimeError(_FAST_PATH_INVALID)
        raise RuntimeError(_ZERO_SUM_TEXT)
    raise RuntimeError(_KERNEL_TEXT[int(codes[bad[0]])])


@takes_out
def multinomial(
    input: Tensor, num_samples: int, replacement: bool = False, *, generator=None
) -> Tensor:
    """Sample category indices from the multinomial distribution given by the rows of `input`.

    Args:
        input (Tensor): 1-D or 2-D non-negative weights (need not sum to one), floating point.
        num_samples (int): draws per row.
        replacement (bool): draw with replacement. Without it, `num_samples` must not exceed
            the number of categories (zero-weight categories come last, in any order).
        generator (Generator, optional): the stream to draw from (the global one by default).

    Returns:
        An int64 tensor of shape `(num_samples,)` or `(rows, num_samples)`: PyTorch's draws
        eagerly on the CPU backend (the same distribution, other draws, in a trace).

    Example::

        >>> torch.manual_seed(0)  # doctest: +ELLIPSIS
        <...Generator object at ...>
        >>> torch.multinomial(torch.tensor([0.0, 0.0, 1.0]), 2, replacement=True)
        tensor([2, 2])
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"multinomial(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}"
        )
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "multinomial only supports floating-point dtypes for input, got: "
            f"{scalar_type_name(input.dtype)}"
        )
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)):
        raise TypeError(
            f"multinomial(): argument 'num_samples' (position 2) must be int, not "
            f"{type(num_samples).__name__}"
        )
    num_samples = int(num_samples)
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = input.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if categories > 2**24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    if categories == 0:  # with replacement: no row has a positive sum
        raise RuntimeError(_ZERO_SUM_TEXT)
    value = input._value
    rows = value.reshape(1, categories) if input.dim() == 1 else value
    out_shape = (num_samples,) if input.dim() == 1 else (rows.shape[0], num_samples)
    if rows.shape[0] == 0:
        return Tensor._wrap(jnp.zeros(out_shape, jnp.int64))
    replacement = bool(replacement) and num_samples > 1
    g = host_generator(generator)
    if g is not None and not isinstance(rows, jax.core.Tracer):
        host = np.asarray(rows)
        _check_host(host, fast_path=not replacement)
        picked = _host_draw(g, host, num_samples, replacement)
        return Tensor._wrap(_device_array(picked.astype(np.int64).reshape(out_shape)))
    samples, codes = _draw(
        (generator or _random.default_generator).next_key(),
        rows,
        num_samples=num_samples,
        replacement=replacement,
    )
    if not isinstance(codes, jax.core.Tracer):
        _check_codes(np.asarray(codes), fast_path=not replacement or num_samples == 1)
    return Tensor._wrap(samples.reshape(out_shape))
