"""torch.autograd.profiler: `record_function` ranges and the (legacy) `profile` context.

While a profile is open, every op this library runs is reported by `apply` (an observer in
`modes.observers`: the op runs to its result, so its time is real) and every
`record_function` block is timed with `time.perf_counter_ns`; closing the profile turns them
into `FunctionEvent`s nested by time. Nothing is recorded (and `apply` keeps its fast path)
while no profile is open. Each `record_function` block is also a `jax.profiler`
TraceAnnotation, so it shows in JAX's own traces.
"""

from __future__ import annotations

import contextlib
import threading
import time
import traceback
import warnings
from typing import Any, NamedTuple

import jax

from .._alias import missing_attribute as _missing_attribute
from .._tape.record import OpEvent, add_observer, remove_observer
from .profiler_util import (
    DeviceType,
    EventList,
    FunctionEvent,
    FunctionEventAvg,
    write_chrome_trace,
)

__all__ = [
    "DeviceType",
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "emit_itt",
    "emit_nvtx",
    "kineto_available",
    "load_nvprof",
    "profile",
    "record_function",
]


def kineto_available() -> bool:
    """False: the Kineto tracer is not part of this library (profiles are recorded in Python)."""
    return False


class _Range(NamedTuple):
    """A finished range before it becomes a FunctionEvent (times from perf_counter_ns)."""

    name: str
    thread: int
    start_ns: int
    end_ns: int
    input_shapes: list
    stack: list
    memory: int
    user: bool


class _Session:
    """What one open profile collects: ranges from `record_function` and ops from `apply`."""

    def __init__(self, record_shapes: bool, profile_memory: bool, with_stack: bool) -> None:
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.ranges: list[_Range] = []
        self.lock = threading.Lock()
        self.start_ns = time.perf_counter_ns()
        self.base_ns = time.time_ns()

    def add(self, name: str, start: int, end: int, inputs: tuple, memory: int, user: bool):
        shapes = [_shape(x) for x in inputs] if self.record_shapes else []
        stack = _user_stack() if self.with_stack else []
        used = memory if self.profile_memory else 0
        entry = _Range(name, threading.get_ident(), start, end, shapes, stack, used, user)
        with self.lock:
            self.ranges.append(entry)

    def events(self) -> EventList:
        """The ranges as FunctionEvents, each nested under the ranges that contain it."""
        ordered = sorted(self.ranges, key=lambda r: (r.thread, r.start_ns, -r.end_ns))
        events = EventList(profile_memory=self.profile_memory)
        open_by_thread: dict[int, list[FunctionEvent]] = {}
        for index, r in enumerate(ordered, start=1):
            event = FunctionEvent(
                index,
                r.name,
                r.thread,
                (r.start_ns - self.start_ns) / 1e3,
                (r.end_ns - self.start_ns) / 1e3,
                r.input_shapes,
                r.stack,
                r.memory,
                r.user,
            )
            stack = open_by_thread.setdefault(r.thread, [])
            while stack and stack[-1].end_us < event.end_us:
                stack.pop()
            if stack:
                event.cpu_parent = stack[-1]
                stack[-1].cpu_children.append(event)
                if r.memory:
                    for outer in stack:
                        outer.cpu_memory_usage += r.memory
            stack.append(event)
            events.append(event)
        return events


def _shape(x: Any) -> list:
    shape = getattr(x, "shape", None)
    return list(shape) if shape is not None else []


_PACKAGE_DIR = __file__.rsplit("/", 2)[0]


def _user_stack() -> list[str]:
    frames = [f for f in traceback.extract_stack() if not f.filename.startswith(_PACKAGE_DIR)]
    return [f"{f.filename}({f.lineno}): {f.name}" for f in reversed(frames)]


_sessions: list[_Session] = []
_sessions_lock = threading.Lock()


# Ops of this library that PyTorch runs as an op calling another: the events it shows.
_NESTED = {
    "linear.addmm": ("aten::linear", "aten::addmm"),
    "linear.view": ("aten::linear", "aten::addmm"),
    "linear.mm": ("aten::linear", "aten::mm"),
    "linear.unsafe_view": ("aten::linear", "aten::mm"),
    "matmul.vector_matrix": ("aten::matmul", "aten::mm"),
    "matmul.batched": ("aten::matmul", "aten::bmm"),
}


def _op_names(event: OpEvent) -> tuple[str, ...]:
    """PyTorch's names for an op of this library: its id without the overload (`aten::mm`),
    or the nested ops PyTorch shows for it (`aten::linear` over `aten::addmm`)."""
    op = event.op
    if not op.id:
        return (op.name,)
    return _NESTED.get(op.id) or ("aten::" + op.id.partition(".")[0],)


def _observe(event: OpEvent) -> None:
    """The observer `apply` calls while a profile is open: one range per op (a backward
    step's derived vjp op is the node's own range, recorded by `_time_backward`)."""
    if event.op.id is None and event.op.name.endswith("Backward"):
        return
    outputs = event.result if type(event.result) is tuple else (event.result,)
    memory = sum(out.nelement() * out.element_size() for out in outputs if not out.is_meta)
    names = _op_names(event)
    for name in names:
        own = memory if name == names[-1] else 0  # the outer events sum their children's
        for session in _sessions:
            session.add(name, event.start_ns, event.end_ns, event.inputs, own, False)
    node = getattr(outputs[0], "grad_fn", None)
    if node is not None:
        _time_backward(node)


