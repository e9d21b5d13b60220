"""torch.optim.Optimizer: param_groups, state, zero_grad, state_dict, and the jitted step.

A subclass supplies a pure rule for one parameter (see `_rules.py`), which `_rules.jit_update`
turns into `_update` over tuples of arrays. `step()` runs it once per param group through
`jax.jit`: hyperparameters (lr, betas, ...) are a float64 array input, so changing the learning
rate (a scheduler) does not recompile, and only switches (maximize, the kind of weight decay,
momentum on/off, nesterov, amsgrad) are static. All state lives in `self.state` as Tensors (what
`state_dict()` returns), so a training step can be lifted into a pure function of (params,
grads, state, hyper). `check_arguments`, `Optimizer._defaults` and `new_state` are the
constructor and first-step pieces every optimizer shares.
"""

from __future__ import annotations

import copy
import sys
import warnings
from collections import OrderedDict, defaultdict
from itertools import chain

import numpy as np

from .._pure import dtypes as _dtypes
from .._pure import memory as _memory
from .._pure.interrupts import call_through_interrupt
from .._pure.jax_internals import ArrayImpl
from .._pure.references import CALL_REFERENCES
from .._state import modes as _grad_mode
from .._state.modes import modes
from .._state.node import RemovableHandle
from .._state.tensor import Tensor
from .._tape.backward import clear_grad
from ..nn import _arrays
from ._rules import JitUpdate

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _scalar(value):
    """A Python number for a hyperparameter given as a number or a one-element tensor."""
    if isinstance(value, Tensor):
        return value.item()
    return value


def _typename(obj) -> str:
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "")
    name = type(obj).__qualname__
    return name if module in ("builtins", "") else f"{module}.{name}"


def check_arguments(*, nan_ok: bool = False, positive: bool = False, **values) -> None:
    """PyTorch's checks of an optimizer's arguments, in the order given, with its messages:
    a Tensor `lr` has one element (`Tensor lr must be 1-element`), each of `betas` lies in
    [0, 1) (`Invalid beta parameter at index 0: 1.0`), and every other value is not negative
    (`Invalid learning rate: -1.0`, `Invalid epsilon value: ...`, `Invalid <name> value: ...`).

    The test is `not 0.0 <= value`, which NaN fails; `nan_ok=True` is SGD's `value < 0.0`,
    which NaN passes, and `positive=True` SparseAdam's `not 0.0 < value`.
    """
    for name, value in values.items():
        if name == "betas":
            for index in (0, 1):
                if not 0.0 <= value[index] < 1.0:
                    raise ValueError(f"Invalid beta parameter at index {index}: {value[index]}")
            continue
        if name == "lr" and isinstance(value, Tensor) and value.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if value < 0.0 if nan_ok else not (0.0 < value if positive else 0.0 <= value):
            what = {"lr": "learning rate", "eps": "epsilon value"}.get(name, f"{name} value")
            if isinstance(value, Tensor) and value.dim() == 0:
                value = value.item()  # as a 0-dim torch.Tensor formats in PyTorch's f-string
            raise ValueError(f"Invalid {what}: {value}")


def _memory_holders(tensor: Tensor, value) -> int:
    """How many references to `value`, the tensor's value, its memory keeps (its own slot, or
    its buffer's: `views.Buffer.holders`)."""
    rec = tensor._storage
    return 1 if rec is None else rec.buffer.holders(value)


def _donatable(tensors: list, values: tuple, containers: int) -> bool:
    """Whether nothing but its tensor's memory and the caller's `containers` tuples holds each
    of `values` (device arrays, not tracers), so an update may donate them: a saved value of a
    kept graph, a `detach()` the user holds or a raw array would be left deleted."""
    return all(
        type(values[i]) is ArrayImpl
        # holders: the memory's own and the containers (`_pure/references`)
        and sys.getrefcount(values[i])
        <= CALL_REFERENCES + containers + _memory_holders(tensors[i], values[i])
        for i in range(len(values))
    )


