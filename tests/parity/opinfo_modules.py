"""Replaying PyTorch's ModuleInfo database (`module_db`) on autograd_compat.

For each ModuleInfo, the first `SAMPLES` inputs of its `module_inputs_func` (float32, requiring
grad, in training mode): PyTorch's module is built from the constructor arguments and
autograd_compat's from the same arguments, PyTorch's parameters and buffers are copied into
it, and the outputs, the input gradients and the parameter gradients of one backward with the
same random cotangent are compared. `python -m tests.parity.opinfo_modules` replays it all.
"""

from __future__ import annotations

from functools import cache

import autograd_compat
from tests._helpers.torch_compare import real_torch
from tests.parity.opinfo_harness import (
    Known,
    Missing,
    Outcome,
    cotangents,
    gradients,
    is_missing,
    main,
    quiet,
    same,
    same_gradients,
    tensors_of,
    translate,
)
from tests.parity.opinfo_known import MODULE_MISSING, MODULE_SKIPS, MODULE_WRONG

SAMPLES = 3


@cache
def module_db() -> list:
    """PyTorch's ModuleInfos (imported once per process)."""
    from torch.testing._internal.common_modules import module_db as database

    return list(database)


def module_inputs(info) -> list:
    """The ModuleInfo's first `SAMPLES` inputs (float32, requiring grad, training), seeded."""
    real_torch.manual_seed(0)
    found = info.module_inputs_func(
        info, device="cpu", dtype=real_torch.float32, requires_grad=True, training=True
    )
    return [m for m in found if m.forward_input is not None][:SAMPLES]


def copy_state(theirs, ours) -> None:
    """Give autograd_compat's module PyTorch's parameter and buffer values, by name."""
    state = theirs.state_dict()
    mine = ours.state_dict()
    if set(state) != set(mine):
        raise AssertionError(f"state_dict keys: torch {sorted(state)}, ours {sorted(mine)}")
    with autograd_compat.no_grad():
        for name, value in mine.items():
            value.copy_(translate(state[name].detach()))


def materialize(theirs, ours, sample) -> None:
    """Lazy modules infer their parameter shapes from a first forward: run one on each module,
    without grad, so the state copy finds parameters of the same shapes."""
    if not isinstance(theirs, real_torch.nn.modules.lazy.LazyModuleMixin):
        return
    args, kwargs = sample.forward_input.args, sample.forward_input.kwargs
    with real_torch.no_grad():
        theirs(*args, **kwargs)
    with autograd_compat.no_grad():
        ours(*translate(args), **translate(kwargs))


def _run_input(info, sample) -> Outcome | None:
    cls = translate(info.module_cls)
    c_args, c_kwargs = sample.constructor_input.args, sample.constructor_input.kwargs
    f_args, f_kwargs = sample.forward_input.args, sample.forward_input.kwargs
    real_torch.manual_seed(0)
    # in the samples' dtype, as PyTorch's module tests build them (buffers given as float64)
    theirs_module = info.module_cls(*c_args, **c_kwargs).to(real_torch.float32)
    ours_module = cls(*translate(c_args), **translate(c_kwargs)).to(autograd_compat.float32)
    materialize(theirs_module, ours_module, sample)
    copy_state(theirs_module, ours_module)
    ours_args, ours_kwargs = translate(f_args), translate(f_kwargs)
    theirs = theirs_module(*f_args, **f_kwargs)
    ours = ours_module(*ours_args, **ours_kwargs)
    differences = same(theirs, ours, "output")
    if differences:
        return Outcome("wrong", f"{sample.desc}: " + "\n".join(differences))
    theirs_out = [t for t in tensors_of(theirs) if t.requires_grad]
    ours_out = [t for t in tensors_of(ours) if t.requires_grad]
    if len(theirs_out) != len(ours_out):
        return Outcome("wrong", f"{sample.desc}: outputs requiring grad differ")
    names = [f"input {i}" for i, t in enumerate(tensors_of((f_args, f_kwargs))) if t.requires_grad]
    t_in = [t for t in tensors_of((f_args, f_kwargs)) if t.requires_grad]
    o_in = [t for t in tensors_of((ours_args, ours_kwargs)) if t.requires_grad]
    params = dict(theirs_module.named_parameters())
    ours_params = dict(ours_module.named_parameters())
    names += list(params)
    t_in += list(params.values())
    o_in += [ours_params[n] for n in params]
    cts = cotangents(theirs_out)
    text = same_gradients(
        gradients(real_torch, theirs_out, t_in, cts),
        gradients(autograd_compat, ours_out, o_in, cts),
        names,
    )
    return Outcome("wrong", f"{sample.desc}: " + "\n".join(text)) if text else None


def replay(info) -> Outcome:
    """Replay one ModuleInfo: "pass", "wrong", "missing" or "error", with what differed."""
    with quiet():
        try:
            translate(info.module_cls)
            for sample in module_inputs(info):
                outcome = _run_input(info, sample)
                if outcome is not None:
                    return outcome
        except Missing as exc:
            return Outcome("missing", str(exc))
        except Exception as exc:  # noqa: BLE001 - every exception is a verdict
            status = "missing" if is_missing(exc) else "error"
            return Outcome(status, f"{type(exc).__name__}: {exc}")
    return Outcome("pass")


KNOWN = Known(MODULE_SKIPS, MODULE_WRONG, MODULE_MISSING)


def module_name(info) -> str:
    return info.name


if __name__ == "__main__":
    main(module_db(), module_name, replay, KNOWN)
