"""torch.optim.swa_utils: weight averaging (SWA, EMA) of a model, the SWA learning-rate
schedule, and the batch-norm statistics pass an averaged model needs.

The averages are PyTorch's: the default running mean `avg + (p - avg) / (n + 1)` on CPU (a
`lerp_` on CUDA, PyTorch's multi-tensor path there), the `multi_avg_fn` updates as `lerp_`
over each (device, dtype) group, and the parameters copied on the first update;
`use_buffers=True` averages the buffers too, otherwise they are copied from the model.
"""

from __future__ import annotations

import itertools
import math
from copy import deepcopy
from typing import Any, Literal

from .._ops.factories import tensor
from .._pure import dtypes as _dtypes
from .._state.modes import no_grad
from .._state.tensor import Tensor
from ..nn.modules.module import Module
from ..nn.modules.normalization import _BatchNorm
from .lr_scheduler import LRScheduler, _format_param
from .optimizer import Optimizer

__all__ = [
    "SWALR",
    "AveragedModel",
    "get_ema_avg_fn",
    "get_ema_multi_avg_fn",
    "get_swa_avg_fn",
    "get_swa_multi_avg_fn",
    "update_bn",
]


# Where PyTorch has multi-tensor kernels: there its default average is the `lerp_` of
# get_swa_multi_avg_fn, elsewhere (CPU) the running-mean formula of get_swa_avg_fn.
_FOREACH_DEVICES = ("cuda", "xpu")


def _is_inexact(t: Tensor) -> bool:
    return t.dtype.is_floating_point or t.dtype.is_complex


def _check_decay(decay) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(
            f"Invalid decay value {decay} provided. Please provide a value in [0,1] range."
        )


def get_ema_multi_avg_fn(decay=0.999):
    """An update of lists of tensors in place to their exponential moving average:
    `ema = decay * ema + (1 - decay) * p` (a `lerp_` for floating tensors)."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _) -> None:
        for ema, current in zip(ema_param_list, current_param_list, strict=True):
            if _is_inexact(ema):
                ema.lerp_(current, 1 - decay)
            else:
                ema.copy_(ema * decay + current * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """An update of lists of tensors in place to their running mean over `num_averaged + 1`
    values (a `lerp_` by `1 / (num_averaged + 1)` for floating tensors)."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged) -> None:
        weight = 1 / (num_averaged + 1)
        for averaged, current in zip(averaged_param_list, current_param_list, strict=True):
            if _is_inexact(averaged):
                if isinstance(weight, Tensor):
                    averaged.lerp_(current, weight.to(averaged.dtype))
                else:
                    averaged.lerp_(current, weight)
            elif isinstance(num_averaged, Tensor):
                averaged.addcdiv_(current - averaged, num_averaged + 1)
            else:
                averaged.add_(current - averaged, alpha=weight)

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """A function of (average, current, num_averaged) giving the exponential moving average
    `decay * average + (1 - decay) * current`."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """A function of (average, current, num_averaged) giving the running mean
    `average + (current - average) / (num_averaged + 1)`."""

    @no_grad()
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _by_device_and_dtype(averaged: list, current: list) -> dict:
    """{(device, dtype): (averaged tensors, current tensors)}, in order within each group."""
    groups: dict = {}
    for a, c in zip(averaged, current, strict=True):
        pair = groups.setdefault((a.device, a.dtype), ([], []))
        pair[0].append(a)
        pair[1].append(c)
    return groups


class AveragedModel(Module):
    r"""A copy of ``model`` whose parameters are an average of those it is updated with.

    Args:
        model (torch.nn.Module): the model to average (deep-copied).
        device (torch.device, optional): where to keep the copy.
        avg_fn (function, optional): ``(averaged, current, num_averaged) -> new averaged`` per
            parameter; the running mean (SWA) by default.
        multi_avg_fn (function, optional): the same, in place, over lists of tensors of one
            device and dtype (``get_ema_multi_avg_fn``, ``get_swa_multi_avg_fn``).
        use_buffers (bool): average the buffers too (else they are copied from the model).

    Example::

        >>> from autograd_compat.optim import swa_utils
        >>> net = nn.Linear(2, 1)
        >>> ema = swa_utils.AveragedModel(net, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9))
        >>> ema.update_parameters(net)
        >>> int(ema.n_averaged)
        1
    """

    n_averaged: Tensor

    def __init__(
        self,
        model: Module,
        device=None,
        avg_fn=None,
        multi_avg_fn=None,
        use_buffers=False,
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=_dtypes.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """The averaged copy's forward."""
        return self.module(*args, **kwargs)

    def _averaged_tensors(self, model: Module) -> tuple[list, list]:
        """(this copy's tensors, `model`'s detached and moved here), the buffers too when
        `use_buffers`."""
        if self.use_buffers:
            mine = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            mine, theirs = self.parameters(), model.parameters()
        averaged, current = [], []
        for a, c in zip(mine, theirs):
            averaged.append(a.detach())
            current.append(c.detach().to(a.device))
        return averaged, current

    def update_parameters(self, model: Module) -> None:
        """Average ``model``'s parameters into this copy (the first update copies them)."""
        averaged, current = self._averaged_tensors(model)
        if bool(self.n_averaged == 0):
            for a, c in zip(averaged, current):
                a.copy_(c)
        elif self.avg_fn is not None:
            for a, c in zip(averaged, current, strict=True):
                a.copy_(self.avg_fn(a, c, self.n_averaged.to(a.device)))
        else:
            for (device, _), (mine, theirs) in _by_device_and_dtype(averaged, current).items():
                multi = self.multi_avg_fn
                if multi is None and device.type in _FOREACH_DEVICES:
                    multi = get_swa_multi_avg_fn()
                if multi is not None:
                    multi(mine, theirs, self.n_averaged.to(device))
                    continue
                mean = get_swa_avg_fn()
                for a, c in zip(mine, theirs, strict=True):
                    a.copy_(mean(a, c, self.n_averaged.to(device)))
        if not self.use_buffers:
            for mine_buffer, buffer in zip(self.module.buffers(), model.buffers(), strict=True):
                mine_buffer.detach().copy_(buffer.detach().to(mine_buffer.device))
        self.n_averaged += 1


