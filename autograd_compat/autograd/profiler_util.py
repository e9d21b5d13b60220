"""torch.autograd.profiler_util: the events a profiler records, their averages, the summary
table and the Chrome trace, with PyTorch's names, columns and units (microseconds)."""

from __future__ import annotations

import enum
import json
import os
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["DeviceType", "EventList", "FunctionEvent", "FunctionEventAvg"]


class DeviceType(enum.Enum):
    """Where an event ran (this library's events are all CPU-side)."""

    CPU = 0
    CUDA = 1


class FunctionEvent:
    """One recorded range: a `record_function` block or an op, with its time span in us."""

    def __init__(
        self,
        id: int,
        name: str,
        thread: int,
        start_us: float,
        end_us: float,
        input_shapes: list | None = None,
        stack: list | None = None,
        cpu_memory_usage: int = 0,
        is_user_annotation: bool = False,
    ) -> None:
        self.id = id
        self.name = name
        self.thread = thread
        self.start_us = start_us
        self.end_us = end_us
        self.input_shapes = input_shapes or []
        self.stack = stack or []
        self.cpu_memory_usage = cpu_memory_usage
        self.is_user_annotation = is_user_annotation
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.count = 1
        self.device_type = DeviceType.CPU
        self.node_id = -1
        self.is_async = False
        self.is_remote = False
        self.is_legacy = False
        self.overload_name = ""
        self.flops = 0
        self.device_time_total = 0.0
        self.self_device_time_total = 0.0
        self.device_memory_usage = 0
        self.self_device_memory_usage = 0

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.end_us - self.start_us

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent id={self.id} name={self.name} device_type={self.device_type} "
            f"cpu_time={_format_time(self.cpu_time)} start_us={self.start_us:.3f} "
            f"end_us={self.end_us:.3f} cpu_children={[c.id for c in self.cpu_children]} "
            f"thread={self.thread} input_shapes={self.input_shapes} "
            f"cpu_memory_usage={self.cpu_memory_usage}>"
        )


class FunctionEventAvg:
    """The events of one key summed: counts, total and self times, memory."""

    def __init__(self) -> None:
        self.key: str | None = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.input_shapes: list | None = None
        self.stack: list | None = None
        self.is_user_annotation = False
        self.device_type = DeviceType.CPU
        self.node_id = 0
        self.flops = 0
        self.device_time_total = 0.0
        self.self_device_time_total = 0.0

    def add(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        if self.key is None:
            self.key = other.key
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.is_user_annotation = other.is_user_annotation
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        return self

    def __iadd__(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        return self.add(other)

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    def __repr__(self) -> str:
        self_time = _format_time(self.self_cpu_time_total)
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self_time}"
            f" cpu_time={_format_time(self.cpu_time)}  input_shapes={self.input_shapes} "
            f"cpu_memory_usage={self.cpu_memory_usage}>"
        )


def _format_time(time_us: float) -> str:
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_memory(nbytes: float) -> str:
    for unit, size in (("Gb", 1024**3), ("Mb", 1024**2), ("Kb", 1024)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} b"


def _group_key(name: str) -> str:
    """PyTorch shows every `ProfilerStep#N` range as one key, `ProfilerStep*`."""
    return "ProfilerStep*" if name.startswith("ProfilerStep#") else name


