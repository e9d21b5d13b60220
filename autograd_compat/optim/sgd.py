"""SGD with momentum, dampening, Nesterov and weight decay (PyTorch's single-tensor rule)."""

from __future__ import annotations

from .optimizer import Optimizer, _check_non_negative, cast, jit_update

__all__ = ["SGD", "sgd_update"]


def sgd_update(params, grads, states, hyper, *, flags):
    """Pure SGD step over tuples of arrays; `states[i] = (momentum_buffer or None,)`.

    hyper = [lr, momentum, dampening, weight_decay]; flags = (has_weight_decay,
    has_momentum, nesterov, maximize). Follows torch/optim/sgd.py `_single_tensor_sgd`.
    """
    lr, momentum, dampening, weight_decay = hyper[0], hyper[1], hyper[2], hyper[3]
    has_weight_decay, has_momentum, nesterov, maximize = flags
    new_params, new_states = [], []
    for param, grad, (buf,) in zip(params, grads, states):
        grad = -grad if maximize else grad
        if has_weight_decay:
            grad = grad + cast(weight_decay, param) * param
        if has_momentum:
            if buf is None:
                buf = grad
            else:
                buf = buf * cast(momentum, buf) + cast(1 - dampening, buf) * grad
            grad = grad + cast(momentum, grad) * buf if nesterov else buf
        new_params.append(param + cast(-lr, param) * grad)
        new_states.append((buf,))
    return tuple(new_params), tuple(new_states)


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
    _update = jit_update(sgd_update)

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
        _check_non_negative(lr=lr, momentum=momentum, weight_decay=weight_decay, nan_ok=True)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _has_state(self, group: dict) -> bool:
        return group["momentum"] != 0

    def _flags(self, group: dict) -> tuple:
        return (
            group["weight_decay"] != 0,
            group["momentum"] != 0,
            bool(group["nesterov"]),
            bool(group["maximize"]),
        )