@no_grad()
def update_bn(loader, model: Module, device=None) -> None:
    r"""Recompute the batch-norm running statistics of ``model`` over one pass of ``loader``
    (the first element of each batch that is a list or tuple), as a cumulative average.

    Args:
        loader (iterable): batches of inputs.
        model (torch.nn.Module): the model, typically an :class:`AveragedModel`.
        device (torch.device, optional): where to move each input.
    """
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    r"""Anneal each group's learning rate to ``swa_lr`` over ``anneal_epochs`` steps, then
    hold it there.

    Args:
        optimizer (torch.optim.Optimizer): wrapped optimizer.
        swa_lr (float or list): the learning rate(s) to reach, one per group if a list.
        anneal_epochs (int): steps of the annealing. Default: 10.
        anneal_strategy (str): ``"cos"`` or ``"linear"``. Default: ``"cos"``.
        last_epoch (int): the index of the last epoch. Default: -1.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        swa_lr: float,
        anneal_epochs=10,
        anneal_strategy: Literal["cos", "linear"] = "cos",
        last_epoch=-1,
    ) -> None:
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        """The lr before an annealing step of `alpha` that gave `lr`."""
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        """The next learning rates, from the current ones (chainable with other schedulers)."""
        self._warn_get_lr()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [
            group["swa_lr"] * alpha
            + self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha) * (1 - alpha)
            for group in self.optimizer.param_groups
        ]

    def _set_anneal_func(self, anneal_strategy: Literal["cos", "linear"]) -> None:
        self._anneal_strategy = anneal_strategy
        if anneal_strategy == "cos":
            self.anneal_func = self._cosine_anneal
        else:
            self.anneal_func = self._linear_anneal

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimizer and the annealing function (kept by name)."""
        return {
            key: value
            for key, value in self.__dict__.items()
            if key not in ("optimizer", "anneal_func")
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore a `state_dict()`."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
