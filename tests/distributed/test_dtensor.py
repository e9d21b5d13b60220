"""DTensor on JAX's sharding, with 8 simulated CPU devices (one subprocess, its findings as
JSON): values and gradients against the same computation on plain tensors, and rank 0's
pieces against PyTorch's DTensor on its fake process group of 4 ranks (one process; ops
that need no collective give rank 0's true piece there). Then a mesh spanning two processes
(`python -m autograd_compat run --nproc 2`)."""

from __future__ import annotations

import json

import pytest

from autograd_compat.__main__ import main
from tests._helpers.eight_devices import run_script
from tests._helpers.paths import HELPERS

_SCRIPT = """
    import copy
    import autograd_compat.nn.functional as F
    from autograd_compat.distributed.tensor import (
        DTensor, Partial, Replicate, Shard, distribute_module, distribute_tensor)

    def close(a, b):
        return bool(np.allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-5))

    def names(placements):
        return [repr(p) for p in placements]

    def error(call):
        try:
            call()
        except Exception as e:
            return [type(e).__name__, str(e)]

    from autograd_compat._overrides import install

    out = {"dispatch": [install.is_installed()]}
    mesh = dist.init_device_mesh("cpu", (4,), mesh_dim_names=("tp",))
    x = torch.arange(32.0).reshape(8, 4)
    w = torch.linspace(-1, 1, 12).reshape(4, 3)
    dt = distribute_tensor(x.clone().requires_grad_(), mesh, [Shard(0)])
    out["dispatch"].append(install.is_installed())
    doubled, total = dt * 2, (dt * 2).sum()
    product, linear = dt @ w, F.linear(dt, w.t())
    out["kinds"] = [isinstance(t, DTensor) for t in (dt, doubled, total, product, linear, x)]
    out["placements"] = [names(t.placements) for t in (dt, doubled, total, product, linear)]
    out["values"] = [close(total.full_tensor(), (x * 2).sum()), close(product.full_tensor(), x @ w),
                     close(linear.full_tensor(), x @ w)]
    out["local"] = [dt.to_local().tolist(), doubled.to_local().tolist(),
                    type(dt.to_local()).__name__, type(dt.full_tensor()).__name__]
    out["mesh"] = [dt.device_mesh is mesh, spec(dt)]
    (product.sum() + total).backward()
    plain = x.clone().requires_grad_()
    ((plain @ w).sum() + (plain * 2).sum()).backward()
    out["grad"] = [type(dt.grad).__name__, names(dt.grad.placements), close(dt.grad.full_tensor(),
                   plain.grad)]

    moved = dt.redistribute(placements=[Shard(1)])
    whole = dt.redistribute(mesh, [Replicate()])
    (moved * torch.arange(4.0)).sum().backward()
    out["redistribute"] = [names(moved.placements), spec(moved), names(whole.placements),
                           close(whole.full_tensor(), x), moved.to_local().shape[1],
                           close(dt.grad.full_tensor(), plain.grad + torch.arange(4.0))]

    piece = torch.ones(2, 4, requires_grad=True)
    made = {p: DTensor.from_local(piece, mesh, [placement])
            for p, placement in (("shard", Shard(0)), ("replicate", Replicate()),
                                 ("sum", Partial()), ("max", Partial("max")))}
    out["from_local"] = {p: [list(t.shape), names(t.placements), t.full_tensor().sum().item()]
                         for p, t in made.items()}
    (made["shard"] * torch.arange(8.0).reshape(8, 1)).sum().backward()
    twice = piece.grad.clone()
    piece.grad = None
    made["sum"].sum().backward()
    out["from_local_grad"] = [twice.tolist(), piece.grad.tolist(), type(piece.grad).__name__]
    out["from_local_to_local"] = close(made["shard"].to_local(), piece)

    grid = dist.init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    both = distribute_tensor(x, grid, [Shard(0), Shard(1)])
    out["grid"] = [names(both.placements), list(both.to_local().shape), spec(both),
                   names((both + 1).placements)]
    row = distribute_tensor(x, grid["tp"], [Shard(1)])
    out["submesh"] = [grid["tp"].mesh.tolist(), grid["dp"].mesh.tolist(),
                      grid["dp", "tp"].mesh.tolist(), grid.get_local_rank("tp"),
                      names(row.placements), spec(row), row.device_mesh == grid["tp"],
                      error(lambda: grid["xx"]), error(lambda: grid["tp", "dp"]),
                      error(lambda: grid.get_local_rank())]

    out["errors"] = [
        error(lambda: dt.redistribute()),
        error(lambda: dt.redistribute(placements=[Partial()])),
        error(lambda: DTensor.from_local(dt, mesh)),
        error(lambda: distribute_tensor(x * piece.sum(), mesh)),
        error(lambda: distribute_tensor(x, mesh, [Shard(0), Shard(1)])),
        error(lambda: DTensor(x)),
    ]

    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
    laid = copy.deepcopy(net)

    def colwise(name, module, mesh):
        if name == "0":
            module.weight = torch.nn.Parameter(distribute_tensor(module.weight, mesh, [Shard(0)]))

    distribute_module(laid, mesh, colwise)
    out["module"] = [[type(p).__name__, isinstance(p, torch.nn.Parameter), names(p.placements)]
                     for p in laid.parameters()]
    compiled = copy.deepcopy(laid)
    losses = []
    for model in (net, laid, compiled):
        opt = torch.optim.Adam(model.parameters(), lr=0.01)

        def step(a, b):
            opt.zero_grad()
            loss = F.mse_loss(model(a), b)
            loss.backward()
            opt.step()
            return loss

        step = torch.compile(step) if model is compiled else step
        g = torch.Generator().manual_seed(1)
        for _ in range(3):
            a, b = torch.randn(16, 4, generator=g), torch.randn(16, 1, generator=g)
            losses.append(step(a, b).item())
    out["losses"] = losses
    out["compiled"] = [names(p.placements) for p in compiled.parameters()]
    out["state"] = [[type(v).__name__, names(v.placements)] for v in opt.state[
        next(compiled.parameters())].values() if v.ndim]
    out["zeros_like"] = names(torch.zeros_like(dt).placements)
    from autograd_compat.distributed.tensor.experimental import implicit_replication

    with implicit_replication():
        out["implicit"] = names((dt.detach() + torch.ones(8, 4)).placements)
    out["trained"] = all(close(p.detach(), q.full_tensor().detach())
                         for p, q in zip(net.parameters(), laid.parameters()))
    out["grads"] = [names(p.grad.placements) for p in laid.parameters()]
    state = laid.state_dict()
    fresh = copy.deepcopy(laid)
    with torch.no_grad():
        for p in fresh.parameters():
            p.zero_()
    fresh.load_state_dict(state)
    out["state_dict"] = [[type(v).__name__ for v in state.values()],
                         all(close(p.full_tensor().detach(), q.full_tensor().detach())
                             for p, q in zip(fresh.parameters(), laid.parameters())),
                         [spec(p) for p in fresh.parameters()] == [spec(p) for p in
                                                                   laid.parameters()]]

    from autograd_compat.distributed.fsdp import fully_shard

    layer = torch.nn.Linear(4, 8)
    weights = [p.detach().clone() for p in layer.parameters()]
    fully_shard(layer, mesh=mesh)
    full = {k: v.full_tensor() for k, v in layer.state_dict().items()}
    out["fsdp"] = [[type(p).__name__, names(p.placements)] for p in layer.parameters()]
    out["fsdp_state"] = all(close(full[k], w) for k, w in zip(("weight", "bias"), weights))
    print(json.dumps(out))
    """


