"""torch.autograd: `backward`, `grad`, `Variable`, custom `Function`, `functional`,
`forward_ad`, `gradcheck`, anomaly detection, `graph` and the grad-mode switches.

Argument handling follows PyTorch's torch/autograd/__init__.py; the work is done by the
engine, which returns gradients (`grad`) or accumulates them into `.grad` (`backward`).
"""

from __future__ import annotations

import warnings

from .._pure import errors as _errors
from .._state import modes as grad_mode
from .._state.modes import *  # noqa: F403  (the grad-mode switches)
from .._state.tensor import Tensor
from .._tape.backward import Variable, backward, grad
from . import anomaly_mode, forward_ad, function, functional, graph, profiler, profiler_util
from .anomaly_mode import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
    set_detect_anomaly,
)
from .function import Function, InplaceFunction, once_differentiable
from .gradcheck import gradcheck, gradgradcheck

__all__ = [
    *grad_mode.__all__,
    "Function",
    "InplaceFunction",
    "Variable",
    "anomaly_mode",
    "backward",
    "detect_anomaly",
    "forward_ad",
    "function",
    "functional",
    "grad",
    "grad_mode",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "once_differentiable",
    "set_anomaly_enabled",
    "set_detect_anomaly",
]
