"""Replaying PyTorch's OpInfo database (`op_db`) on autograd_compat: one test per OpInfo.

For each OpInfo, its first `SAMPLES` sample inputs (float32 where the op supports it, else its
first supported dtype; requiring grad where the op supports autograd) run through the OpInfo's
own callable on PyTorch and through autograd_compat's function of the same name (the
database's lambdas run with `torch` bound to autograd_compat); the outputs are compared, then
the gradients of every input requiring grad, from one backward with the same random
cotangent. `python -m tests.parity.opinfo_ops` replays the whole database and prints the count
of each outcome.
"""

from __future__ import annotations

import itertools
from functools import cache

import autograd_compat
from tests._helpers.torch_compare import real_torch
from tests.parity.opinfo_harness import (
    Known,
    Missing,
    Outcome,
    attribute_path,
    cotangents,
    gradients,
    is_missing,
    main,
    params,
    quiet,
    same,
    same_gradients,
    tensors_of,
    translate,
)
from tests.parity.opinfo_known import OP_MISSING, OP_SKIPS, OP_UNDEFINED_VALUES, OP_WRONG

SAMPLES = 3
SEED = 0  # both generators are seeded alike before each call: random ops draw PyTorch's numbers


@cache
def op_db() -> list:
    """PyTorch's OpInfos (importing the database takes a few seconds: once per process)."""
    from torch.testing._internal.common_methods_invocations import op_db as database

    return list(database)


def op_id(op) -> str:
    """The OpInfo's test name: its name, and its variant after a dot."""
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def sample_dtype(op):
    """float32 where the op supports it, else the first of its dtypes in a fixed order."""
    supported = op.supported_dtypes("cpu")
    torch = real_torch
    order = (torch.float32, torch.int64, torch.bool, torch.complex64, torch.float64, torch.uint8)
    return next((d for d in order if d in supported), None)


def samples(op, dtype, requires_grad: bool) -> list:
    """The OpInfo's first `SAMPLES` sample inputs, from a fixed seed."""
    real_torch.manual_seed(0)
    found = op.sample_inputs("cpu", dtype, requires_grad=requires_grad)
    return list(itertools.islice(found, SAMPLES))


def our_callable(op):
    """autograd_compat's op: the counterpart of the OpInfo's callable, else the function at
    the OpInfo's name (PyTorch's F.logsigmoid is the builtin log_sigmoid)."""
    try:
        return translate(op.op)
    except Missing:
        return attribute_path(autograd_compat, op.name)


def _outputs_requiring_grad(out) -> list:
    return [t for t in tensors_of(out) if t.requires_grad]


def _wrapped(op, fn, args, kwargs):
    """The op's result through its `gradcheck_wrapper` (which makes an input hermitian, say,
    so the gradient is that of the function the op's derivative is defined for)."""
    wrapper = op.gradcheck_wrapper
    if fn is op.op:
        return wrapper(fn, *args, **kwargs)
    return translate(wrapper)(fn, *args, **kwargs)


def _check_gradients(op, fn, sample, calls) -> str:
    """The gradient differences of one sample ("" when equal or not applicable)."""
    (args, kwargs), (ours_args, ours_kwargs) = calls
    t_in = [t for t in tensors_of((args, kwargs)) if t.requires_grad]
    o_in = [t for t in tensors_of((ours_args, ours_kwargs)) if t.requires_grad]
    real_torch.manual_seed(SEED)
    theirs = _wrapped(op, op.op, args, kwargs)
    autograd_compat.manual_seed(SEED)
    ours = _wrapped(op, fn, ours_args, ours_kwargs)
    theirs_out = _outputs_requiring_grad(sample.output_process_fn_grad(theirs))
    if not theirs_out or not t_in:
        return ""
    ours_out = _outputs_requiring_grad(translate(sample.output_process_fn_grad)(ours))
    if len(ours_out) != len(theirs_out):
        return f"outputs requiring grad: torch {len(theirs_out)}, ours {len(ours_out)}"
    cts = cotangents(theirs_out)
    try:
        g_theirs = gradients(real_torch, theirs_out, t_in, cts)
    except RuntimeError:  # PyTorch itself has no derivative of this sample
        return ""
    g_ours = gradients(autograd_compat, ours_out, o_in, cts)
    return "\n".join(same_gradients(g_theirs, g_ours, [str(i) for i in range(len(t_in))]))


def _run_sample(op, fn, sample, grads: bool) -> Outcome | None:
    """The outcome of one sample; None when it passes or PyTorch itself rejects it."""
    args, kwargs = (sample.input, *sample.args), sample.kwargs
    try:
        ours_args, ours_kwargs = translate(args), translate(kwargs)
    except Exception as exc:  # noqa: BLE001 - a value of a kind autograd_compat lacks
        return Outcome("missing" if is_missing(exc) else "error", f"inputs: {exc!r}")
    try:
        real_torch.manual_seed(SEED)
        theirs = op.op(*args, **kwargs)
    except Exception:  # noqa: BLE001 - a sample PyTorch rejects on this build says nothing
        return None
    try:
        autograd_compat.manual_seed(SEED)
        ours = fn(*ours_args, **ours_kwargs)
    except Exception as exc:  # noqa: BLE001 - every exception is a verdict
        status = "missing" if is_missing(exc) else "error"
        return Outcome(status, f"{sample.summary()} {type(exc).__name__}: {exc}")
    if op_id(op) in OP_UNDEFINED_VALUES:
        theirs_meta = [(tuple(t.shape), str(t.dtype)) for t in tensors_of(theirs)]
        ours_meta = [(tuple(t.shape), str(t.dtype)) for t in tensors_of(ours)]
        if theirs_meta != ours_meta:
            return Outcome("wrong", f"shapes/dtypes torch {theirs_meta}, ours {ours_meta}")
        return None
    differences = same(theirs, ours, "output")
    if differences:
        return Outcome("wrong", f"{sample!r:.300}\n" + "\n".join(differences))
    if grads:
        calls = ((args, kwargs), (ours_args, ours_kwargs))
        try:
            text = _check_gradients(op, fn, sample, calls)
        except Exception as exc:  # noqa: BLE001 - every exception is a verdict
            status = "missing" if is_missing(exc) else "error"
            return Outcome(status, f"backward: {type(exc).__name__}: {exc}")
        if text:
            return Outcome("wrong", f"{sample!r:.300}\n{text}")
    return None


def replay(op) -> Outcome:
    """Replay one OpInfo: "pass", "wrong", "missing" or "error", with what differed."""
    dtype = sample_dtype(op)
    if dtype is None:
        return Outcome("skipped", "no CPU dtype")
    try:
        fn = our_callable(op)
    except Exception as exc:  # noqa: BLE001
        return Outcome("missing" if is_missing(exc) else "error", repr(exc))
    grads = op.supports_autograd and (dtype.is_floating_point or dtype.is_complex)
    with quiet():
        for sample in samples(op, dtype, grads):
            outcome = _run_sample(op, fn, sample, grads)
            if outcome is not None:
                return outcome
    return Outcome("pass")


KNOWN = Known(OP_SKIPS, OP_WRONG, OP_MISSING)


def shard(index: int, count: int) -> list:
    """pytest params of every `count`-th OpInfo from `index` (test files split the database
    so that pytest-xdist's --dist loadfile spreads it over workers)."""
    return params(lambda: op_db()[index::count], op_id, KNOWN)


if __name__ == "__main__":
    main(op_db(), op_id, replay, KNOWN)
