"""FSDP (`fully_shard`, `FullyShardedDataParallel`), checkpoints of sharded models and ops on
sharded tensors, with 8 simulated CPU devices.

The multi-device checks run as one script in a subprocess with 8 simulated CPU devices
(tests/_helpers/eight_devices.py), whose JSON findings the tests read."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.eight_devices import run_script

_SCRIPT = """
    from autograd_compat.distributed.fsdp import (
        FSDPModule, FullyShardedDataParallel, ShardingStrategy, fully_shard)
    from jax.sharding import Mesh, PartitionSpec as P

    def per_device_bytes(params):
        return sum(p._value.addressable_shards[0].data.nbytes for p in params)

    def make():
        torch.manual_seed(0)
        # 16x4 weight and 16 bias split over 8 devices; 1x16 weight and 1 bias stay whole
        return torch.nn.Sequential(
            torch.nn.Linear(4, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))

    def wrap(net, how):
        if how == "fully_shard":
            fully_shard(net[0])  # per layer, then the root, as FSDP2 users do
            return fully_shard(net)
        if how == "FSDP":
            return FullyShardedDataParallel(net)
        return net

    def trained(how, compiled):
        net = make()
        model = wrap(net, how)
        return dict(train(net, model, compiled), type=type(model).__name__,
                    names=[n for n, _ in model.named_parameters()],
                    keys=list(model.state_dict()))

    out = {"runs": runs(trained, ("none", "fully_shard", "FSDP"))}
    counters = torch._dynamo.utils.counters
    out["breaks"] = sum(counters["graph_break"].values())

    wide = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 64))
    whole = per_device_bytes(wide.parameters())
    fully_shard(wide)
    out["bytes"] = [whole, per_device_bytes(wide.parameters()), isinstance(wide, FSDPModule)]

    # checkpoints: full tensors out, a full state dict in keeps each parameter's layout
    net = fully_shard(make())
    saved = io.BytesIO()
    torch.save(net.state_dict(), saved)
    saved.seek(0)
    loaded = torch.load(saved)
    full = {k: v.detach().numpy() for k, v in make().state_dict().items()}
    checkpoint = {"saved": all(np.array_equal(loaded[k].numpy(), full[k]) for k in full),
                  "loaded_on": [spec(v) for v in loaded.values()]}
    doubled = {k: v * 2 for k, v in loaded.items()}
    for name, model in (("fsdp", net), ("ddp", torch.nn.parallel.DistributedDataParallel(make())),
                        ("FSDP", FullyShardedDataParallel(make()))):
        before = [spec(p) for p in model.parameters()]
        model.load_state_dict(doubled if name != "ddp" else
                              {"module." + k: v for k, v in doubled.items()})
        with torch.no_grad():
            next(model.parameters()).copy_(torch.full((16, 4), 3.0))
        values = [p.detach().numpy() for p in model.parameters()]
        expected = [np.full((16, 4), 3.0)] + [2 * full[k] for k in list(full)[1:]]
        checkpoint[name] = {
            "kept": before == [spec(p) for p in model.parameters()],
            "values": all(np.array_equal(v, e) for v, e in zip(values, expected)),
        }
    out["checkpoint"] = checkpoint
    hybrid_mesh = dist.init_device_mesh("cpu", (2, 4), mesh_dim_names=("replicate", "shard"))
    hybrid = fully_shard(make(), mesh=hybrid_mesh)
    x = torch.randn(16, 4)
    out["hybrid"] = {
        "layouts": [spec(p) for p in hybrid.parameters()],
        "values": bool(np.allclose(hybrid(x).detach().numpy(), make()(x).detach().numpy())),
    }
    no_shard = FullyShardedDataParallel(make(), sharding_strategy=ShardingStrategy.NO_SHARD)
    out["no_shard"] = [spec(p) for p in no_shard.parameters()]
    try:
        fully_shard(make())(torch.ones(12, 4))
    except ValueError as e:
        out["uneven"] = str(e)

    # ops on sharded tensors: XLA partitions each one; the values are the global ones
    mesh = Mesh(np.asarray(__import__("jax").local_devices()), ("x",))
    a = torch.arange(32.0).reshape(8, 4)
    b = torch.arange(12.0).reshape(4, 3) / 10
    sa = dist.shard(a, mesh, P("x", None)).requires_grad_(True)
    sb = dist.shard(b, mesh, P())
    product, total = sa @ sb, sa.sum(0)
    (product.sum() + total.square().sum()).backward()
    grad = np.tile(b.numpy().sum(1), (8, 1)) + 2 * a.numpy().sum(0)
    out["ops"] = {
        "matmul": bool(np.allclose(product.detach().numpy(), a.numpy() @ b.numpy())),
        "matmul_on": spec(product),
        "sum": bool(np.allclose(total.detach().numpy(), a.numpy().sum(0))),
        "grad": bool(np.allclose(sa.grad.numpy(), grad)),
        "grad_on": spec(sa.grad),
    }
    print(json.dumps(out))
    """


@pytest.fixture(scope="module")
def eight_devices() -> dict:
    return run_script(_SCRIPT)


SHARDED, WHOLE = [8, ["fsdp"]], [8, []]


@pytest.mark.parametrize("how", ["fully_shard", "FSDP"])
@pytest.mark.parametrize("compiled", [False, True])
def test_fsdp_trains_as_one_device(eight_devices, how, compiled):
    """10 Adam steps with the parameters sharded over 8 devices: the single-device losses and
    parameters; each parameter, its .grad and its optimizer state split along dim 0 where the
    dimension divides by 8, else whole on every device."""
    base, run = eight_devices["runs"]["none False"], eight_devices["runs"][f"{how} {compiled}"]
    np.testing.assert_allclose(run["losses"], base["losses"], rtol=1e-5, atol=1e-6)
    for ours, reference in zip(run["params"], base["params"]):
        np.testing.assert_allclose(ours, reference, rtol=1e-5, atol=1e-6)
    assert run["shardings"] == [[SHARDED] * 3, [SHARDED] * 3, [WHOLE] * 3, [WHOLE] * 3]
    assert base["shardings"] == [[[1, []]] * 3] * 4


def test_compiled_fsdp_steps_compile_without_a_graph_break(eight_devices):
    assert eight_devices["breaks"] == 0


def test_module_types_names_and_state_dict_keys_are_pytorchs(eight_devices):
    """FSDP2 changes the module's class and nothing in its names; FSDP1 wraps it, lists the
    original parameters under `_fsdp_wrapped_module.` (use_orig_params=True) and keys its
    state dict as the wrapped module (FULL_STATE_DICT), as torch 2.13 does."""
    keys = ["0.weight", "0.bias", "2.weight", "2.bias"]
    fsdp2, fsdp1 = eight_devices["runs"]["fully_shard False"], eight_devices["runs"]["FSDP False"]
    assert (fsdp2["type"], fsdp2["names"], fsdp2["keys"]) == ("FSDPSequential", keys, keys)
    assert fsdp1["type"] == "FullyShardedDataParallel"
    assert fsdp1["names"] == [f"_fsdp_wrapped_module.{k}" for k in keys]
    assert fsdp1["keys"] == keys


def test_sharded_parameters_take_an_eighth_of_the_bytes_per_device(eight_devices):
    whole, sharded, is_fsdp_module = eight_devices["bytes"]
    assert whole == 4 * (64 * 256 + 256 + 256 * 64 + 64)
    assert sharded * 8 == whole and is_fsdp_module


def test_checkpoints_of_sharded_models(eight_devices):
    """torch.save of a sharded model's state dict writes the full values (loaded on one
    device); load_state_dict and copy_ write into sharded (FSDP) and replicated (DDP)
    parameters keeping their layouts."""
    checkpoint = eight_devices["checkpoint"]
    assert checkpoint["saved"] and checkpoint["loaded_on"] == [[1, []]] * 4
    for name in ("fsdp", "ddp", "FSDP"):
        assert checkpoint[name] == {"kept": True, "values": True}, name


def test_a_2d_mesh_shards_over_its_last_dimension(eight_devices):
    """FSDP2's hybrid sharding: split over the mesh's "shard" dimension (4 devices),
    replicated over "replicate"; the batch is split over all 8."""
    hybrid = eight_devices["hybrid"]
    assert hybrid["layouts"] == [[8, ["shard"]], [8, ["shard"]], WHOLE, WHOLE]
    assert hybrid["values"]


def test_no_shard_replicates_and_an_uneven_batch_is_refused(eight_devices):
    assert eight_devices["no_shard"] == [WHOLE] * 4
    assert eight_devices["uneven"] == (
        "FSDPSequential: input of shape [12, 4] has size 12 in dimension 0, which does not "
        "split evenly over 8 devices; use a batch size divisible by 8"
    )


def test_ops_on_a_sharded_tensor_give_the_global_values(eight_devices):
    """A Shard(0) matrix times a replicated one, and a sum over the sharded axis (an
    all-reduce XLA inserts), with their gradient laid out as the sharded leaf."""
    ops = eight_devices["ops"]
    assert ops == {
        "matmul": True,
        "matmul_on": ops["matmul_on"],
        "sum": True,
        "grad": True,
        "grad_on": [8, ["x", None]],
    }
    assert ops["matmul_on"][0] == 8


def test_precision_and_offload_are_refused_and_fsdp1_needs_a_process_group():
    import autograd_compat as torch
    import autograd_compat.distributed as dist
    from autograd_compat.distributed.fsdp import FullyShardedDataParallel, fully_shard

    with pytest.raises(NotImplementedError, match="FSDP mixed precision"):
        fully_shard(torch.nn.Linear(2, 2), mp_policy=object())
    with pytest.raises(NotImplementedError, match="FSDP CPU offload"):
        fully_shard(torch.nn.Linear(2, 2), offload_policy=object())
    assert not dist.is_initialized()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        FullyShardedDataParallel(torch.nn.Linear(2, 2))
