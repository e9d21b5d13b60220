"""Replaying PyTorch's OptimizerInfo database (`optim_db`) on autograd_compat.

For each OptimizerInfo, every configuration of its `optim_inputs_func` runs `STEPS` steps on
the same parameters (a 4x3 weight and a 4-vector bias; the weight alone for optimizers of
matrices only) minimizing the same least-squares loss, through a closure (LBFGS needs one);
the parameters after each step are compared. `python -m tests.parity.opinfo_optimizers`
replays it all.
"""

from __future__ import annotations

from functools import cache

import numpy as np

import autograd_compat
from tests._helpers.torch_compare import real_torch, uniform
from tests.parity.opinfo_harness import (
    FORWARD_TOLERANCE,
    Known,
    Missing,
    Outcome,
    is_missing,
    main,
    quiet,
    same,
    translate,
)
from tests.parity.opinfo_known import OPTIM_MISSING, OPTIM_SKIPS, OPTIM_WRONG

STEPS = 3
# LBFGS stops where the loss changes by less than 1e-9: on this loss's flat valley two runs
# whose float32 line searches round apart (one more evaluation, one iteration more or less:
# PyTorch's own kernels round differently on another CPU) stop ~5e-5 apart, at equal losses.
TOLERANCES = {"LBFGS": uniform(1e-4, 1e-4)}
RNG = np.random.default_rng(5)
WEIGHT, BIAS = RNG.standard_normal((4, 3)), RNG.standard_normal(4)
X, Y = RNG.standard_normal((6, 3)), RNG.standard_normal((6, 4))


@cache
def optim_db() -> list:
    """PyTorch's OptimizerInfos (imported once per process)."""
    from torch.testing._internal.common_optimizers import optim_db as database

    return list(database)


def optim_name(info) -> str:
    return info.name


def _trajectory(lib, cls, kwargs, with_bias: bool) -> list:
    """The parameters after each of `STEPS` steps of `cls(params, **kwargs)` on one loss."""
    params = [lib.tensor(WEIGHT, dtype=lib.float32, requires_grad=True)]
    if with_bias:
        params.append(lib.tensor(BIAS, dtype=lib.float32, requires_grad=True))
    x, y = lib.tensor(X, dtype=lib.float32), lib.tensor(Y, dtype=lib.float32)
    optimizer = cls(params, **kwargs)

    def closure():
        optimizer.zero_grad()
        out = x @ params[0].T + (params[1] if with_bias else 0)
        loss = ((out - y) ** 2).mean()
        loss.backward()
        return loss

    steps = []
    for _ in range(STEPS):
        optimizer.step(closure)
        steps.append([p.detach().clone() for p in params])
    return steps


def _run_config(info, config) -> Outcome | None:
    cls = translate(info.optim_cls)
    with_bias = True
    try:
        theirs = _trajectory(real_torch, info.optim_cls, config.kwargs, with_bias)
    except ValueError:  # an optimizer of matrices only (Muon)
        with_bias = False
        theirs = _trajectory(real_torch, info.optim_cls, config.kwargs, with_bias)
    ours = _trajectory(autograd_compat, cls, translate(config.kwargs), with_bias)
    tolerance = TOLERANCES.get(info.name, FORWARD_TOLERANCE)
    differences = same(theirs, ours, "params after each step", tolerance)
    return Outcome("wrong", f"{config.desc}: " + "\n".join(differences)) if differences else None


def replay(info) -> Outcome:
    """Replay one OptimizerInfo: "pass", "wrong", "missing" or "error", with what differed."""
    with quiet():
        try:
            translate(info.optim_cls)
            for config in info.optim_inputs_func(device="cpu"):
                outcome = _run_config(info, config)
                if outcome is not None:
                    return outcome
        except Missing as exc:
            return Outcome("missing", str(exc))
        except Exception as exc:  # noqa: BLE001 - every exception is a verdict
            status = "missing" if is_missing(exc) else "error"
            return Outcome(status, f"{type(exc).__name__}: {exc}")
    return Outcome("pass")


KNOWN = Known(OPTIM_SKIPS, OPTIM_WRONG, OPTIM_MISSING)

if __name__ == "__main__":
    main(optim_db(), optim_name, replay, KNOWN)
