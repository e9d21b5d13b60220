"""torch.multinomial: draw category indices from rows of (unnormalized) probabilities.

One jitted function per (shape, dtype, num_samples, replacement) draws the samples and, in the
same call, the per-row validity codes PyTorch's checks need, so a text generator calling
`torch.multinomial(probs, 1)` in a loop compiles once and pays one small host read per call.
Keys come from `_state/random.py` (reproducible under `manual_seed`); the values differ from
PyTorch's generator, the distribution is the same:
- with replacement: `jax.random.categorical` on log-probabilities (Gumbel-max per draw);
- without replacement (and for one sample): PyTorch's own algorithm, the top `num_samples`
  of `p / q` with `q ~ Exponential(1)` (equivalent to sequential draws without replacement).
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .._pure import executables
from .._state import random as _random
from .._state.tensor import Tensor
from .._tape.args import scalar_type_name
from .out_arg import takes_out

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


def _row_codes(p):
    """For each row of the 2-D `p`: its first problem, as the with-replacement kernel finds it
    (an entry that is not >= 0, then one that is not finite, then a sum <= 0)."""
    element = jnp.where(~(p >= 0), _NEGATIVE, jnp.where(~jnp.isfinite(p), _INFINITE, _OK))
    bad = element != _OK
    first = jnp.take_along_axis(element, jnp.argmax(bad, axis=-1)[:, None], axis=-1)[:, 0]
    zero = jnp.sum(jnp.where(bad, 0, p), axis=-1) <= 0
    return jnp.where(jnp.any(bad, axis=-1), first, jnp.where(zero, _ZERO_SUM, _OK))


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
        An int64 tensor of shape `(num_samples,)` or `(rows, num_samples)`. The values come
        from this library's generator, not PyTorch's: same distribution, different draws.

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
    samples, codes = _draw(
        (generator or _random.default_generator).next_key(),
        rows,
        num_samples=num_samples,
        replacement=bool(replacement) and num_samples > 1,
    )
    if not isinstance(codes, jax.core.Tracer):
        _check_codes(np.asarray(codes), fast_path=not replacement or num_samples == 1)
    return Tensor._wrap(samples.reshape(out_shape))
