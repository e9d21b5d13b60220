"""The torch.distributed names the ecosystem imports or calls (Lightning, transformers,
accelerate, peft), with PyTorch's behaviour on a world of one process."""

from __future__ import annotations

import dataclasses
import datetime
import importlib

import pytest

import autograd_compat as torch
import autograd_compat.distributed as dist
import autograd_compat.distributed._functional_collectives as funcol
from autograd_compat.distributed import fsdp
from autograd_compat.distributed.algorithms.join import Join, Joinable, JoinHook
from autograd_compat.distributed.tensor import DTensor, Partial, Placement, Replicate, Shard
from tests._helpers.torch_compare import check_error


@pytest.fixture
def world_of_one(monkeypatch):
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "1")
    dist.init_process_group("gloo")
    yield dist.group.WORLD
    dist.destroy_process_group()


def test_reduce_op_members_are_pytorchs(real_torch):
    theirs = real_torch.distributed.ReduceOp
    ours = dist.ReduceOp
    assert {n: int(m) for n, m in ours.RedOpType.__members__.items()} == {
        n: int(m) for n, m in theirs.RedOpType.__members__.items()
    }
    for name in ("SUM", "AVG", "MAX"):
        assert (repr(getattr(ours, name)), str(getattr(ours, name))) == (
            repr(getattr(theirs, name)),
            str(getattr(theirs, name)),
        )
        assert isinstance(getattr(ours, name), ours)
    assert ours.SUM == ours.RedOpType.SUM and ours.RedOpType.__name__ == "RedOpType"


def test_constants_and_torchelastic(real_torch, monkeypatch):
    constants = real_torch.distributed.constants
    assert dist.constants.default_pg_timeout == constants.default_pg_timeout
    assert dist.constants.default_pg_timeout == datetime.timedelta(minutes=30)
    assert dist.constants.default_pg_nccl_timeout == constants.default_pg_nccl_timeout
    monkeypatch.delenv("TORCHELASTIC_RUN_ID", raising=False)
    assert dist.is_torchelastic_launched() is False
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "job")
    assert dist.is_torchelastic_launched() is True


def test_the_default_group(real_torch):
    assert dist.group.WORLD is None and dist.GroupMember.WORLD is None
    assert dist.GroupMember.NON_GROUP_MEMBER == real_torch.distributed.GroupMember.NON_GROUP_MEMBER
    check_error(lambda t: t.distributed.get_process_group_ranks(None), real_torch)


def test_collectives_on_a_world_of_one(world_of_one):
    group = world_of_one
    assert isinstance(group, dist.ProcessGroup) and dist.GroupMember.WORLD is group
    assert (group.rank(), group.size(), dist.get_process_group_ranks(group)) == (0, 1, [0])
    x = torch.tensor([1.0, -2.0, 3.0, 4.0])
    out = torch.zeros(4)
    dist.all_to_all_single(out, x)
    assert out.tolist() == x.tolist()
    with pytest.raises(RuntimeError, match="all_to_all_single"):
        dist.all_to_all_single(torch.zeros(3), x)
    y = x.clone()
    dist.all_reduce(y, op=dist.ReduceOp(dist.ReduceOp.MAX))
    assert y.tolist() == x.tolist()
    with pytest.raises(TypeError, match="ReduceOp"):
        dist.all_reduce(y, op="sum")


def test_functional_collectives_return_new_tensors(world_of_one):
    group = world_of_one
    x = torch.arange(6.0).reshape(2, 3)
    results = [
        funcol.all_reduce(x, "sum", group),
        funcol.all_gather_single(x, 1, group),
        funcol.reduce_scatter_single(x, "avg", 0, group),
        funcol.broadcast(x, 0, group),
        funcol.all_to_all_single(x, None, None, group),
        *funcol.all_reduce_coalesced([x, x], "max", group),
    ]
    for result in results:
        assert result is not x and result.tolist() == x.tolist()
        assert funcol.wait_tensor(result) is result
    with pytest.warns(FutureWarning, match="all_gather_single"):
        funcol.all_gather_tensor(x, 0, group)
    with pytest.raises(ValueError, match="Unrecognized reduce_op"):
        funcol.all_reduce(x, "median", group)
    with pytest.raises(NotImplementedError, match="group"):
        funcol.all_reduce(x, "sum", [0, 1])


