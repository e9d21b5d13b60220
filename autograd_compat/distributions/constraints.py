"""Constraints on parameters and values (`torch.distributions.constraints`): each has a
`check(value)` giving a bool tensor (one element per event) and PyTorch's repr, which the
validation messages quote ("Real()", "GreaterThan(lower_bound=0.0)")."""

from __future__ import annotations

from .._ops.decomposition import linalg_cholesky_ex, linalg_eigvalsh
from .._ops.factories import full
from .._ops.shape import cat as _cat_tensors
from .._ops.shape import stack as _stack_tensors
from .._pure import dtypes as _dtypes
from .._state.tensor import Tensor

__all__ = [
    "Constraint",
    "MixtureSameFamilyConstraint",
    "boolean",
    "cat",
    "corr_cholesky",
    "dependent",
    "dependent_property",
    "greater_than",
    "greater_than_eq",
    "half_open_interval",
    "independent",
    "integer_interval",
    "interval",
    "is_dependent",
    "less_than",
    "lower_cholesky",
    "multinomial",
    "nonnegative",
    "nonnegative_integer",
    "one_hot",
    "positive",
    "positive_definite",
    "positive_semidefinite",
    "positive_integer",
    "real",
    "real_vector",
    "simplex",
    "square",
    "stack",
    "symmetric",
    "unit_interval",
]


def _bounds_repr(constraint, *names: str) -> str:
    """PyTorch's repr of a constraint with bounds: "Interval(lower_bound=0.0, upper_bound=1.0)"."""
    shown = ", ".join(f"{name}={getattr(constraint, name)}" for name in names)
    return f"{type(constraint).__name__[1:]}({shown})"


class Constraint:
    """A region of valid values; `event_dim` dims on the right make up one event."""

    is_discrete = False
    event_dim = 0

    def check(self, value: Tensor) -> Tensor:
        """A bool tensor: whether each event of `value` satisfies the constraint."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}()"


class _Dependent(Constraint):
    """A constraint that depends on other parameters: it cannot be checked."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented) -> None:
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented) -> _Dependent:
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value: Tensor) -> Tensor:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint) -> bool:
    """Whether `constraint` depends on other parameters (validation skips it)."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property of a distribution that is also a dependent constraint: `support` of
    Uniform, say, read on the instance as the constraint its parameters give."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn) -> _DependentProperty:  # type: ignore[override]
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """`base_constraint` over events of `reinterpreted_batch_ndims` more dims."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value: Tensor) -> Tensor:
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        kept = result.dim() - self.reinterpreted_batch_ndims
        return result.reshape(tuple(result.shape[:kept]) + (-1,)).all(-1)

    def __repr__(self) -> str:
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value == 0) | (value == 1)


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (value >= self.lower_bound) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return _bounds_repr(self, "lower_bound", "upper_bound")


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self) -> str:
        return _bounds_repr(self, "lower_bound")


class _OneHot(Constraint):
    """Vectors of zeros with a single one."""

    is_discrete = True
    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        is_boolean = (value == 0) | (value == 1)
        return is_boolean.all(-1) & value.sum(-1).eq(1)


class _Multinomial(Constraint):
    """Non-negative count vectors summing to at most `upper_bound` (PyTorch's weaker check)."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)


class _Real(Constraint):
    def check(self, value: Tensor) -> Tensor:
        return value == value  # False for NaN


class _LowerBound(Constraint):
    """What GreaterThan and GreaterThanEq share: the `lower_bound` and PyTorch's repr."""

    def __init__(self, lower_bound) -> None:
        self.lower_bound = lower_bound

    def __repr__(self) -> str:
        return _bounds_repr(self, "lower_bound")


class _GreaterThan(_LowerBound):
    def check(self, value: Tensor) -> Tensor:
        return value > self.lower_bound


class _GreaterThanEq(_LowerBound):
    def check(self, value: Tensor) -> Tensor:
        return value >= self.lower_bound


class _LessThan(Constraint):
    def __init__(self, upper_bound) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return value < self.upper_bound

    def __repr__(self) -> str:
        return _bounds_repr(self, "upper_bound")


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value >= self.lower_bound) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return _bounds_repr(self, "lower_bound", "upper_bound")


class _HalfOpenInterval(_Interval):
    def check(self, value: Tensor) -> Tensor:
        return (value >= self.lower_bound) & (value < self.upper_bound)


class _Simplex(Constraint):
    """Non-negative vectors that sum to 1 (within 1e-6)."""

    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        lower = (value.tril() == value).reshape(tuple(value.shape[:-2]) + (-1,)).all(-1)
        return lower & (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)


class _CorrCholesky(Constraint):
    """Cholesky factors of correlation matrices: lower-triangular with a positive diagonal
    and rows of unit norm (within 10 * size * eps)."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        tol = _dtypes.finfo(value.dtype).eps * value.size(-1) * 10
        row_norm = value.detach().norm(dim=-1)
        unit_row_norm = (row_norm - 1.0).abs().le(tol).all(dim=-1)
        return _LowerCholesky().check(value) & unit_row_norm


class MixtureSameFamilyConstraint(Constraint):
    """The support of a mixture: `base_constraint` (the components') checked on the value
    with the components' dim put back."""

    def __init__(self, base_constraint: Constraint) -> None:
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(
                f"base_constraint must be a Constraint, got {type(base_constraint).__name__}"
            )
        self.base_constraint = base_constraint

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim

    def check(self, value: Tensor) -> Tensor:
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        kept = value.dim() - self.event_dim
        return result.reshape(tuple(result.shape[:kept]) + (-1,)).all(-1)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_constraint!r})"


class _Square(Constraint):
    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        square = value.shape[-2] == value.shape[-1]
        return full(tuple(value.shape[:-2]), square, dtype=_dtypes.bool)


class _Symmetric(_Square):
    def check(self, value: Tensor) -> Tensor:
        square = super().check(value)
        if not bool(square.all()):
            return square
        return value.isclose(value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices with no negative eigenvalue."""

    def check(self, value: Tensor) -> Tensor:
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return linalg_eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices with a Cholesky factorization."""

    def check(self, value: Tensor) -> Tensor:
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return linalg_cholesky_ex(value.detach()).L.isfinite().all(-1).all(-1)


class _Cat(Constraint):
    """The constraints `cseq` on consecutive slices of `lengths` (default 1 each) along
    `dim`, as `torch.cat` joins them."""

    def __init__(self, cseq, dim: int = 0, lengths=None) -> None:
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(
                f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})"
            )
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return max(c.event_dim for c in self.cseq)

    def check(self, value: Tensor) -> Tensor:
        _check_dim(self.dim, value, "value")
        checks = []
        start = 0
        for constraint, length in zip(self.cseq, self.lengths):
            checks.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return _cat_tensors(checks, self.dim)


class _Stack(Constraint):
    """The constraints `cseq` on the slices along `dim`, as `torch.stack` joins them."""

    def __init__(self, cseq, dim: int = 0) -> None:
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        dim = max(c.event_dim for c in self.cseq)
        return dim + 1 if self.dim + dim < 0 else dim

    def check(self, value: Tensor) -> Tensor:
        _check_dim(self.dim, value, "value")
        slices = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return _stack_tensors([c.check(v) for v, c in zip(slices, self.cseq)], self.dim)


def _check_dim(dim: int, value: Tensor, name: str) -> None:
    """PyTorch's AssertionError for a `dim` outside `value`'s dims (cat and stack)."""
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for {name} with {value.dim()} dimensions")


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
integer_interval = _IntegerInterval
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
one_hot = _OneHot()
multinomial = _Multinomial
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
