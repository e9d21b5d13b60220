"""The public functions whose PyTorch signature takes `out=`, each with a call PyTorch accepts,
and how autograd_compat treats `out=` in that call: writes it, ignores it, or raises.

Real PyTorch is the oracle: a function takes `out` when its docstring or signature names it,
and its call is the first candidate argument list PyTorch runs (with and without `out=`).
Run `python -m tests.ops.out_survey` (PYTHONPATH at the repository) for the counts and the
functions that do not write `out`.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import sys
import warnings

import numpy as np

MODULES = ("", "linalg", "fft", "special", "nn.functional")
# results that are random or uninitialised: their values are not compared
UNCOMPARED = frozenset("bernoulli empty multinomial normal rand randint randn randperm".split())


def _arrays() -> dict[str, np.ndarray]:
    """Named inputs the candidate calls share (positive, in (0.1, 0.9), so that every domain
    holds; a well-conditioned symmetric positive definite square matrix)."""
    rng = np.random.default_rng(0)
    m = rng.uniform(0.1, 0.9, (3, 3))
    return {
        "x": rng.uniform(0.1, 0.9, (3, 4)),
        "y": rng.uniform(0.1, 0.9, (3, 4)),
        "z": rng.uniform(0.1, 0.9, (3, 4)),
        "v": rng.uniform(0.1, 0.9, (4,)),
        "w": rng.uniform(0.1, 0.9, (4,)),
        "m": m @ m.T + 3 * np.eye(3),
        "n": rng.uniform(0.1, 0.9, (3, 3)),
        "b": rng.uniform(0.1, 0.9, (2, 3, 3)),
        "i": np.array([[0, 2, 1, 0]] * 3, dtype=np.int64),
        "k": np.array([3, 1, 2, 0], dtype=np.int64),
        "p": np.array([True, False, True, False]),
        "s": np.array([0.2, 0.4, 0.6]),
    }


# candidate argument lists: names of `_arrays`, or Python values; a list is a list of tensors
CANDIDATES: tuple[tuple, ...] = (
    ("x",),
    ("x", "y"),
    ("x", 1),
    ("m",),
    ("m", "n"),
    ("x", "y", "z"),
    ("x", "y", 0.5),
    ("x", 0.5),
    ("x", 2),
    ("v",),
    ("v", "w"),
    ("m", "s"),
    ("n", "m", "n"),
    ("m", "m", "m"),
    ("b", "b"),
    ("m", "b", "b"),
    ("x", 1, "i"),
    ("x", 1, "k"),
    ("v", "p"),
    ("p", "v", "w"),
    ("s", "v"),
    (["x", "y"],),
    (["m", "n"],),
    (["m", "n", "m"],),
    ((3, 4),),
    ((3, 4), 0.5),
    (3, 4),
    (4,),
    (0.0, 1.0, 5),
    (5, 0.5),
    (3,),
    ("x", 2, 1),
    ("x", "y", 1),
    ("k", 5),
    ("v", 2),
    ("x", 3, 1),
    ("s", "x", "v"),
    ("k",),
    ("k", "k"),
    ("m", 3),
    ("x", 1, 0, 2),
    (1, "x"),
    (5, (3,)),
    ("x", 2, 0, 1.0),
    ("x", "i", 1),
)


@dataclasses.dataclass(frozen=True)
class OutCall:
    """One function taking `out=` (`module` relative to torch, "" for torch itself), the
    arguments of a call PyTorch runs, and whether its result's values are comparable."""

    module: str
    name: str
    args: tuple
    compared: bool

    @property
    def qualname(self) -> str:
        return ".".join(p for p in ("torch", self.module, self.name) if p)


def namespace(lib, module: str):
    """`lib.<module>` for a dotted module name ("" is lib itself)."""
    for part in filter(None, module.split(".")):
        lib = getattr(lib, part)
    return lib


def takes_out(fn) -> bool:
    """Whether PyTorch's documentation or signature of `fn` names an `out` argument."""
    doc = fn.__doc__ or ""
    if re.search(r"\bout=None|\bout \(", doc):
        return True
    try:
        return "out" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def build(lib, arg, arrays: dict):
    """One candidate argument as `lib`'s value: a tensor, a list of tensors, or the value."""
    if isinstance(arg, list):
        return [build(lib, a, arrays) for a in arg]
    if isinstance(arg, str):
        return lib.tensor(arrays[arg])
    return arg


