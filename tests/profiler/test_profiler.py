"""torch.profiler and torch.autograd.profiler: real timings of record_function ranges and ops,
nesting, averages, the table, the schedule and trace hand-off, the Chrome trace, against
real PyTorch where the two can agree (names, counts, shapes, schedule, columns)."""

from __future__ import annotations

import json
import time
import warnings

import pytest

import autograd_compat as torch
from autograd_compat._state.modes import modes
from autograd_compat.profiler import ProfilerAction, profile, record_function, schedule


def _user_keys(prof) -> list:
    return [e.key for e in prof.key_averages() if not e.key.startswith("aten::")]


def _block(lib):
    """A labelled block with three matmuls, profiled with shapes."""
    x = lib.ones(6, 6)
    with lib.profiler.profile(record_shapes=True) as prof:
        with lib.profiler.record_function("block"):
            for _ in range(3):
                x @ x
    mm = next(e for e in prof.key_averages(group_by_input_shape=True) if e.key == "aten::mm")
    return {"users": _user_keys(prof), "mm": (mm.count, mm.input_shapes)}


def test_op_events_and_shapes_match_pytorch(real_torch):
    assert _block(torch) == _block(real_torch)


def test_ranges_have_real_wall_clock_times_and_nest():
    @record_function("decorated")
    def work():
        time.sleep(0.002)

    with profile() as prof:
        with record_function("outer"):
            time.sleep(0.02)
            work()
            work()
    events = {e.key: e for e in prof.key_averages()}
    assert 20_000 <= events["outer"].cpu_time_total < 2_000_000  # microseconds
    assert events["decorated"].count == 2 and events["decorated"].cpu_time_total >= 4_000
    outer = next(e for e in prof.events() if e.name == "outer")
    assert [c.name for c in outer.cpu_children] == ["decorated", "decorated"]
    assert outer.self_cpu_time_total == pytest.approx(
        outer.cpu_time_total - events["decorated"].cpu_time_total
    )
    assert prof.events()[1].cpu_parent is outer


def test_no_observer_is_left_once_the_profile_closes():
    with profile():
        assert modes.observers and modes.special
        (torch.ones(2) * 3).sum()
    assert modes.observers == [] and not modes.special


def test_schedule_matches_pytorch(real_torch):
    configs = [
        dict(wait=1, warmup=1, active=2, repeat=1),
        dict(wait=0, warmup=2, active=1, repeat=0, skip_first=3),
        dict(wait=2, warmup=1, active=2, skip_first=1, skip_first_wait=1),
    ]
    for config in configs:
        ours = [a.name for a in map(schedule(**config), range(12))]
        theirs = [a.name for a in map(real_torch.profiler.schedule(**config), range(12))]
        assert ours == theirs
    with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
        schedule(wait=0, warmup=0, active=0)


def _scheduled(lib):
    traces = []

    def ready(prof):
        traces.append((prof.step_num, _user_keys(prof)))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.profiler.profile(
            schedule=lib.profiler.schedule(wait=1, warmup=1, active=2, repeat=2),
            on_trace_ready=ready,
        ) as prof:
            for step in range(9):
                with lib.profiler.record_function(f"step{step}"):
                    lib.ones(2) + 1
                prof.step()
    return traces


def test_scheduled_profile_hands_out_the_same_traces_as_pytorch(real_torch):
    ours = _scheduled(torch)
    assert ours == _scheduled(real_torch)
    assert ours == [
        (4, ["ProfilerStep*", "step2", "step3"]),
        (8, ["ProfilerStep*", "step6", "step7"]),
    ]


def test_table_columns_match_pytorch(real_torch):
    def header(lib):
        with lib.profiler.profile() as prof:
            with lib.profiler.record_function("a"):
                pass
        lines = prof.key_averages().table(sort_by="cpu_time_total").splitlines()
        return lines[1].split("  "), lines[-1].split(":")[0]

    assert header(torch) == header(real_torch)


def test_chrome_trace_and_tensorboard_handler(tmp_path):
    with profile() as prof:
        with record_function("labelled"):
            torch.ones(3).exp()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    events = json.loads(path.read_text())["traceEvents"]
    labelled = next(e for e in events if e["name"] == "labelled")
    op = next(e for e in events if e["name"] == "aten::exp")
    assert labelled["ph"] == op["ph"] == "X" and labelled["cat"] == "user_annotation"
    assert labelled["ts"] <= op["ts"] and op["ts"] + op["dur"] <= labelled["ts"] + labelled["dur"]

    handler = torch.profiler.tensorboard_trace_handler(str(tmp_path / "tb"), worker_name="w")
    handler(prof)
    (written,) = (tmp_path / "tb").iterdir()
    assert written.name.startswith("w.") and written.name.endswith(".pt.trace.json")
    assert json.loads(written.read_text())["traceEvents"]


def test_legacy_profile_memory_and_unavailable_tools():
    with torch.autograd.profiler.profile(profile_memory=True) as prof:
        torch.ones(256) * 2
    mul = next(e for e in prof.function_events if e.name == "aten::mul")
    assert mul.cpu_memory_usage == 256 * 4
    assert "CPU Mem" in prof.key_averages().table()
    with pytest.raises(RuntimeError, match="torch.autograd.profiler.emit_nvtx"):
        with torch.autograd.profiler.emit_nvtx():
            pass
    with pytest.warns(UserWarning, match="CUDA is not available, disabling CUDA profiling"):
        profile(activities=[torch.profiler.ProfilerActivity.CUDA])
    assert torch.profiler.supported_activities() == {torch.profiler.ProfilerActivity.CPU}
    assert ProfilerAction.RECORD_AND_SAVE.value == 3


def test_backward_nodes_are_timed_as_pytorch_names_them(real_torch):
    def keys(lib):
        lin = lib.nn.Linear(4, 8)
        x = lib.ones(2, 4, requires_grad=True)
        with lib.profiler.profile() as prof:
            lin(x).sum().backward()
        return {e.key for e in prof.key_averages()}

    ours = keys(torch)
    assert {
        "autograd::engine::evaluate_function: AddmmBackward0",
        "AddmmBackward0",
        "autograd::engine::evaluate_function: SumBackward0",
    } <= ours
    assert ours <= keys(real_torch)
