"""torch.profiler: profile ops and `record_function` ranges with a step schedule, summarize
them (`key_averages().table()`) and export Chrome traces (`tensorboard_trace_handler`).

Only CPU-side activity exists here: `supported_activities()` is `{ProfilerActivity.CPU}`, and
asking for CUDA warns and records the CPU side, as PyTorch does on a host without CUDA.
"""

from .._alias import missing_attribute as _missing_attribute
from ..autograd.profiler import kineto_available, record_function
from ..autograd.profiler_util import DeviceType
from . import profiler
from .profiler import (
    ExecutionTraceObserver,
    ProfilerAction,
    ProfilerActivity,
    profile,
    schedule,
    supported_activities,
    tensorboard_trace_handler,
)

__all__ = [
    "profile",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
    "ProfilerAction",
    "ProfilerActivity",
    "kineto_available",
    "DeviceType",
    "record_function",
    "ExecutionTraceObserver",
    "profiler",
]


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
