"""Activation modules: thin wrappers over nn.functional with PyTorch's reprs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import _arrays
from .. import functional as F
from .. import init as _init
from ..parameter import Parameter
from .module import Module, store_constants

__all__ = [
    "CELU",
    "ELU",
    "GELU",
    "GLU",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "LeakyReLU",
    "LogSigmoid",
    "LogSoftmax",
    "Mish",
    "MultiheadAttention",
    "Hardshrink",
    "PReLU",
    "RReLU",
    "ReLU",
    "ReLU6",
    "SELU",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Softmax2d",
    "Softmin",
    "Softplus",
    "Softsign",
    "Tanh",
    "Softshrink",
    "Tanhshrink",
    "Threshold",
]


class _Functional(Module):
    """A module that applies one functional to its input, passing it the constructor
    arguments that `__constants__` names as keywords, and showing them in its repr."""

    __constants__: list[str] = []
    _function: Callable[..., Any]

    def __init__(self, arguments: dict[str, Any] | None = None) -> None:
        """Keep the `__constants__` among `arguments` (the subclass constructor's `locals()`)."""
        super().__init__()
        store_constants(self, arguments or {})

    def forward(self, input):
        options = {name: getattr(self, name) for name in self.__constants__}
        return type(self)._function(input, **options)

    def extra_repr(self) -> str:
        """PyTorch's repr: `name=value` for each constant but `inplace` (strings quoted), in
        `__constants__` order, then `inplace=True` if it is set."""
        parts = []
        for name in self.__constants__:
            value = getattr(self, name)
            if name != "inplace":
                parts.append(f"{name}={value!r}" if isinstance(value, str) else f"{name}={value}")
        if getattr(self, "inplace", False):
            parts.append("inplace=True")
        return ", ".join(parts)


class _Inplace(_Functional):
    __constants__ = ["inplace"]

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(locals())


class ReLU(_Inplace):
    """max(0, x) elementwise."""

    _function = staticmethod(F.relu)


class ReLU6(_Inplace):
    """min(max(0, x), 6) elementwise."""

    _function = staticmethod(F.relu6)


class SiLU(_Inplace):
    """x * sigmoid(x) elementwise."""

    _function = staticmethod(F.silu)


class Mish(_Inplace):
    """x * tanh(softplus(x)) elementwise."""

    _function = staticmethod(F.mish)


class SELU(_Inplace):
    """Scaled ELU with the self-normalizing constants."""

    _function = staticmethod(F.selu)


class Hardsigmoid(_Inplace):
    _function = staticmethod(F.hardsigmoid)


class Hardswish(_Inplace):
    _function = staticmethod(F.hardswish)


class LeakyReLU(_Functional):
    """x for x > 0, else negative_slope * x."""

    __constants__ = ["inplace", "negative_slope"]
    _function = staticmethod(F.leaky_relu)

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__(locals())


class RReLU(_Functional):
    """x for x > 0, else x times a random slope from U(lower, upper) in training, their mean
    in evaluation."""

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False):
        super().__init__(locals())

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)


class ELU(_Functional):
    """x for x > 0, else alpha * (exp(x) - 1)."""

    __constants__ = ["alpha", "inplace"]
    _function = staticmethod(F.elu)

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__(locals())


class CELU(ELU):
    _function = staticmethod(F.celu)


class GELU(_Functional):
    """x * Phi(x); `approximate='tanh'` for the tanh approximation."""

    __constants__ = ["approximate"]
    _function = staticmethod(F.gelu)

    def __init__(self, approximate: str = "none") -> None:
        super().__init__(locals())


class Softplus(_Functional):
    """log(1 + exp(beta x)) / beta; linear above `threshold`."""

    __constants__ = ["beta", "threshold"]
    _function = staticmethod(F.softplus)

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__(locals())


class Hardtanh(_Functional):
    """x clipped to [min_val, max_val]."""

    __constants__ = ["min_val", "max_val", "inplace"]
    _function = staticmethod(F.hardtanh)

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
        super().__init__(locals())


class Threshold(_Functional):
    __constants__ = ["threshold", "value", "inplace"]
    _function = staticmethod(F.threshold)

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__(locals())


class PReLU(Module):
    """x for x > 0, else a * x with a learned `a` (one, or one per channel); a starts at 0.25."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(_arrays.filled(num_parameters, init, dtype, device))

    def reset_parameters(self) -> None:
        _init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Tanh(_Functional):
    _function = staticmethod(F.tanh)


class Sigmoid(_Functional):
    _function = staticmethod(F.sigmoid)


class LogSigmoid(_Functional):
    _function = staticmethod(F.logsigmoid)


class Softsign(_Functional):
    _function = staticmethod(F.softsign)


class Tanhshrink(_Functional):
    _function = staticmethod(F.tanhshrink)


class Hardshrink(_Functional):
    """x where |x| > lambd, else 0."""

    __constants__ = ["lambd"]
    _function = staticmethod(F.hardshrink)

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__(locals())

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """x shrunk towards 0 by lambd (0 inside [-lambd, lambd])."""

    _function = staticmethod(F.softshrink)


class GLU(_Functional):
    __constants__ = ["dim"]
    _function = staticmethod(F.glu)

    def __init__(self, dim: int = -1) -> None:
        super().__init__(locals())


class _SoftmaxBase(_Functional):
    __constants__ = ["dim"]

    def __init__(self, dim=None) -> None:
        super().__init__(locals())

    def forward(self, input):
        return type(self)._function(input, self.dim, _stacklevel=5)


class Softmax(_SoftmaxBase):
    """softmax along `dim`."""

    _function = staticmethod(F.softmax)


class Softmax2d(Module):
    """softmax over the channels (dim -3) of a 3-D or 4-D input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(
                f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead"
            )
        return F.softmax(input, -3, _stacklevel=5)


class LogSoftmax(_SoftmaxBase):
    """log_softmax along `dim`."""

    _function = staticmethod(F.log_softmax)


class Softmin(_SoftmaxBase):
    _function = staticmethod(F.softmin)


from .attention import MultiheadAttention  # noqa: E402  (PyTorch keeps it in activation.py)
