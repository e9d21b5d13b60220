"""The geometric distribution: the number of failures before the first success of
Bernoulli trials with success probability `probs` (or sigmoid(`logits`))."""

from __future__ import annotations

from .._ops.factories import empty, zeros_like
from .._ops.nn.loss import binary_cross_entropy_with_logits
from .._pure import dtypes as _dtypes
from .._state.modes import no_grad
from . import constraints
from .bernoulli import BinaryParameters, set_probs_or_logits
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Geometric"]


class Geometric(BinaryParameters, Distribution):
    """Counts k = 0, 1, ... with probability (1 - p)^k p; give exactly one of `probs` (in
    (0, 1]) or `logits`."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args: bool | None = None) -> None:
        batch_shape = set_probs_or_logits(self, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not valid.all():
                raise ValueError(
                    f"Expected parameter probs ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to be positive but found "
                    f"invalid values:\n{value.data[~valid]}"
                )

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(Geometric, batch_shape, _instance, ("probs", "logits"))
        new._param = new.__dict__["probs" if "probs" in self.__dict__ else "logits"]
        return new

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        probs = self.probs
        tiny = _dtypes.finfo(probs.dtype).tiny
        with no_grad():
            u = empty(shape, dtype=probs.dtype).uniform_(tiny, 1)
            return (u.log() / (-probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.masked_fill((probs == 1) & (value == 0), 0)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        bce = binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
        return bce / self.probs
