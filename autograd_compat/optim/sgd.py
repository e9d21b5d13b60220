"""SGD with momentum, dampening, Nesterov and weight decay (PyTorch's single-tensor rule)."""

from __future__ import annotations

from ._rules import cast, decay, jit_update
from .optimizer import Optimizer, check_arguments

__all__ = ["SGD", "sgd_rule"]


def sgd_rule(param, grad, state, hyper, switches):
    """One parameter's SGD step; `state = (momentum_buffer or None,)`.

    hyper = [lr, momentum, dampening, weight_decay]; switches = (weight decay, has_momentum,
    nesterov). Follows torch/optim/sgd.py `_single_tensor_sgd`.
    """
    lr, momentum, dampening, weight_decay = hyper
    weight_decay_mode, has_momentum, nesterov = switches
    (buf,) = state
    param, grad = decay(param, grad, lr, weight_decay, weight_decay_mode)
    if has_momentum:
        if buf is None:
            buf = grad
        else:
            buf = buf * cast(momentum, buf) + cast(1 - dampening, buf) * grad
        grad = grad + cast(momentum, grad) * buf if nesterov else buf
    return param + cast(-lr, param) * grad, (buf,)


class SGD(Optimizer):
    """Stochastic gradient descent (optionally with momentum), PyTorch's update rule:

    g = grad + weight_decay * p; b = momentum * b + (1 - dampening) * g (b = g at first);
    g = g + momentum * b if nesterov else b; p = p - lr * g.

    Example::

        >>> model, loss_fn = nn.Linear(2, 1), nn.MSELoss()
        >>> input, target = torch.randn(4, 2), torch.randn(4, 1)
        >>> optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        >>> optimizer.zero_grad()
        >>> loss_fn(model(input), target).backward()
        >>> optimizer.step()
    """

    _state_keys = ("momentum_buffer",)
    _hyper_keys = ("lr", "momentum", "dampening", "weight_decay")
    _group_keys = (
        "lr momentum dampening weight_decay nesterov maximize foreach differentiable fused"
    )
    _update = jit_update(sgd_rule)

    def __init__(
        self,
        params,
        lr=1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach=None,
        differentiable: bool = False,
        fused=None,
    ) -> None:
        check_arguments(lr=lr, momentum=momentum, weight_decay=weight_decay, nan_ok=True)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, self._defaults(locals()))

    def _has_state(self, group: dict) -> bool:
        return group["momentum"] != 0

    def _flags(self, group: dict) -> tuple:
        return (*super()._flags(group), group["momentum"] != 0, bool(group["nesterov"]))