def _write_update(params, versions, new_params, states, keys, new_states) -> None:
    """Write an update's results into the parameters and their state (a big update that does
    not fit fails first, before anything is changed). Run again after an interruption, it
    writes the same: the versions are set, not bumped."""
    if any(p._stored.size > _memory.BLOCK_ELEMENTS for p in params):
        _memory.settle_all(new_params)
        for values in new_states:
            _memory.settle_all(values)
    for p, version, value in zip(params, versions, new_params):
        p._set_value(value)
        p._version_counter[0] = version + 1
    for state, values in zip(states, new_states):
        for key, value in zip(keys, values):
            if value is None:
                continue
            current = state.get(key)
            if current is None:
                state[key] = Tensor._wrap(value)
            else:
                current._set_value(value)


class Optimizer:
    """Base class for optimizers.

    Args:
        params (iterable): Tensors to optimize, or dicts defining parameter groups (each
            with "params" and optional per-group hyperparameters).
        defaults (dict): default hyperparameters for groups that do not set them.
    """

    _state_keys: tuple = ()  # the update rule's per-parameter state, in its order
    _hyper_keys: tuple = ()  # the group entries that make `hyper`, in its order (tuples flatten)
    _group_keys: str = ""  # the entries of `defaults`, space-separated, in PyTorch's order

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()  # (a handle refers to it
        # weakly, as PyTorch's does: a plain dict takes no weak reference)
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {_typename(params)}"
            )
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(dict(param_group))

    def _defaults(self, arguments: dict, **converted) -> dict:
        """The `defaults` of a subclass: each of its `_group_keys` (the order of PyTorch's, so
        of the param groups' keys) taken from its `__init__`'s `locals()`, or from `converted`
        for an argument kept in another form (a Tensor lr as a number)."""
        return {key: arguments[key] for key in self._group_keys.split()} | converted

    def __getstate__(self) -> dict:
        return {
            "defaults": self.defaults,
            "state": self.state,
            "param_groups": self.param_groups,
        }

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict())

    def __repr__(self) -> str:
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    # ------------------------------------------------------------------ groups
    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters (with its own hyperparameters) to optimize."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) == len(tensors):
                param_group["param_names"] = names
            else:
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are "
                    "missing"
                )
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + _typename(param)
                )
            if not self.defaults.get("differentiable", None) and not (
                param.is_leaf or param.retains_grad
            ):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization parameter "
                    f"{name}"
                )
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this "
                "will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                stacklevel=3,
            )
        seen: set = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                text = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. cannot add param "
                    f"group {text} to the optimizer"
                )
        if not seen.isdisjoint(id(p) for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ------------------------------------------------------------------ grads
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all optimized tensors (to None by default)."""
        for group in self.param_groups:
            for p in group["params"]:
                clear_grad(p, set_to_none)

    # ------------------------------------------------------------------ state dict
    def state_dict(self) -> dict:
        """{'state': {index: {name: tensor}}, 'param_groups': [{..., 'params': [indices]}]}.

        Parameters are replaced by their index in the order of the groups, as PyTorch does.
        """
        param_mappings: dict = {}
        start_index = 0

        def pack_group(group: dict) -> dict:
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update(
                {
                    id(p): i
                    for i, p in enumerate(group["params"], start_index)
                    if id(p) not in param_mappings
                }
            )
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {
            (param_mappings[id(k)] if isinstance(k, Tensor) else k): v
            for k, v in self.state.items()
        }
        return {"state": packed_state, "param_groups": param_groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a state dict from `state_dict()` (of an optimizer with the same groups)."""
        state_dict = dict(state_dict)
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        )

        def cast(param, value, key=None):
            if isinstance(value, Tensor):
                if key == "step":
                    return value
                if param.is_floating_point():
                    return value.to(dtype=param.dtype)
                return value
            if isinstance(value, dict):
                return {k: cast(param, v, key=k) for k, v in value.items()}
            return value

        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v)
            else:
                state[k] = v

        def update_group(group: dict, new_group: dict) -> dict:
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})

    # ------------------------------------------------------------------ hooks
    def register_step_pre_hook(self, hook):
        """Run `hook(optimizer, args, kwargs)` before each step."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        """Run `hook(optimizer, args, kwargs)` after each step."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    # ------------------------------------------------------------------ step
    def _init_state(self, param: Tensor, group: dict, state: dict) -> None:
        """Create this optimizer's state for `param` on its first step (subclasses)."""

    def _hyper(self, group: dict) -> np.ndarray:
        """The group's `_hyper_keys` values, as one float64 array (a jit input)."""
        values: list = []
        for key in self._hyper_keys:
            value = group[key]
            values.extend(value if isinstance(value, (tuple, list)) else (value,))
        return np.array([_scalar(v) for v in values], dtype=np.float64)

    def _flags(self, group: dict) -> tuple:
        """The group's switches that change the update's structure (static for jit): first how
        weight decay applies (see `_rules.decay`); subclasses add their own after it."""
        if group.get("weight_decay", 0) == 0:
            return (None,)
        decoupled = "decoupled_weight_decay" in self.defaults and group.get(
            "decoupled_weight_decay", False
        )
        return ("decoupled" if decoupled else "l2",)

    def _has_state(self, group: dict) -> bool:
        """Whether the group's parameters keep state (SGD without momentum keeps none)."""
        return True

    _update: JitUpdate  # the jitted pure update of the subclass (_rules.jit_update)

    def _step_group(self, group: dict) -> None:
        """One call of the jitted update for the group's parameters that have a gradient."""
        params = [p for p in group["params"] if p._grad is not None]
        if not params:
            return
        keys = self._state_keys
        states = []
        if self._has_state(group):
            for p in params:
                state = self.state[p]
                if len(state) == 0:
                    self._init_state(p, group, state)
                states.append(state)
            if (
                modes.tracing and modes.captures
            ):  # a compiled trace must see the state this step reads
                for state in states:
                    for value in state.values():
                        modes.note_read(value)
            state_values = tuple(
                tuple(None if s.get(k) is None else s[k]._value for k in keys) for s in states
            )
        else:
            state_values = tuple((None,) * len(keys) for _ in params)
        param_values = tuple(p._value for p in params)
        update = type(self)._update
        donated = _donatable(params, param_values, 1) and self._states_donatable(
            states, state_values
        )
        versions = [p._version_counter[0] for p in params]
        try:  # (with donation, the old values are gone once it returns: its results are kept)
            (new_params, new_states), interrupted = call_through_interrupt(
                update.donating if donated else update.plain,
                param_values,
                tuple(p._grad._value for p in params),
                state_values,
                modes.runtime_input(lambda: self._hyper(group)),
                flags=(bool(group.get("maximize", False)), self._flags(group)),
            )
        except _memory.DISPATCH_ERRORS as failure:  # an allocation that failed at dispatch
            _memory.raise_exhausted(failure)
        while True:  # written back whole, even when a signal handler interrupts the writes
            try:
                _write_update(params, versions, new_params, states, keys, new_states)
                break
            except Exception:
                raise
            except BaseException as interruption:
                interrupted = interrupted or interruption
        if interrupted is not None:
            raise interrupted

    def _states_donatable(self, states: list, state_values: tuple) -> bool:
        """Whether the update may donate every state array it replaces (see `_donatable`)."""
        keys = self._state_keys
        tensors = [s[k] for s in states for k in keys if s.get(k) is not None]
        flat = tuple(v for values in state_values for v in values if v is not None)
        return _donatable(tensors, flat, 2)

    def step(self, closure=None):
        """Perform one optimization step; `closure` re-evaluates the model and returns the loss."""
        loss = None
        if closure is not None:
            with _grad_mode.enable_grad():
                loss = closure()
        for hook in list(self._optimizer_step_pre_hooks.values()):
            result = hook(self, (), {})
            if result is not None:
                raise RuntimeError(
                    "optimizer step pre-hooks returning new arguments are not supported"
                )
        with _grad_mode.no_grad():
            for group in self.param_groups:
                self._step_group(group)
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, (), {})
        return loss


def new_state(param: Tensor, state: dict, scalars: dict | None = None, **buffers: bool) -> None:
    """Start a parameter's state, in the state_dict's order: a float32 step count 0, a float32
    scalar for each of `scalars` (name: starting value), then a zero buffer shaped like
    `param` for each name in `buffers` whose switch is true."""
    state["step"] = _arrays.filled((), 0.0, _dtypes.float32)
    for key, value in (scalars or {}).items():
        state[key] = _arrays.filled((), value, _dtypes.float32)
    for key, wanted in buffers.items():
        if wanted:
            state[key] = _arrays.zeros_like(param)
