"""torch.distributed across processes: `tests/_helpers/ddp_job.py`, an ordinary DDP script,
launched as two local processes by `python -m autograd_compat run --nproc 2` trains as one
process on the combined batch, and its collectives give PyTorch's values. One launch serves
all the checks of the job. (The same script runs under PyTorch's `torchrun` with the same
collective values; that run is left out here for time: its processes import PyTorch.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

import autograd_compat.distributed as dist
from autograd_compat import _alias, _launch
from autograd_compat.__main__ import main
from tests._helpers.paths import HELPERS
from tests._helpers.torch_compare import check_error

JOB = HELPERS / "ddp_job.py"


def _records(folder: Path, world: int) -> list:
    return [json.loads((folder / f"rank{r}.json").read_text()) for r in range(world)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """The job on two processes, and on one process with the batches of both."""
    two, one = tmp_path_factory.mktemp("two"), tmp_path_factory.mktemp("one")
    assert main(["run", "--nproc", "2", str(JOB), "--out", str(two)]) == 0
    with mock.patch.dict(os.environ, RANK="0", WORLD_SIZE="1"):
        _alias.run([str(JOB), "--out", str(one), "--batch-size", "10"])
    return {"ours": _records(two, 2), "one": _records(one, 1)[0]}


def test_two_processes_train_as_one_process_on_the_combined_batch(runs):
    """Each step's batches of the two ranks are disjoint and together the one-process batch;
    losses (averaged over ranks) and final parameters match within float32 tolerance."""
    ours, one = runs["ours"], runs["one"]
    for step, (a, b, both) in enumerate(
        zip(ours[0]["indices"], ours[1]["indices"], one["indices"])
    ):
        assert not set(a) & set(b) and sorted(a + b) == sorted(both), step
    assert len(one["losses"]) == 8
    for rank in ours:
        np.testing.assert_allclose(rank["losses"], one["losses"], rtol=1e-5, atol=1e-6)
        for mine, reference in zip(rank["params"], one["params"]):
            np.testing.assert_allclose(mine, reference, rtol=1e-5, atol=1e-6)
    first_epoch, second_epoch = one["losses"][:4], one["losses"][4:]  # each a pass over the data
    assert sum(second_epoch) < sum(first_epoch)


def test_rank_0_parameters_are_broadcast_and_no_sync_skips_the_averaging(runs):
    """The ranks start from different parameters (seeded by rank) and end equal; after a
    backward under no_sync their gradients differ, after a synced one they agree."""
    run = runs["ours"]
    assert run[0]["params"] == run[1]["params"]
    assert [r["grads_differ_after_no_sync"] for r in run] == [[True], [True]]
    assert [r["grads_equal_after_sync"] for r in run] == [True, True]


def test_a_parameter_without_gradient_fails_the_next_forward(runs):
    for record in runs["ours"]:
        assert record["unused_parameters"] == (
            "Expected to have finished reduction in the prior iteration before starting a new one"
        )


def test_collectives_across_two_processes_give_pytorchs_values(runs):
    """Each rank's results, from the ranks' inputs by PyTorch's definitions (`reduce`
    leaves a non-destination rank's tensor as it was; PyTorch leaves it unspecified)."""
    mine = [np.array([r + 1.0, 2.0 * (r + 1) - 3.0]) for r in range(2)]
    expected = {
        "all_reduce": {
            "SUM": (mine[0] + mine[1]).tolist(),
            "AVG": ((mine[0] + mine[1]) / 2).tolist(),
            "MIN": np.minimum(*mine).tolist(),
            "MAX": np.maximum(*mine).tolist(),
            "PRODUCT": (mine[0] * mine[1]).tolist(),
            "SUM int64": [3, 10],
        },
        "all_gather": [m.tolist() for m in mine],
        "all_gather_single": np.concatenate(mine).tolist(),
        "broadcast": mine[1].tolist(),
        "async all_reduce": (mine[0] + mine[1]).tolist(),
        "functional all_reduce": (mine[0] + mine[1]).tolist(),
        "reduce_scatter_single": (mine[0] + mine[1]).tolist(),
    }
    for rank, record in enumerate(runs["ours"]):
        got = dict(record["collectives"])
        reduced = got.pop("reduce")
        assert got.pop("all_to_all_single") == [0.0 + rank, 10.0 + rank]
        assert got == expected, (rank, got)
        assert reduced == (expected["all_reduce"]["SUM"] if rank == 1 else mine[0].tolist())


def test_a_failing_rank_fails_the_launch_at_once(tmp_path):
    """Rank 1 raises while rank 0 waits in a collective with it: the launcher returns the
    failure's exit code in seconds (no shutdown barrier waiting for the blocked rank)."""
    script = tmp_path / "fail.py"
    script.write_text(
        textwrap.dedent(
            """
            import torch
            import torch.distributed as dist

            dist.init_process_group("gloo")
            x = torch.ones(2)
            dist.all_reduce(x)
            if dist.get_rank() == 1:
                raise ValueError("rank 1 fails")
            dist.all_reduce(x)
            """
        )
    )
    started = time.monotonic()
    assert main(["run", "--nproc", "2", str(script)]) == 1
    assert time.monotonic() - started < 60