@pytest.fixture(scope="module")
def found() -> dict:
    return run_script(_SCRIPT)


def test_ops_on_dtensors_give_dtensors_laid_out_as_xla_lays_them(found):
    assert found["kinds"] == [True] * 5 + [False]
    assert (
        found["placements"] == [["Shard(dim=0)"]] * 2 + [["Replicate()"]] + [["Shard(dim=0)"]] * 2
    )
    assert found["values"] == [True, True, True]
    assert found["zeros_like"] == ["Shard(dim=0)"]  # laid out as its argument
    assert found["implicit"] == ["Shard(dim=0)"]  # a plain tensor is taken as replicated
    assert found["mesh"] == [True, [4, ["tp", None]]]


def test_dispatch_switches_on_with_the_first_dtensor_not_the_import(found):
    assert found["dispatch"] == [False, True]


def test_grads_of_a_dtensor_leaf_are_dtensors_laid_out_as_the_leaf(found):
    assert found["grad"] == ["DTensor", ["Shard(dim=0)"], True]


def test_redistribute_moves_the_layout_and_is_differentiable(found):
    assert found["redistribute"] == [["Shard(dim=1)"], [4, [None, "tp"]], ["Replicate()"], True, 1,
                                     True]  # fmt: skip


def test_from_local_takes_its_tensor_as_every_ranks_piece(found):
    assert found["from_local"] == {
        "shard": [[8, 4], ["Shard(dim=0)"], 32.0],
        "replicate": [[2, 4], ["Replicate()"], 8.0],
        "sum": [[2, 4], ["Replicate()"], 32.0],
        "max": [[2, 4], ["Replicate()"], 8.0],
    }
    assert found["from_local_grad"][1:] == [[[1.0] * 4] * 2, "Tensor"]
    assert found["from_local_to_local"] is True


def test_a_2d_mesh_splits_both_dimensions(found):
    assert found["grid"] == [
        ["Shard(dim=0)", "Shard(dim=1)"],
        [4, 2],
        [4, ["dp", "tp"]],
        ["Shard(dim=0)", "Shard(dim=1)"],
    ]


def test_a_submesh_is_the_one_through_this_process(found):
    assert found["submesh"][4:7] == [["Shard(dim=1)"], [2, [None, "tp"]], True]


def test_fsdp2_parameters_are_dtensors_sharded_on_dim_0(found):
    assert found["fsdp"] == [["_DTensorParameter", ["Shard(dim=0)"]]] * 2
    assert found["fsdp_state"] is True  # full_tensor() of the state dict: the weights


