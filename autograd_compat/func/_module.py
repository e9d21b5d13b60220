"""torch.func's module helpers: call a module with other parameters and buffers
(`functional_call`), stack the state of several modules for vmap (`stack_module_state`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from .._ops.shape import stack
from .._state.tensor import Tensor
from ..nn.modules.module import Module

__all__ = ["functional_call", "stack_module_state"]

_MISSING = object()


def functional_call(
    module: Module,
    parameter_and_buffer_dicts: dict[str, Any] | Sequence[dict[str, Any]],
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
):
    """Call `module` with its parameters and buffers replaced by the given tensors (by
    dotted name), which the module then reads for this call only; under grad or vmap the
    given tensors are what is differentiated or mapped over.

    Args:
        module (nn.Module): the module to call.
        parameter_and_buffer_dicts (dict or tuple of dicts): name -> tensor.
        args (Any or tuple): positional arguments (a single one need not be a tuple).
        kwargs (dict, optional): keyword arguments.
        tie_weights (bool): a tensor given for one of tied names replaces all of them.
        strict (bool): the names must be exactly the module's parameters and buffers.

    Returns:
        The module's output.

    Example::

        >>> lin = torch.nn.Linear(2, 1)
        >>> params = {"weight": torch.ones(1, 2), "bias": torch.zeros(1)}
        >>> torch.func.functional_call(lin, params, torch.tensor([[1.0, 2.0]]))
        tensor([[3.]])
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        given = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError(
                "Expected all elements of parameter_and_buffer_dicts to be dictionaries"
            )
        counts: dict[str, int] = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(
                f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
                "ambiguous"
            )
        given = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but "
            f"got {type(parameter_and_buffer_dicts)}"
        )
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrized(module, given, tie_weights, strict):
        return module(*args, **kwargs)


def _named_tensors(module: Module) -> dict[str, Tensor]:
    """Every parameter and buffer of `module` by name, tied names included."""
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    return named


def _untied(module: Module, given: dict[str, Any]) -> dict[str, Any]:
    """`given` with each tensor also under the names tied to its name in `module`."""
    names_of: dict[int, set[str]] = {}
    for name, tensor in _named_tensors(module).items():
        names_of.setdefault(id(tensor), set()).add(name)
    tied = {name: names for names in names_of.values() if len(names) > 1 for name in names}
    given_tied = [name for name in given if name in tied]
    for name in given_tied:
        names = tied[name]
        values = {id(given[n]) for n in names if n in given}
        if len(values) > 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(names)}, which are tied. "
                "Consider using tie_weights=False"
            )
    untied = dict(given)
    for name in given_tied:
        for other in tied[name]:
            untied[other] = given[name]
    return untied


def _check_keys(module: Module, names: dict[str, Any]) -> None:
    expected = _named_tensors(module)
    unexpected = [k for k in names if k not in expected]
    missing = sorted(k for k in expected if k not in names)
    messages = []
    if unexpected:
        messages.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        messages.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if messages:
        details = "\n\t".join(messages)
        raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t{details}")


def _swap(module: Module, name: str, value: Any) -> Any:
    """Put `value` under the dotted `name` (a parameter, buffer or plain attribute); return
    what was there (`_MISSING` for nothing)."""
    owner_name, _, attr = name.rpartition(".")
    owner = module.get_submodule(owner_name) if owner_name else module
    for registry in (owner._parameters, owner._buffers):
        if attr in registry:
            previous = registry[attr]
            registry[attr] = value
            return previous
    previous = vars(owner).get(attr, _MISSING)
    if value is _MISSING:
        delattr(owner, attr)
    else:
        object.__setattr__(owner, attr, value)
    return previous


@contextlib.contextmanager
def _reparametrized(
    module: Module, given: dict[str, Any], tie_weights: bool, strict: bool
) -> Iterator[None]:
    """`module` reading `given` for the duration; what the call wrote under those names is
    written back into `given`, as PyTorch does."""
    names = _untied(module, given) if tie_weights else given
    if strict:
        _check_keys(module, names)
    originals: dict[str, Any] = {}
    try:
        for name, value in names.items():
            originals[name] = _swap(module, name, value)
        yield
    finally:
        current = {name: _swap(module, name, value) for name, value in originals.items()}
        given.update({k: current[k] for k in given if k in current})


def stack_module_state(models: Sequence[Module]) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """The parameters and buffers of same-class modules stacked along a new first dimension,
    by name, for `vmap` over `functional_call`. Stacked parameters are new leaves (they
    require grad when the originals do).

    Example::

        >>> models = [torch.nn.Linear(3, 2) for _ in range(4)]
        >>> params, buffers = torch.func.stack_module_state(models)
        >>> params["weight"].shape
        torch.Size([4, 2, 3])
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers


def _stacked_leaf(tensors: list[Tensor], name: str) -> Tensor:
    requires = [t.requires_grad for t in tensors]
    if any(requires) and not all(requires):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    if all(requires):
        result = result.detach().requires_grad_()
    return result
