"""torch.nn.utils.prune: zero parts of a parameter through a mask, as PyTorch does.

Pruning `module.<name>` moves the parameter to `<name>_orig`, stores the 0/1 mask as the
buffer `<name>_mask`, and registers the pruning method as a forward pre-hook that sets
`module.<name> = <name>_mask * <name>_orig` before every forward: gradients reach
`<name>_orig` through the mask, so pruned entries get zero gradient. Pruning the same tensor
again combines the methods in a `PruningContainer`, which computes the next mask only over
what is still unpruned; `remove` makes the pruning permanent. Random methods draw from this
library's generator, so they prune as many entries as PyTorch but not the same ones.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ..._ops.factories import ones_like, zeros_like
from ..._ops.random import rand, rand_like
from ..._ops.reduce import kthvalue, norm, topk
from .convert_parameters import parameters_to_vector

__all__ = [
    "BasePruningMethod",
    "CustomFromMask",
    "Identity",
    "L1Unstructured",
    "LnStructured",
    "PruningContainer",
    "RandomStructured",
    "RandomUnstructured",
    "custom_from_mask",
    "global_unstructured",
    "identity",
    "is_pruned",
    "l1_unstructured",
    "ln_structured",
    "random_structured",
    "random_unstructured",
    "remove",
]


class BasePruningMethod(ABC):
    r"""Abstract base class of pruning methods: subclasses define :meth:`compute_mask` and
    ``PRUNING_TYPE`` (``"unstructured"``, ``"structured"`` or ``"global"``)."""

    _tensor_name: str

    def __call__(self, module, inputs):
        """The forward pre-hook: recompute ``module.<name>`` from its mask and original."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The mask for ``t`` (importance scores) on top of ``default_mask``."""

    def apply_mask(self, module):
        """``module.<name>_mask * module.<name>_orig``: the pruned tensor."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        r"""Prune ``module.<name>`` with ``cls(*args, **kwargs)``, on top of earlier pruning.

        Args:
            module (nn.Module): module containing the tensor to prune
            name (str): parameter name within ``module`` on which pruning will act.
            importance_scores (torch.Tensor): scores of the parameter's shape that the mask is
                computed from; the parameter itself if None.
        """
        method = _combined_with_earlier(cls(*args, **kwargs), module, name)
        orig = getattr(module, name)
        importance_scores = _scores(importance_scores, orig, f"parameter {name} of {module}")
        first = not isinstance(method, PruningContainer)
        if first:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times the mask this method computes (from ``importance_scores`` if given)."""
        importance_scores = _scores(importance_scores, t, "tensor t")
        if default_mask is None:
            default_mask = ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module) -> None:
        """Make the pruning permanent: ``<name>`` becomes a parameter holding the pruned
        values, and ``<name>_orig`` and ``<name>_mask`` are deleted."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _scores(importance_scores, t, what: str):
    """The scores a mask of `t` is computed from: `importance_scores`, of `t`'s shape, or `t`."""
    if importance_scores is None:
        return t
    if importance_scores.shape != t.shape:
        raise AssertionError(
            f"importance_scores should have the same shape as {what}, "
            f"got {importance_scores.shape} vs {t.shape}"
        )
    return importance_scores


def _combined_with_earlier(method, module, name):
    """`method` for `module.<name>`, joined with the pruning hook already there (whose hook is
    removed: `apply` registers the result)."""
    method._tensor_name = name
    earlier = [
        key
        for key, hook in module._forward_pre_hooks.items()
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name
    ]
    if len(earlier) > 1:
        raise AssertionError(
            f"Avoid adding multiple pruning hooks to the "
            f"same tensor {name} of module {module}. Use a PruningContainer."
        )
    if not earlier:
        return method
    old = module._forward_pre_hooks.pop(earlier[0])
    container = old if isinstance(old, PruningContainer) else PruningContainer(old)
    container.add_pruning_method(method)
    return container


