"""torch.nn.parameter: Parameter (a leaf Tensor that a Module registers) and Buffer."""

from __future__ import annotations

from typing import cast

from .._interop import register_pytree
from .._ops.factories import empty
from .._pure.errors import FLOAT_REQUIRES_GRAD
from .._state.tensor import MetaTensor, Tensor, meta_class
from .._state.torch_function import _disabled_torch_function_impl
from .._tape.views import shared_record


class Parameter(Tensor):
    """A Tensor that, assigned as a Module attribute, is registered as one of its parameters.

    It is a leaf that requires grad by default and shares its value with `data` (writes
    through either are seen by both, as PyTorch's shared storage).

    Args:
        data (Tensor): the initial value. Default: an empty tensor.
        requires_grad (bool): whether it requires grad. Default: True.

    Example::

        >>> w = nn.Parameter(torch.zeros(2))
        >>> w
        Parameter containing:
        tensor([0., 0.], requires_grad=True)
    """

    __torch_function__ = _disabled_torch_function_impl  # ops on it give plain Tensors

    def __new__(cls, data=None, requires_grad: bool = True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}"
            )
        if isinstance(data, MetaTensor):  # no memory to share
            param = meta_class(cls)._wrap(data._stored)
            param._set_requires_grad(requires_grad, FLOAT_REQUIRES_GRAD)
            return param
        param = cls._wrap(data._value)
        if data._storage is None:
            data._storage = shared_record()
            data._storage.members.add(data)
        param._storage = data._storage
        param._storage.members.add(param)
        param._version_counter = data._version_counter
        if requires_grad:
            param._set_requires_grad(True, FLOAT_REQUIRES_GRAD)
        return param

    def __init__(self, data=None, requires_grad: bool = True) -> None:
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        return super().__deepcopy__(memo)


class Buffer(Tensor):
    """Marks a tensor to be registered as a Module buffer when assigned as an attribute.

    Args:
        data (Tensor): the buffer's value.
        persistent (bool): whether it is part of the module's state_dict. Default: True.
    """

    persistent: bool
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, *, persistent: bool = True):
        if data is None:
            data = empty(0)
        made = meta_class(cls) if isinstance(data, MetaTensor) else cls
        buffer = cast(Buffer, made._wrap(data._stored if made is not cls else data._value))
        buffer.persistent = persistent
        return buffer

    def __init__(self, data=None, *, persistent: bool = True) -> None:
        pass


def is_lazy(param) -> bool:
    """Lazy (uninitialized) parameters are not supported, so no parameter is lazy."""
    return False


register_pytree(Parameter)


class UninitializedParameter(Parameter):
    """The parameter of a lazy module before its first forward. Lazy modules are not provided
    here, so none exists: the class is there for isinstance checks, and making one raises."""

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        raise NotImplementedError(
            "torch.nn.parameter.UninitializedParameter: lazy modules (uninitialized "
            "parameters) are not supported by autograd_compat; give the module its shapes"
        )


class UninitializedBuffer(Tensor):
    """The buffer of a lazy module before its first forward; as UninitializedParameter, making
    one raises."""

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None):
        raise NotImplementedError(
            "torch.nn.parameter.UninitializedBuffer: lazy modules (uninitialized buffers) are "
            "not supported by autograd_compat; give the module its shapes"
        )