def test_launcher_arguments():
    assert _launch.split_nproc(["--nproc", "3", "a.py", "-x"]) == (3, ["a.py", "-x"])
    assert _launch.split_nproc(["--nproc_per_node=2", "a.py"]) == (2, ["a.py"])
    assert _launch.split_nproc(["a.py", "--nproc", "2"]) == (None, ["a.py", "--nproc", "2"])
    for bad, text in [
        (["--nproc", "zero", "a.py"], "'zero' is not a positive number"),
        (["--nproc", "0", "a.py"], "'0' is not a positive number"),
        (["--nproc"], "needs a number"),
        (["--nproc", "2"], "usage"),
        (["--nprocs", "2", "a.py"], "unknown option --nprocs"),
    ]:
        with pytest.raises(SystemExit, match=text):
            _launch.split_nproc(bad)


def test_the_import_leaves_jax_unstarted_and_a_late_init_is_refused():
    """jax.distributed must join the processes before JAX's backend starts: importing the
    library does not start it, nor does seeding or asking for CUDA without a GPU plugin;
    init_process_group after a tensor exists says why it fails."""
    code = textwrap.dedent(
        """
        from autograd_compat._pure.jax_internals import backends_are_initialized
        import autograd_compat as torch
        import autograd_compat.distributed as dist
        from autograd_compat.utils.data import DistributedSampler
        print(backends_are_initialized())
        torch.manual_seed(0)
        print(torch.cuda.is_available(), backends_are_initialized())
        torch.ones(1)
        try:
            dist.init_process_group("gloo", "tcp://127.0.0.1:1", world_size=2, rank=0)
        except RuntimeError as error:
            print(error)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.splitlines() == [
        "False",
        "False False",
        "init_process_group(world_size=2): JAX's backend has already started in this process "
        "(a tensor was made or a device queried), and jax.distributed must join the processes "
        "before that; call init_process_group first",
    ]


def test_errors_before_init_and_of_the_rendezvous(real_torch, monkeypatch):
    for call in (
        lambda t: t.distributed.all_gather_single(t.zeros(2), t.ones(1)),
        lambda t: t.distributed.all_gather([t.zeros(1)], t.ones(1)),
        lambda t: t.distributed.reduce(t.ones(1)),
        lambda t: t.distributed.broadcast(t.ones(1), 0),
        lambda t: t.distributed.get_world_size(),
        lambda t: t.utils.data.DistributedSampler(range(4)),
        lambda t: t.utils.data.DistributedSampler(range(4), num_replicas=2),
        lambda t: t.distributed.init_process_group(
            "gloo", init_method="tcp://127.0.0.1:1", world_size=2
        ),
        lambda t: t.distributed.init_process_group("gloo", init_method="tcp://127.0.0.1:1", rank=0),
    ):
        check_error(call, real_torch)
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.delenv("MASTER_ADDR", raising=False)
    check_error(lambda t: t.distributed.init_process_group("gloo"), real_torch)
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.delenv("MASTER_PORT", raising=False)
    check_error(lambda t: t.distributed.init_process_group("gloo"), real_torch)
    assert not dist.is_initialized()


@pytest.mark.parametrize("size", [10, 11, 3])
@pytest.mark.parametrize("replicas", [1, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler_deals_as_pytorch(real_torch, size, replicas, drop_last):
    """Unshuffled: PyTorch's indices, lengths and padding for every rank. Shuffled: each
    rank's share of one permutation the ranks agree on, laid out as PyTorch lays it out."""
    import autograd_compat as torch

    def shares(lib, **options):
        samplers = [
            lib.utils.data.DistributedSampler(
                range(size), num_replicas=replicas, rank=r, drop_last=drop_last, **options
            )
            for r in range(replicas)
        ]
        return [(list(s), len(s), s.total_size) for s in samplers]

    assert shares(torch, shuffle=False) == shares(real_torch, shuffle=False)
    ours, theirs = shares(torch, seed=5), shares(real_torch, seed=5)
    assert [share[1:] for share in ours] == [share[1:] for share in theirs]
    dealt = [i for row in zip(*(share[0] for share in ours)) for i in row]
    if drop_last:
        assert len(set(dealt)) == len(dealt) and set(dealt) <= set(range(size))
    else:
        assert sorted(dealt[:size]) == list(range(size))
        assert dealt[size:] == dealt[: len(dealt) - size]  # padding repeats the start
    assert shares(torch, seed=5) == ours


def test_distributed_sampler_epochs_and_bad_rank(real_torch):
    import autograd_compat as torch

    sampler = torch.utils.data.DistributedSampler(range(50), num_replicas=2, rank=0, seed=1)
    first = list(sampler)
    sampler.set_epoch(1)
    assert sampler.epoch == 1 and sorted(list(sampler)) != list(sampler) != first
    sampler.set_epoch(0)
    assert list(sampler) == first
    check_error(
        lambda t: t.utils.data.DistributedSampler(range(4), num_replicas=2, rank=2), real_torch
    )
    check_error(
        lambda t: t.utils.data.DistributedSampler(range(4), num_replicas=2, rank=-1), real_torch
    )