class EventList(list):
    """A list of events with PyTorch's summaries: `key_averages`, `table`, Chrome export."""

    def __init__(self, *args: Any, profile_memory: bool = False, grouped_shapes: bool = False):
        super().__init__(*args)
        self._profile_memory = profile_memory
        self._grouped_shapes = grouped_shapes

    @property
    def self_cpu_time_total(self) -> float:
        return sum(event.self_cpu_time_total for event in self)

    def key_averages(
        self,
        group_by_input_shapes: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        """One `FunctionEventAvg` per key (and input shapes, stack prefix when asked)."""
        averages: dict[tuple, FunctionEventAvg] = {}
        for event in self:
            key: tuple = (_group_key(event.key),)
            if group_by_input_shapes:
                key += (str(event.input_shapes),)
            if group_by_stack_n:
                key += tuple(event.stack[:group_by_stack_n])
            avg = averages.setdefault(key, FunctionEventAvg())
            avg.add(event)
            avg.key = key[0]
        return EventList(
            averages.values(),
            profile_memory=self._profile_memory,
            grouped_shapes=group_by_input_shapes,
        )

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for event in self:
            total.add(event)
        total.key = "Total"
        return total

    def table(
        self,
        sort_by: str | None = None,
        row_limit: int = 100,
        max_src_column_width: int = 75,
        max_name_column_width: int = 55,
        max_shapes_column_width: int = 80,
        header: str | None = None,
        top_level_events_only: bool = False,
        time_unit: str | None = None,
    ) -> str:
        """The summary table PyTorch prints: self and total CPU time, calls, per key."""
        return _build_table(
            self, sort_by, row_limit, max_name_column_width, max_shapes_column_width, header,
            top_level_events_only,
        )  # fmt: skip

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as Chrome trace JSON (chrome://tracing, Perfetto)."""
        write_chrome_trace(path, self, base_ns=0)


def _columns(grouped_shapes: bool, memory: bool, total: float) -> list[tuple]:
    """(header, value of an event) per column after the name."""
    columns: list[tuple[str, Callable[[Any], str]]] = [
        ("Self CPU %", lambda e: f"{_percent(e.self_cpu_time_total, total)}"),
        ("Self CPU", lambda e: _format_time(e.self_cpu_time_total)),
        ("CPU total %", lambda e: f"{_percent(e.cpu_time_total, total)}"),
        ("CPU total", lambda e: _format_time(e.cpu_time_total)),
        ("CPU time avg", lambda e: _format_time(e.cpu_time)),
    ]
    if memory:
        columns += [
            ("CPU Mem", lambda e: _format_memory(e.cpu_memory_usage)),
            ("Self CPU Mem", lambda e: _format_memory(e.self_cpu_memory_usage)),
        ]
    columns.append(("# of Calls", lambda e: str(e.count)))
    if grouped_shapes:
        columns.append(("Input Shapes", lambda e: str(e.input_shapes)))
    return columns


def _percent(value: float, total: float) -> str:
    return f"{100.0 * value / total:.2f}%" if total else "0.00%"


def _build_table(events, sort_by, row_limit, max_name, max_shapes, header, top_level) -> str:
    rows = list(events)
    if top_level:
        rows = [e for e in rows if getattr(e, "cpu_parent", None) is None]
    if sort_by is not None:
        attribute = sort_by.replace("cuda", "device").replace("gpu", "device")
        rows.sort(key=lambda e: getattr(e, attribute), reverse=True)
    if row_limit > 0:
        rows = rows[:row_limit]
    total = events.self_cpu_time_total
    memory = events._profile_memory and any(e.cpu_memory_usage for e in events)
    columns = _columns(events._grouped_shapes, memory, total)
    name_width = min(max((len(e.key) for e in rows), default=4) + 4, max_name)
    widths = [name_width] + [
        min(max_shapes, max(12, *(len(value(e)) for e in rows)) if rows else 12)
        if title == "Input Shapes"
        else 12
        for title, value in columns
    ]
    line = "".join("-" * w + "  " for w in widths)

    def row(cells: Iterable[str]) -> str:
        return "".join(f"{cell:>{w}}  " for cell, w in zip(cells, widths))

    def shown(name: str) -> str:
        return name if len(name) <= name_width else name[: name_width - 3] + "..."

    out = [header] if header else []
    out += [line, row(["Name", *(title for title, _ in columns)]), line]
    out += [row([shown(e.key), *(value(e) for _, value in columns)]) for e in rows]
    out += [line, f"Self CPU time total: {_format_time(total)}", ""]
    return "\n".join(out)


def write_chrome_trace(path: str, events: Iterable[FunctionEvent], base_ns: int) -> None:
    """Write Chrome trace JSON: one complete ("X") event per range, times in microseconds."""
    pid = os.getpid()
    trace = []
    for event in events:
        args: dict[str, Any] = {"External id": event.id}
        if event.input_shapes:
            args["Input Dims"] = event.input_shapes
        record = {
            "ph": "X",
            "cat": "user_annotation" if event.is_user_annotation else "cpu_op",
            "name": event.name,
            "pid": pid,
            "tid": event.thread,
            "ts": event.start_us,
            "dur": event.cpu_time_total,
            "args": args,
        }
        trace.append(record)
    document = {
        "schemaVersion": 1,
        "deviceProperties": [],
        "displayTimeUnit": "ms",
        "baseTimeNanoseconds": base_ns,
        "traceEvents": trace,
        "traceName": path,
    }
    with open(path, "w") as handle:
        json.dump(document, handle)
