"""Checks that need several devices, run in one subprocess with 8 simulated CPU devices.

JAX fixes its device count when it starts, so a test module runs its checks as one script
(`XLA_FLAGS=--xla_force_host_platform_device_count=8`) that prints its findings as JSON.
`PRELUDE`, put before each script, gives it `spec(t)` (a tensor's layout as [device count,
PartitionSpec entries]) and `train(net, model, compiled)` (10 Adam steps of a model whose
inputs are 16x4 batches) and `runs` (every wrapper, eager and compiled), shared by
tests/distributed/test_distributed.py and tests/distributed/test_fsdp.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

PRELUDE = textwrap.dedent(
    """
    import io, json, os
    import numpy as np
    import autograd_compat as torch
    import autograd_compat.distributed as dist

    def spec(t):
        s = t._value.sharding
        entries = getattr(s, "spec", ())  # a SingleDeviceSharding has none
        return [len(s.device_set), [list(e) if isinstance(e, tuple) else e for e in entries]]

    def train(net, model, compiled):
        \"\"\"10 Adam steps of `model` (`net` wrapped, or `net`): losses, `net`'s parameters
        and the layouts of each parameter, its .grad and its exp_avg.\"\"\"
        opt = torch.optim.Adam(model.parameters(), lr=0.01)

        def step(x, y):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            return loss

        if compiled:
            step = torch.compile(step)
        g = torch.Generator().manual_seed(1)
        losses = []
        for _ in range(10):
            x, y = torch.randn(16, 4, generator=g), torch.randn(16, 1, generator=g)
            losses.append(step(x, y).item())
        params = list(net.parameters())
        return {
            "losses": losses,
            "params": [p.detach().numpy().tolist() for p in params],
            "shardings": [[spec(p), spec(p.grad), spec(opt.state[p]["exp_avg"])]
                          for p in params],
        }

    def runs(trained, wrappers):
        \"\"\"`trained(wrap, compiled)` for each wrapper name, eager and compiled, after
        starting the process group (world size 1).\"\"\"
        os.environ.update(RANK="0", WORLD_SIZE="1")
        dist.init_process_group("gloo")
        return {f"{w} {c}": trained(w, c) for w in wrappers for c in (False, True)}
    """
)


def run_script(script: str) -> dict:
    """The JSON object that `PRELUDE` + `script` prints last, run with 8 CPU devices."""
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8")
    done = subprocess.run(
        [sys.executable, "-c", PRELUDE + textwrap.dedent(script)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