def empty_like_result(lib, result, fill: float = 7.0):
    """A tensor (or tuple of them) of the result's shapes and dtypes holding `fill`."""
    if isinstance(result, tuple):
        return tuple(empty_like_result(lib, r, fill) for r in result)
    dtype = getattr(lib, str(result.dtype).rpartition(".")[2])
    return lib.full(tuple(result.shape), fill, dtype=dtype)


def _runs_with_out(torch, fn, args) -> bool:
    """Whether PyTorch runs `fn(*args)` and then `fn(*args, out=...)` of its result's kind."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn(*args)
            if not isinstance(result, (torch.Tensor, tuple)):
                return False
            if isinstance(result, tuple) and not all(isinstance(r, torch.Tensor) for r in result):
                return False
            fn(
                *args,
                out=empty_like_result(
                    torch, tuple(result) if isinstance(result, tuple) else result
                ),
            )
            return True
    except Exception:  # noqa: BLE001 (any refusal rules the candidate out)
        return False


def survey_calls(torch) -> list[OutCall]:
    """Every public function of `MODULES` taking `out=`, with the first candidate call PyTorch
    runs with `out=` (functions no candidate reaches are left out)."""
    arrays = _arrays()
    calls = []
    for module in MODULES:
        space = namespace(torch, module)
        for name in sorted(dir(space)):
            fn = getattr(space, name)
            if name.startswith("_") or isinstance(fn, type) or not callable(fn):
                continue
            if not takes_out(fn):
                continue
            for candidate in CANDIDATES:
                args = tuple(build(torch, a, arrays) for a in candidate)
                if _runs_with_out(torch, fn, args):
                    calls.append(OutCall(module, name, candidate, name not in UNCOMPARED))
                    break
    return calls


def _as_tuple(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def classify(torch, ours, call: OutCall) -> str:
    """How `ours` treats `out=` in `call`: "writes", "ignores" (returns, `out` wrong or not
    returned), "raises: <error>" or "missing" (no such function).

    `out` must end with PyTorch's shapes and dtypes and the values of our own out-of-place
    call (the op's values against PyTorch's are the op table's check; eigenvectors' signs,
    say, may differ)."""
    arrays = _arrays()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = getattr(namespace(torch, call.module), call.name)(
            *(build(torch, a, arrays) for a in call.args)
        )
    fn = getattr(namespace(ours, call.module), call.name, None)
    if fn is None:
        return "missing"
    outs = empty_like_result(ours, tuple(expected) if isinstance(expected, tuple) else expected)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            returned = fn(*(build(ours, a, arrays) for a in call.args), out=outs)
            own = fn(*(build(ours, a, arrays) for a in call.args))
    except Exception as error:  # noqa: BLE001 (the survey reports every refusal)
        return f"raises: {type(error).__name__}: {str(error)[:80]}"
    if returned is not outs and not (
        isinstance(returned, tuple)
        and len(returned) == len(outs)
        and all(r is o for r, o in zip(returned, outs, strict=False))
    ):
        return "ignores"
    for got, want, value in zip(_as_tuple(outs), _as_tuple(expected), _as_tuple(own), strict=True):
        if tuple(got.shape) != tuple(want.shape) or str(got.dtype) != str(want.dtype):
            return "ignores"
        if call.compared and not np.array_equal(
            got.detach().numpy(), value.detach().numpy(), equal_nan=True
        ):
            return "ignores"
    return "writes"


def main() -> None:
    """Print the counts and every function that does not write `out`."""
    import torch  # real PyTorch, the oracle

    import autograd_compat as ours

    calls = survey_calls(torch)
    counts: dict[str, int] = {}
    for call in calls:
        kind = classify(torch, ours, call)
        counts[kind.split(":")[0]] = counts.get(kind.split(":")[0], 0) + 1
        if kind != "writes":
            print(f"{call.qualname}{call.args}: {kind}")
    print(f"{len(calls)} calls: {counts}", file=sys.stderr)


if __name__ == "__main__":
    main()