def test_errors_are_pytorchs(found):
    redistribute, partial, from_dtensor, non_leaf, count, constructor = found["errors"]
    assert redistribute == ["RuntimeError", "placements is needed for redistribute!"]
    assert partial == [
        "RuntimeError",
        "Can not redistribute from Shard(dim=0) to Partial(reduce_op='sum'), redistributing to "
        "Partial is for internal use only!",
    ]
    assert from_dtensor[0] == "RuntimeError" and "only accepts torch.Tensor" in from_dtensor[1]
    assert non_leaf[0] == "RuntimeError" and "non-leaf tensor" in non_leaf[1]
    assert count[0] == "ValueError" and "device_mesh.ndim" in count[1]
    assert constructor[0] == "TypeError" and "DTensor.from_local" in constructor[1]


def test_a_distributed_module_trains_as_the_plain_one(found):
    for kind, is_parameter, _ in found["module"]:
        assert kind == "_DTensorParameter" and is_parameter
    assert [p for _, _, p in found["module"]] == [["Shard(dim=0)"]] + [["Replicate()"]] * 3
    plain, eager, compiled = (found["losses"][i : i + 3] for i in (0, 3, 6))
    assert eager == pytest.approx(plain, rel=1e-5) and compiled == pytest.approx(plain, rel=1e-5)
    assert found["compiled"] == [p for _, _, p in found["module"]]
    assert found["state"] == [["DTensor", ["Shard(dim=0)"]]] * 2  # exp_avg, exp_avg_sq
    assert found["trained"] is True
    assert found["grads"] == [["Shard(dim=0)"]] + [["Replicate()"]] * 3
    assert found["state_dict"] == [["DTensor"] * 4, True, True]


def test_rank_zeros_pieces_are_pytorchs(found, real_torch):
    """PyTorch's DTensor on its fake process group of 4 ranks, as rank 0: the same pieces and
    placements for ops that need no collective."""
    dist = real_torch.distributed
    fake_pg = pytest.importorskip("torch.testing._internal.distributed.fake_pg")
    tensor = pytest.importorskip("torch.distributed.tensor")
    dist.init_process_group("fake", store=fake_pg.FakeStore(), rank=0, world_size=4)
    try:
        mesh = dist.init_device_mesh("cpu", (4,), mesh_dim_names=("tp",))
        x = real_torch.arange(32.0).reshape(8, 4)
        dt = tensor.distribute_tensor(x, mesh, [tensor.Shard(0)], src_data_rank=None)
        piece = real_torch.ones(2, 4, requires_grad=True)
        made = tensor.DTensor.from_local(piece, mesh, [tensor.Shard(0)])
        rows = real_torch.arange(8.0).reshape(8, 1)  # a DTensor: PyTorch refuses mixed ones
        rows = tensor.distribute_tensor(rows, mesh, [tensor.Shard(0)], src_data_rank=None)
        (made * rows).sum().backward()
        theirs = [dt.to_local().tolist(), (dt * 2).to_local().tolist()]
        placements = [repr(p) for p in (dt * 2).placements]
        shape = [list(made.shape), [repr(p) for p in made.placements]]
        grid = dist.init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
        submeshes = [grid["tp"].mesh.tolist(), grid["dp"].mesh.tolist(),
                     grid["dp", "tp"].mesh.tolist(), grid.get_local_rank("tp")]  # fmt: skip
        errors = []
        for call in (lambda: grid["xx"], lambda: grid["tp", "dp"], grid.get_local_rank):
            try:
                call()
            except Exception as e:
                errors.append([type(e).__name__, str(e)])
    finally:
        dist.destroy_process_group()
    assert found["local"] == [*theirs, "Tensor", "Tensor"]
    assert found["placements"][1] == placements
    assert found["from_local"]["shard"][:2] == shape
    assert found["from_local_grad"][0] == piece.grad.tolist()  # rank 0's rows: 0 and 1
    assert found["submesh"][:4] == submeshes
    assert found["submesh"][7:] == errors


def test_a_mesh_spanning_two_processes_gives_each_rank_its_piece(tmp_path):
    """tests/_helpers/dtensor_job.py on two processes: each rank's pieces, gradients and
    `from_local` of its own piece are those PyTorch's `torchrun` gives for the same script (its
    records, written here; the one difference: PyTorch's sum reads `Partial(sum)`, held here
    as its reduced value, `Replicate()`)."""
    assert (
        main(["run", "--nproc", "2", str(HELPERS / "dtensor_job.py"), "--out", str(tmp_path)]) == 0
    )
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in (0, 1)]
    for rank, record in enumerate(ranks):
        rows = [[4.0 * rank + 2 * i + j for j in range(2)] for i in range(2)]
        assert record == {
            "rank": rank,
            "coordinate": [rank],
            "placements": ["Shard(dim=0)", "Replicate()", "Shard(dim=0)"],
            "total": 140.0,
            "local": rows,
            "grad": [[2 * v for v in row] for row in rows],
            "from_local": [[2, 2], [[0.0, 0.0], [1.0, 1.0]], [[float(rank)] * 2]],
            "source": [[0.0, 0.0], [0.0, 0.0]],
            "repr": True,
        }
