"""`Distribution`, the base of every distribution: batch and event shapes, argument and
sample validation with PyTorch's messages, `sample` as `rsample` without grad, and repr."""

from __future__ import annotations

import warnings

from .._pure.shapes import Size
from .._state.modes import no_grad
from .._state.tensor import Tensor
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """The abstract base class of probability distributions (`torch.distributions`).

    Args:
        batch_shape (torch.Size): the shape over which parameters are batched.
        event_shape (torch.Size): the shape of one sample (without batching).
        validate_args (bool, optional): check parameters at construction and values given
            to `log_prob` against their constraints. Defaults to
            `Distribution.set_default_validate_args` (on, as in PyTorch).
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn validation on or off for distributions built without `validate_args`."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(
        self,
        batch_shape: tuple = (),
        event_shape: tuple = (),
        validate_args: bool | None = None,
    ) -> None:
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _check_parameters(self) -> None:
        """PyTorch's ValueError for a parameter outside its constraint."""
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(
                f"{self.__class__} does not define `arg_constraints`. Please set "
                "`arg_constraints = {}` or initialize the distribution with "
                "`validate_args=False` to turn off validation.",
                stacklevel=3,
            )
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if param not in self.__dict__ and isinstance(
                getattr(type(self), param, None), lazy_property
            ):
                continue  # not given: computed from another parameter when read
            value = getattr(self, param)
            if not bool(constraint.check(value).all()):
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                    f"{constraint!r}, but found invalid values:\n{value}"
                )

    def expand(self, batch_shape, _instance=None):
        """A new distribution with parameters expanded to `batch_shape`."""
        raise NotImplementedError

    def _expanded(self, cls, batch_shape, _instance, names: tuple):
        """`expand` for parameters kept as attributes: each of `names` this instance holds,
        expanded to `batch_shape` plus its own event dims; a distribution with more state
        completes the new instance."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = Size(batch_shape)
        for name in names:
            if name in self.__dict__:
                value = self.__dict__[name]
                event = tuple(value.shape[len(self._batch_shape) :])
                setattr(new, name, value.expand((*batch_shape, *event)))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls, _instance=None):
        """A blank instance for `expand` (subclasses with their own __init__ must override
        `expand`)."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    @property
    def batch_shape(self) -> Size:
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict:
        """Parameter name -> the constraint its values must satisfy."""
        raise NotImplementedError

    @property
    def support(self):
        """The constraint that samples satisfy."""
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def sample(self, sample_shape=()) -> Tensor:
        """A sample of shape sample_shape + batch_shape + event_shape, without gradient."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()) -> Tensor:
        """A reparameterised sample: differentiable in the parameters."""
        raise NotImplementedError

    def log_prob(self, value: Tensor) -> Tensor:
        """The log of the density (or mass) at `value`."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy, one per batch element."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=()) -> Size:
        """sample_shape + batch_shape + event_shape."""
        return Size(tuple(sample_shape) + self._batch_shape + self._event_shape)

    def _validate_sample(self, value: Tensor) -> None:
        """PyTorch's ValueErrors for a value of the wrong shape or outside the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_start = value.dim() - len(self._event_shape)
        if value.size()[event_start:] != self._event_shape:
            raise ValueError(
                "The right-most size of value must match event_shape: "
                f"{value.size()} vs {self._event_shape}."
            )
        expected = self._batch_shape + self._event_shape
        for i, j in zip(reversed(value.size()), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    "Value is not broadcastable with batch_shape+event_shape: "
                    f"{value.size()} vs {Size(expected)}."
                )
        support = self.support
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}"
            )

    def __repr__(self) -> str:
        shown = [p for p in self.arg_constraints if p in self.__dict__]
        args = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in shown
        )
        return f"{self.__class__.__name__}({args})"