class PruningContainer(BasePruningMethod):
    """Pruning methods applied in turn to one tensor; each new mask is computed over the
    entries (or channels) the earlier ones left."""

    def __init__(self, *args) -> None:
        self._pruning_methods: tuple[BasePruningMethod | None, ...] = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method) -> None:
        """Append ``method``, which must prune the tensor this container prunes."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on "
                f"the parameter named '{self._tensor_name}' to PruningContainer {self}."
                f" Found '{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """``default_mask`` with the last method's mask written over the part it prunes:
        unpruned entries (unstructured), channels not wholly pruned (structured), or all."""
        method = self._pruning_methods[-1]
        where = _unpruned_part(method, t, default_mask)
        mask = default_mask.to(dtype=t.dtype)
        partial = method.compute_mask(t[where], default_mask=default_mask[where])
        mask[where] = partial.to(dtype=mask.dtype)
        return mask


def _unpruned_part(method, t, mask):
    """The index of `t` that `method` prunes next, by its PRUNING_TYPE."""
    kind = method.PRUNING_TYPE
    if kind == "unstructured":
        return mask == 1
    if kind == "global":
        return (slice(None),) * t.dim()
    if kind != "structured":
        raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
    if not hasattr(method, "dim"):
        raise AttributeError(
            'Pruning methods of PRUNING_TYPE "structured" need to have the attribute `dim` defined.'
        )
    n_dims = t.dim()
    dim = method.dim + n_dims if method.dim < 0 else method.dim
    if dim < 0:
        raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
    live_channels = mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
    return tuple(live_channels if d == dim else slice(None) for d in range(n_dims))


class Identity(BasePruningMethod):
    """Prunes nothing: the reparametrization with a mask of ones."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        """Reparametrize ``module.<name>`` with a mask of ones."""
        return super().apply(module, name)


class _AmountMethod(BasePruningMethod):
    """A method pruning `amount` units: a count (int) or a fraction (float in [0, 1])."""

    def __init__(self, amount) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def _count(self, size: int) -> int:
        """How many of `size` units to prune; an error if more than there are."""
        count = _compute_nparams_toprune(self.amount, size)
        _validate_pruning_amount(count, size)
        return count


class _UnstructuredMethod(_AmountMethod):
    """A method pruning single entries: the `count` that `_pick` chooses among `t`'s."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        count = self._count(t.nelement())
        mask = default_mask.clone()
        if count:
            mask.view(-1)[self._pick(t.view(-1), count)] = 0
        return mask

    def _pick(self, flat, count: int):
        raise NotImplementedError


