"""torch.multiprocessing: PyTorch's API on multiprocessing, spawn by default and fork refused
(JAX runs threads); `spawn` runs `fn(rank, *args)` in each process, with the torch alias on in
the children of an aliased parent, and re-raises a child's exception in the parent."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import autograd_compat.multiprocessing as mp
from autograd_compat.multiprocessing.spawn import ProcessContext
from tests._helpers.paths import HELPERS, ROOT

JOB = HELPERS / "spawn_job.py"


def test_the_api_is_pytorchs(real_torch):
    assert set(real_torch.multiprocessing.__all__) <= set(mp.__all__) | {"SpawnContext"}
    assert mp.get_start_method() == "spawn"
    assert mp.get_all_start_methods() == ["spawn", "forkserver"]
    assert mp.cpu_count() == os.cpu_count()
    assert mp.get_context("forkserver").get_start_method() == "forkserver"
    assert mp.get_sharing_strategy() in mp.get_all_sharing_strategies()


@pytest.mark.parametrize(
    "start", [lambda: mp.get_context("fork"), lambda: mp.set_start_method("fork", force=True)]
)
def test_fork_is_refused_with_the_reason(start):
    with pytest.raises(ValueError, match="'fork' start method is not available.*JAX"):
        start()
    assert mp.get_start_method() == "spawn"


def test_an_unknown_start_method_raises_multiprocessings_error():
    with pytest.raises(ValueError, match="cannot find context for 'threads'"):
        mp.start_processes(print, start_method="threads")


def test_spawn_runs_each_rank_aliased_and_reraises_a_childs_exception(tmp_path):
    """Under `python -m autograd_compat run`, two spawned processes see `torch` as this
    library and compute with it; rank 1's ValueError comes back as ProcessRaisedException
    with its traceback, as PyTorch's does."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "autograd_compat", "run", str(JOB), str(tmp_path)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    error = json.loads((tmp_path / "error.json").read_text())
    assert [r["rank"] for r in ranks] == [0, 1]
    assert [r["torch"] for r in ranks] == ["autograd_compat"] * 2
    assert [r["total"] for r in ranks] == [3.0, 6.0]
    assert len({r["pid"] for r in ranks} | {error["parent"]}) == 3
    assert error["index"] == 1
    assert error["message"].startswith("\n\n-- Process 1 terminated with the following error:\n")
    assert "ValueError: rank 1 fails on purpose" in error["message"]


class _Ended:
    """A finished process as ProcessContext sees it."""

    def __init__(self, exitcode: int) -> None:
        self.exitcode, self.pid, self.sentinel = exitcode, 4242, None

    def join(self, timeout=None) -> None:
        pass

    def is_alive(self) -> bool:
        return False


@pytest.mark.parametrize(
    ("code", "text", "signal_name"),
    [(3, "process 0 terminated with exit code 3", None), (-9, "with signal SIGKILL", "SIGKILL")],
)
def test_a_child_that_exits_raises_process_exited_exception(tmp_path, code, text, signal_name):
    context = ProcessContext([_Ended(code)], [str(tmp_path / "none.pickle")])
    with pytest.raises(mp.ProcessExitedException, match=text) as caught:
        context._stop_the_others(0.0)
        raise context._failure(0)
    assert (caught.value.exit_code, caught.value.signal_name) == (code, signal_name)
    assert caught.value.error_index == 0 and caught.value.error_pid == 4242
