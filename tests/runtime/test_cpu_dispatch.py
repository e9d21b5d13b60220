"""XLA:CPU programs run on the calling thread by default (`_pure/cpu_dispatch`), and
`AUTOGRAD_COMPAT_CPU_ASYNC=1` keeps JAX's asynchronous dispatch.

JAX reads the setting when its CPU backend starts, so each case runs in a fresh process. What
shows the difference: a result that is ready the moment the call returns (a program run
inline) against one still being computed by a worker thread."""

from __future__ import annotations

import textwrap

import pytest

from tests._helpers.fresh_process import run_json

# A matrix product long enough (tens of ms) that an asynchronous call returns before it ends.
SCRIPT = textwrap.dedent(
    """
    import json
    import jax
    import autograd_compat as torch
    a = torch.ones(1500, 1500)
    (a @ a).sum().item()  # compiled, warm
    ready = []
    for _ in range(3):
        out = a @ a
        ready.append(out._value.is_ready())
    print(json.dumps({
        "setting": jax.config.values["jax_cpu_enable_async_dispatch"],
        "ready": ready,
        "value": (a @ a)[0, 0].item(),
    }))
    """
)


def _run(env_value: str | None) -> dict:
    return run_json(SCRIPT, "AUTOGRAD_COMPAT_CPU_ASYNC", env_value)


def test_programs_run_inline_by_default():
    result = _run(None)
    assert result["setting"] is False
    assert all(result["ready"])  # computed before the call returned
    assert result["value"] == 1500.0


@pytest.mark.parametrize("value", ["1", "true"])
def test_env_keeps_async_dispatch(value):
    result = _run(value)
    assert result["setting"] is True
    assert not all(result["ready"])  # at least one call returned while its program ran
    assert result["value"] == 1500.0