class RandomUnstructured(_UnstructuredMethod):
    """Prune ``amount`` entries, chosen at random, of those not yet pruned."""

    def _pick(self, flat, count: int):
        return topk(rand_like(flat), k=count).indices

    @classmethod
    def apply(cls, module, name, amount):
        """Prune ``amount`` random entries of ``module.<name>``."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(_UnstructuredMethod):
    """Prune the ``amount`` entries of smallest absolute value, of those not yet pruned."""

    def _pick(self, flat, count: int):
        return topk(flat.abs(), k=count, largest=False).indices

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        """Prune the ``amount`` smallest entries (by ``importance_scores`` if given)."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class _StructuredMethod(_AmountMethod):
    """A method pruning whole channels: the slices of `t` along `dim`."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1) -> None:
        super().__init__(amount)
        self.dim = dim

    def _channel_count(self, t) -> int:
        if t.dim() <= 1:
            raise ValueError(
                "Structured pruning can only be applied to multidimensional tensors. "
                f"Found tensor of shape {t.shape} with {len(t.shape)} dims"
            )
        if self.dim >= t.dim():
            raise IndexError(f"Invalid index {self.dim} for tensor of size {t.shape}")
        return self._count(t.shape[self.dim])

    def _keep(self, t, default_mask, channels):
        """`default_mask` times a mask of ones on `channels` (along dim) and zeros elsewhere."""
        mask = zeros_like(t)
        mask[
            tuple(channels if d == self.dim % t.dim() else slice(None) for d in range(t.dim()))
        ] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask


class RandomStructured(_StructuredMethod):
    """Prune ``amount`` channels along ``dim``, chosen at random."""

    def compute_mask(self, t, default_mask):
        count = self._channel_count(t)
        if count == 0:
            return default_mask
        size = t.shape[self.dim]
        scores = rand(size)
        return self._keep(t, default_mask, scores > kthvalue(scores, k=count).values)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        """Prune ``amount`` random channels of ``module.<name>`` along ``dim``."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(_StructuredMethod):
    """Prune the ``amount`` channels along ``dim`` of smallest L``n`` norm (``n`` as
    :func:`torch.norm`'s ``p``)."""

    def __init__(self, amount, n, dim=-1) -> None:
        super().__init__(amount, dim)
        self.n = n

    def compute_mask(self, t, default_mask):
        count = self._channel_count(t)
        if count == 0:
            return default_mask
        dim = self.dim % t.dim()
        norms = norm(t, p=self.n, dim=[d for d in range(t.dim()) if d != dim])
        kept = topk(norms, k=t.shape[dim] - count, largest=True).indices
        return self._keep(t, default_mask, kept)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        """Prune the ``amount`` channels of smallest L``n`` norm of ``module.<name>``."""
        return super().apply(
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


class CustomFromMask(BasePruningMethod):
    """Prune by a given mask (combined with the earlier one)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask) -> None:
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(
                f"default_mask shape {default_mask.shape} must match "
                f"self.mask shape {self.mask.shape}"
            )
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        """Prune ``module.<name>`` by ``mask``."""
        return super().apply(module, name, mask=mask)


def identity(module, name):
    r"""Reparametrize ``module.<name>`` for pruning without pruning anything.

    Returns:
        module (nn.Module): the same module, with ``<name>_orig``, ``<name>_mask`` and the hook.
    """
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    r"""Prune ``amount`` (a count, or a fraction in [0, 1]) random entries of
    ``module.<name>``; returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    r"""Prune the ``amount`` entries of ``module.<name>`` of smallest absolute value (of
    ``importance_scores`` if given); returns ``module``.

    Example::

        >>> from autograd_compat.nn.utils import prune
        >>> m = prune.l1_unstructured(nn.Linear(2, 3), "weight", amount=0.2)
        >>> int((m.weight_mask == 0).sum())
        1
    """
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    r"""Prune ``amount`` random channels of ``module.<name>`` along ``dim``; returns
    ``module``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    r"""Prune the ``amount`` channels of ``module.<name>`` along ``dim`` of smallest
    L``n`` norm (of ``importance_scores`` if given); returns ``module``."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs) -> None:
    r"""Prune the ``(module, name)`` pairs of ``parameters`` together: the mask is computed
    over all their entries at once by an unstructured ``pruning_method`` class (``amount``
    and its other arguments in ``kwargs``), then applied to each with
    :func:`custom_from_mask`.

    Args:
        parameters (Iterable of (module, name) tuples): the tensors to prune.
        pruning_method (type): a pruning class of ``PRUNING_TYPE`` ``"unstructured"``.
        importance_scores (dict): ``(module, name) -> tensor`` scores; the parameter where
            absent.
    """
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = parameters_to_vector(
        [importance_scores.get((m, name), getattr(m, name)) for m, name in parameters]
    )
    default_mask = parameters_to_vector(
        [getattr(m, name + "_mask", ones_like(getattr(m, name))) for m, name in parameters]
    )
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for '
            f"the `pruning_method`. Found method {pruning_method} of type {method.PRUNING_TYPE}"
        )
    container.add_pruning_method(method)
    mask = container.compute_mask(scores, default_mask)
    start = 0
    for m, name in parameters:
        param = getattr(m, name)
        custom_from_mask(m, name, mask=mask[start : start + param.numel()].view_as(param))
        start += param.numel()


def custom_from_mask(module, name, mask):
    r"""Prune ``module.<name>`` by the 0/1 tensor ``mask``; returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    r"""Make the pruning of ``module.<name>`` permanent and drop its hook (the pruned values
    stay); returns ``module``."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module) -> bool:
    r"""Whether ``module`` or a submodule has a pruning forward pre-hook."""
    return any(
        isinstance(hook, BasePruningMethod)
        for _, sub in module.named_modules()
        for hook in sub._forward_pre_hooks.values()
    )


def _validate_pruning_amount_init(amount) -> None:
    """`amount` is a non-negative int or a float in [0, 1]."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    integral = isinstance(amount, numbers.Integral)
    if (integral and amount < 0) or (not integral and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a "
            "non-negative integer"
        )


def _validate_pruning_amount(amount, tensor_size) -> None:
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(
            f"amount={amount} should be smaller than the number of parameters to "
            f"prune={tensor_size}"
        )


def _compute_nparams_toprune(amount, tensor_size):
    """A count stays; a fraction of `tensor_size` is rounded (half to even, as round)."""
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * tensor_size)