class _Counter(Joinable):
    def __init__(self) -> None:
        super().__init__()
        self.posts: list[bool] = []

    def join_hook(self, **kwargs) -> JoinHook:
        counter = self

        class Hook(JoinHook):
            def post_hook(self, is_last_joiner: bool) -> None:
                counter.posts.append(is_last_joiner)

        return Hook()

    @property
    def join_device(self):
        return torch.device("cpu")

    @property
    def join_process_group(self):
        return dist.group.WORLD


def test_join_on_a_world_of_one(world_of_one):
    first, second = _Counter(), _Counter()
    with Join([first, second]):
        assert Join.notify_join_context(first).wait()
        assert Join.notify_join_context(second) is None
    assert first.posts == second.posts == [True]
    with pytest.raises(ValueError, match="at least one joinable"):
        Join([])


def test_placements_and_dtensor(real_torch):
    theirs = importlib.import_module("torch.distributed.tensor")
    assert Partial().reduce_op == theirs.Partial().reduce_op == "sum"
    assert all(isinstance(p, Placement) for p in (Shard(0), Replicate(), Partial()))
    assert Shard(1).is_shard(1) and not Shard(1).is_shard(0) and Partial().is_partial("sum")
    assert Replicate().is_replicate() and not Shard(0).is_replicate()
    assert not isinstance(torch.ones(2), DTensor)
    with pytest.raises(TypeError, match="DTensor.from_local"):
        DTensor(torch.ones(2))


def test_fsdp_policies_are_pytorchs(real_torch):
    theirs = importlib.import_module("torch.distributed.fsdp")
    for name in ("MixedPrecisionPolicy", "CPUOffloadPolicy"):
        ours_fields = [(f.name, f.default) for f in dataclasses.fields(getattr(fsdp, name))]
        their_fields = [(f.name, f.default) for f in dataclasses.fields(getattr(theirs, name))]
        assert ours_fields == their_fields
    assert issubclass(fsdp.CPUOffloadPolicy, fsdp.OffloadPolicy)
    model = torch.nn.Linear(2, 2)
    assert fsdp.fully_shard(model, mp_policy=fsdp.MixedPrecisionPolicy()) is model
    with pytest.raises(NotImplementedError, match="mixed precision"):
        fsdp.fully_shard(torch.nn.Linear(2, 2), mp_policy=fsdp.MixedPrecisionPolicy(torch.bfloat16))
    with pytest.raises(NotImplementedError, match="CPU offload"):
        fsdp.fully_shard(torch.nn.Linear(2, 2), offload_policy=fsdp.CPUOffloadPolicy())


def test_ddp_module_path():
    from autograd_compat.nn.parallel.distributed import DistributedDataParallel

    assert DistributedDataParallel is torch.nn.parallel.DistributedDataParallel


def test_all_to_all_single_autograd_records_its_gradient(world_of_one):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = funcol.all_to_all_single_autograd(x, None, None, world_of_one)
    (out * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert out.tolist() == [1.0, 2.0, 3.0] and x.grad.tolist() == [1.0, 10.0, 100.0]


def test_local_shape_and_offset_of_rank_0(real_torch):
    from autograd_compat.distributed.device_mesh import DeviceMesh
    from autograd_compat.distributed.tensor._utils import compute_local_shape_and_global_offset
    from autograd_compat.distributed.tensor.placement_types import _StridedShard

    mesh = DeviceMesh("cpu", [0])
    assert compute_local_shape_and_global_offset((5, 3), mesh, [Shard(1)]) == ((5, 3), (0, 0))
    assert compute_local_shape_and_global_offset((5, 3), mesh, [Replicate()]) == ((5, 3), (0, 0))
    assert _StridedShard(0, split_factor=2).split_factor == 2
    assert mesh.get_coordinate() == [0]
