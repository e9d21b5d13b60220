"""torch.profiler.profiler: the step-scheduled `profile` over the autograd profiler's recording.

A schedule maps each step number to a `ProfilerAction`; the profile records while the action
is RECORD or RECORD_AND_SAVE, hands itself to ``on_trace_ready`` at the end of each
RECORD_AND_SAVE step (and on exit while recording), and labels each recorded step with a
``ProfilerStep#N`` range, as PyTorch's Kineto profiler does.
"""

from __future__ import annotations

import enum
import gzip
import os
import shutil
import socket
import time
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from ..autograd import profiler as _legacy
from ..autograd.profiler import record_function
from ..autograd.profiler_util import EventList

__all__ = [
    "ExecutionTraceObserver",
    "ProfilerAction",
    "ProfilerActivity",
    "profile",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]


class ProfilerActivity(enum.Enum):
    """What a profiler may record; only CPU exists here."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What the profiler does during a step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
_IDLE = (ProfilerAction.NONE, ProfilerAction.WARMUP)


def supported_activities() -> set[ProfilerActivity]:
    """The activities this host can record: the CPU side only."""
    return {ProfilerActivity.CPU}


def schedule(
    *,
    wait: int,
    warmup: int,
    active: int,
    repeat: int = 0,
    skip_first: int = 0,
    skip_first_wait: int = 0,
) -> Callable[[int], ProfilerAction]:
    """A step -> action function: skip ``skip_first`` steps, then cycles of ``wait`` idle,
    ``warmup`` and ``active`` recorded steps (the last one saves), ``repeat`` times (0: forever).
    """
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), "
            f"warmup={warmup} (need >= 0), active={active} (need > 0), repeat={repeat} "
            f"(need >= 0), skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        warnings.warn(
            "Profiler won't be using warmup, this can skew profiler results", stacklevel=2
        )

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        position = step % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if position < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _default_schedule_fn(_: int) -> ProfilerAction:
    """Without a schedule the profiler records every step."""
    return ProfilerAction.RECORD


def tensorboard_trace_handler(
    dir_name: str,
    worker_name: str | None = None,
    use_gzip: bool = False,
    use_python_export: bool = False,
) -> Callable[[profile], None]:
    """An ``on_trace_ready`` writing ``<dir>/<worker>.<time_ms>.pt.trace.json[.gz]`` per trace."""

    def handler_fn(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json")
        prof.export_chrome_trace(path)
        if use_gzip:
            with open(path, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.remove(path)

    return handler_fn


class profile:
    """Profile ops and ``record_function`` ranges, step by step (see `schedule`).

    Args:
        activities: a subset of ``supported_activities()``; CUDA warns and is ignored.
        schedule: step -> ProfilerAction (default: record every step).
        on_trace_ready: called with the profiler when a recording cycle ends.
        record_shapes, profile_memory, with_stack: as in ``torch.autograd.profiler.profile``.
        acc_events: keep the events of earlier cycles.

    Example:
        >>> with torch.profiler.profile() as prof:
        ...     y = torch.ones(4) + 1
        >>> prof.key_averages()[0].key
        'aten::add'
    """

    def __init__(
        self,
        *,
        activities: Iterable[ProfilerActivity] | None = None,
        schedule: Callable[[int], ProfilerAction] | None = None,
        on_trace_ready: Callable[..., Any] | None = None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config: Any = None,
        execution_trace_observer: Any = None,
        acc_events: bool = False,
        use_cuda: bool | None = None,
        custom_trace_id_callback: Callable[[], str] | None = None,
        post_processing_timeout_s: float | None = None,
    ) -> None:
        self.activities = set(activities) if activities else supported_activities()
        if use_cuda:
            self.activities.add(ProfilerActivity.CUDA)
        for activity in self.activities - supported_activities():
            warnings.warn(
                f"{activity.name} is not available, disabling {activity.name} profiling",
                stacklevel=2,
            )
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.acc_events = acc_events
        self.on_trace_ready = on_trace_ready
        self.record_steps = schedule is not None
        self.schedule = schedule if schedule is not None else _default_schedule_fn
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.profiler: _legacy.profile | None = None
        self.step_rec_fn: record_function | None = None
        self.metadata: dict[str, str] = {}
        self._kept = EventList()

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> None:
        self._transit(None, self.current_action)
        self._start_step()

    def stop(self) -> None:
        self._end_step()
        self._transit(self.current_action, None)

    def step(self) -> None:
        """Signal that the next step starts: end this step's range, act on the schedule."""
        self._end_step()
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if self.current_action is ProfilerAction.DEVICE_STOPPED:
            raise ValueError(
                "ProfilerAction.DEVICE_STOPPED is set internally by the profiler and must not "
                "be returned by a user-provided schedule"
            )
        self._transit(previous, self.current_action)
        self._start_step()

    def _start_step(self) -> None:
        if self.record_steps and self.current_action in _RECORDING:
            self.step_rec_fn = record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def _end_step(self) -> None:
        if self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None

    def _transit(self, previous: ProfilerAction | None, current: ProfilerAction | None) -> None:
        """Start or stop recording and hand out traces as PyTorch's action map does."""
        was, now = previous in _RECORDING, current in _RECORDING
        if previous is ProfilerAction.WARMUP and current is ProfilerAction.NONE:
            warnings.warn("Incorrect schedule: WARMUP followed by NONE", stacklevel=3)
        if previous is ProfilerAction.RECORD and current in _IDLE:
            warnings.warn(f"Incorrect schedule: RECORD followed by {current.name}", stacklevel=3)
        if was and (previous is ProfilerAction.RECORD_AND_SAVE or not now):
            self._stop_recording()
            if previous is ProfilerAction.RECORD_AND_SAVE or current is None:
                if self.on_trace_ready is not None:
                    self.on_trace_ready(self)
            was = False
        if now and not was:
            self._start_recording()

    def _start_recording(self) -> None:
        if self.profiler is not None and not self.acc_events:
            self._warn_cycles()
        if self.profiler is not None and self.acc_events:
            self._kept.extend(self.profiler.function_events or [])
        self.profiler = _legacy.profile(
            record_shapes=self.record_shapes,
            profile_memory=self.profile_memory,
            with_stack=self.with_stack,
            with_flops=self.with_flops,
        )
        self.profiler.__enter__()

    _warned_cycles = False

    def _warn_cycles(self) -> None:
        if not profile._warned_cycles:
            profile._warned_cycles = True
            warnings.warn(
                "Warning: Profiler clears events at the end of each cycle. Only events from the "
                "current cycle will be reported. To keep events across cycles, set "
                "acc_events=True.",
                stacklevel=4,
            )

    def _stop_recording(self) -> None:
        if self.profiler is not None and self.profiler.entered:
            self.profiler.__exit__(None, None, None)

    def _profiler(self) -> _legacy.profile:
        if self.profiler is None or self.profiler.function_events is None:
            raise AssertionError("Profiler must be initialized before getting key averages")
        return self.profiler

    def events(self) -> EventList:
        """The recorded (not averaged) events of the last cycle (all cycles with acc_events)."""
        events: list = self._profiler().function_events or []
        return EventList([*self._kept, *events], profile_memory=self.profile_memory)

    def key_averages(
        self,
        group_by_input_shape: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        """Events averaged per name (and input shapes / stack prefix when asked)."""
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str) -> None:
        """Write the recorded events as Chrome trace JSON (gzipped when ``path`` ends in .gz)."""
        if not path.endswith(".gz"):
            self._profiler().export_chrome_trace(path)
            return
        plain = path[: -len(".gz")]
        self._profiler().export_chrome_trace(plain)
        with open(plain, "rb") as src, gzip.open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.remove(plain)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        self._profiler().export_stacks(path, metric)

    def add_metadata(self, key: str, value: str) -> None:
        """Keep a key/value pair with the trace."""
        self.metadata[key] = value

    def add_metadata_json(self, key: str, value: str) -> None:
        self.metadata[key] = value


class ExecutionTraceObserver:
    """PyTorch's execution-trace (Chakra) recorder: not available here (using it raises)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError(
            "torch.profiler.ExecutionTraceObserver: execution traces come from PyTorch's C++ "
            "dispatcher, which autograd_compat does not have; use torch.profiler.profile."
        )