def _time_backward(node: Any) -> None:
    """Record the node's backward, when it runs while a profile is open, as PyTorch's
    `autograd::engine::evaluate_function: <Node>` over `<Node>` (timed to its gradients)."""
    starts: list[int] = []

    def before(grad_outputs: Any) -> None:
        starts.append(time.perf_counter_ns())

    def after(grad_inputs: Any, grad_outputs: Any) -> None:
        for grad in grad_inputs:
            block = getattr(getattr(grad, "_value", None), "block_until_ready", None)
            if block is not None:
                block()
        start, end, name = starts.pop(), time.perf_counter_ns(), node.name()
        for session in _sessions:
            session.add(f"autograd::engine::evaluate_function: {name}", start, end, (), 0, False)
            session.add(name, start, end, (), 0, False)

    node.register_prehook(before)
    node.register_hook(after)


def _open(session: _Session) -> None:
    with _sessions_lock:
        if not _sessions:
            add_observer(_observe)
        _sessions.append(session)


def _close(session: _Session) -> None:
    with _sessions_lock:
        _sessions.remove(session)
        if not _sessions:
            remove_observer(_observe)


class record_function(contextlib.ContextDecorator):
    """Label a block (or, as a decorator, every call of a function) in the profiler's events.

    Example:
        >>> with torch.profiler.profile() as prof:
        ...     with torch.profiler.record_function("my_block"):
        ...         y = torch.ones(3) * 2
        >>> [e.key for e in prof.key_averages()][:2]
        ['my_block', 'aten::mul']
    """

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._starts: list[tuple[int, Any]] = []

    def __enter__(self) -> record_function:
        annotation = jax.profiler.TraceAnnotation(self.name)
        annotation.__enter__()
        self._starts.append((time.perf_counter_ns(), annotation))
        return self

    def __exit__(self, *exc_info: object) -> None:
        start, annotation = self._starts.pop()
        end = time.perf_counter_ns()
        annotation.__exit__(None, None, None)
        for session in _sessions:
            session.add(self.name, start, end, (), 0, True)


class profile:
    """Profile the ops and `record_function` ranges run inside the context (CPU times).

    Args:
        enabled: record anything at all.
        use_cuda / use_device: CUDA has nothing to record here: warns, as PyTorch without CUDA.
        record_shapes: keep each op's input shapes (`key_averages(group_by_input_shape=True)`).
        profile_memory: count the bytes each op's outputs take (``cpu_memory_usage``).
        with_stack: keep the Python stack of each range.
    """

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        use_device: str | None = None,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
        use_kineto: bool = False,
        use_cpu: bool = True,
        experimental_config: Any = None,
        acc_events: bool = False,
        custom_trace_id_callback: Any = None,
        post_processing_timeout_s: float | None = None,
        activity_filters: dict | None = None,
    ) -> None:
        if use_cuda:
            warnings.warn(
                "The attribute `use_cuda` will be deprecated soon, please use "
                "``use_device = 'cuda'`` instead.",
                FutureWarning,
                stacklevel=2,
            )
            use_device = "cuda"
        if use_device is not None and use_device != "cpu":
            warnings.warn(
                f"{use_device.upper()} is not available, disabling {use_device.upper()} profiling",
                stacklevel=2,
            )
        self.enabled = enabled
        self.use_device = None
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.function_events: EventList | None = None
        self._session: _Session | None = None
        self.entered = False

    def __enter__(self) -> profile:
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._session = _Session(self.record_shapes, self.profile_memory, self.with_stack)
        _open(self._session)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if not self.enabled or self._session is None:
            return
        _close(self._session)
        self.function_events = self._session.events()
        self.entered = False

    def _events(self) -> EventList:
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def events(self) -> EventList:
        return self._events()

    def key_averages(
        self,
        group_by_input_shape: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        """Events averaged per name (and input shapes / stack prefix when asked)."""
        return self._events().key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, *args: Any, **kwargs: Any) -> str:
        return self._events().table(*args, **kwargs)

    def total_average(self) -> FunctionEventAvg:
        return self._events().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self._events().self_cpu_time_total

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as Chrome trace JSON."""
        base = self._session.base_ns if self._session is not None else 0
        write_chrome_trace(path, self._events(), base)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Write "frame;frame;... value" lines (flame graph input) for events with a stack."""
        with open(path, "w") as handle:
            for event in self._events():
                if event.stack:
                    frames = ";".join(reversed(event.stack))
                    handle.write(f"{frames};{event.name} {int(getattr(event, metric))}\n")

    def __str__(self) -> str:
        return str(self._events())


def _no_device_tool(name: str, tool: str) -> RuntimeError:
    return RuntimeError(
        f"torch.autograd.profiler.{name}: {tool} ranges need a CUDA/Intel device build of "
        "PyTorch; autograd_compat runs on JAX and has none. Use torch.profiler.profile or "
        "jax.profiler.trace instead."
    )


class emit_nvtx:
    """NVTX ranges for nvprof/Nsight: not available here (entering raises, naming it)."""

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled

    def __enter__(self) -> emit_nvtx:
        if self.enabled:
            raise _no_device_tool("emit_nvtx", "NVTX")
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None


class emit_itt(emit_nvtx):
    """Intel ITT ranges for VTune: not available here (entering raises, naming it)."""

    def __enter__(self) -> emit_itt:
        if self.enabled:
            raise _no_device_tool("emit_itt", "ITT")
        return self


def load_nvprof(path: str):
    """Reading nvprof traces is not available here: raises, naming it."""
    raise _no_device_tool("load_nvprof", "nvprof")


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
