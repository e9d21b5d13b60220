"""`torch.multiprocessing.spawn` launches an unchanged two-process DDP script (its processes
form a `jax.distributed` group under the alias), against real PyTorch."""


def test_spawned_ddp_step(both):
    ours = both("ddp_spawn.py", ".", rtol=1e-5, atol=1e-6)
    assert ours["ranks_agree"] is True
