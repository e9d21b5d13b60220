"""Many devices on JAX's SPMD sharding, with 8 simulated CPU devices.

JAX fixes its device count when it starts, so the multi-device checks run in one subprocess
(`XLA_FLAGS=--xla_force_host_platform_device_count=8`) that prints its findings as JSON; the
process-group checks run here against real PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch
import autograd_compat.distributed as dist
from tests._helpers.eight_devices import run_script
from tests._helpers.torch_compare import check_error

_SCRIPT = """
    from autograd_compat.distributed.tensor import Shard, Replicate, distribute_tensor
    from jax.sharding import PartitionSpec as P

    def trained(wrap, compiled):
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
        wrappers = {"none": lambda m: m, "dp": torch.nn.DataParallel,
                    "ddp": torch.nn.parallel.DistributedDataParallel}
        return train(net, wrappers[wrap](net), compiled)

    out = {"runs": runs(trained, ("none", "dp", "ddp"))}
    counters = torch._dynamo.utils.counters
    out["counters"] = {"breaks": sum(counters["graph_break"].values()),
                       "graphs": counters["stats"].get("unique_graphs", 0)}
    try:
        torch.nn.DataParallel(torch.nn.Linear(4, 1))(torch.ones(10, 4))
    except ValueError as e:
        out["uneven"] = str(e)

    mesh = dist.init_device_mesh("cpu", (4, 2), mesh_dim_names=("dp", "tp"))
    x = distribute_tensor(torch.arange(32.0).reshape(8, 4), mesh, [Shard(0), Shard(1)])
    x.requires_grad_(True)
    (x * x).sum().backward()
    out["dtensor"] = {"x": spec(x), "grad": spec(x.grad),
                      "grad_ok": bool(np.allclose(x.grad.numpy(), 2 * x.detach().numpy()))}
    r = distribute_tensor(torch.ones(8, 4), mesh, [Replicate(), Shard(0)])
    out["replicate_shard"] = spec(r)
    s = dist.shard(torch.ones(8, 3, requires_grad=True), mesh.jax_mesh, P(("dp", "tp"), None))
    out["shard"] = [spec(s), s.requires_grad, s.is_leaf]
    print(json.dumps(out))
    """


@pytest.fixture(scope="module")
def eight_devices() -> dict:
    return run_script(_SCRIPT)


@pytest.mark.parametrize("wrap", ["dp", "ddp"])
@pytest.mark.parametrize("compiled", [False, True])
def test_data_parallel_trains_as_one_device(eight_devices, wrap, compiled):
    """10 Adam steps with the batch split over 8 devices: the single-device losses and
    parameters; parameters, .grad and optimizer state replicated on all 8."""
    base, run = eight_devices["runs"]["none False"], eight_devices["runs"][f"{wrap} {compiled}"]
    np.testing.assert_allclose(run["losses"], base["losses"], rtol=1e-5, atol=1e-6)
    for ours, reference in zip(run["params"], base["params"]):
        np.testing.assert_allclose(ours, reference, rtol=1e-5, atol=1e-6)
    assert run["shardings"] == [[[8, []]] * 3] * 4
    assert base["shardings"] == [[[1, []]] * 3] * 4


def test_compiled_data_parallel_steps_compile_without_a_graph_break(eight_devices):
    counters = eight_devices["counters"]
    assert counters["breaks"] == 0 and counters["graphs"] >= 3, counters


def test_a_batch_that_does_not_split_evenly_is_refused(eight_devices):
    assert eight_devices["uneven"] == (
        "DataParallel: input of shape [10, 4] has size 10 in dimension 0, which does not split "
        "evenly over 8 devices; use a batch size divisible by 8"
    )


def test_distribute_tensor_and_shard_keep_their_sharding(eight_devices):
    assert eight_devices["dtensor"] == {
        "x": [8, ["dp", "tp"]],
        "grad": [8, ["dp", "tp"]],
        "grad_ok": True,
    }
    assert eight_devices["replicate_shard"] == [8, ["tp", None]]
    assert eight_devices["shard"] == [[8, [["dp", "tp"], None]], True, True]


def test_process_group_before_and_after_init(real_torch, monkeypatch):
    for call in (
        lambda t: t.distributed.get_rank(),
        lambda t: t.distributed.barrier(),
        lambda t: t.distributed.all_reduce(t.ones(1)),
        lambda t: t.nn.parallel.DistributedDataParallel(t.nn.Linear(2, 1)),
    ):
        check_error(call, real_torch)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    monkeypatch.setenv("RANK", "0")
    check_error(lambda t: t.distributed.init_process_group("gloo"), real_torch)
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.delenv("MASTER_ADDR", raising=False)
    check_error(lambda t: t.distributed.init_process_group("gloo"), real_torch)
    monkeypatch.setenv("WORLD_SIZE", "1")
    dist.init_process_group("gloo")
    try:
        assert (dist.is_initialized(), dist.get_rank(), dist.get_world_size()) == (True, 0, 1)
        x = torch.tensor([1.0, 2.0])
        dist.all_reduce(x)
        dist.broadcast(x, 0)
        gathered = [torch.zeros(2)]
        dist.all_gather(gathered, x)
        assert gathered[0].tolist() == [1.0, 2.0] and x.tolist() == [1.0, 2.0]
        with pytest.raises(ValueError, match="twice"):
            dist.init_process_group("gloo")
        model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 1))
        assert list(model.state_dict()) == ["module.weight", "module.bias"]
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()
