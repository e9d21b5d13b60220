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
        cls = getattr(type(data), "_parameter_class", cls)  # a DTensor's is a DTensor too
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
    """Whether `param` is an uninitialized parameter or buffer of a lazy module."""
    return isinstance(param, UninitializedTensorMixin)


register_pytree(Parameter)


class UninitializedTensorMixin:
    """A lazy module's parameter or buffer before its first forward: an empty tensor whose
    shape is unknown until `materialize` gives it one and makes it a `cls_to_become`."""

    __slots__ = ()
    cls_to_become: type

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give this tensor `shape` (uninitialized values) and make it a `cls_to_become`."""
        current = cast(Tensor, self)
        device = current.device if device is None else device
        dtype = current.dtype if dtype is None else dtype
        current.data = empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into "
            "an initialized one. Call `forward` to initialize the parameters before accessing "
            "their attributes."
        )

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`."
        )

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (cast(Tensor, self).requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            current = cast(Tensor, self)
            memo[id(self)] = type(self)(current.requires_grad, current.device, current.dtype)
        return memo[id(self)]


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """The parameter of a lazy module before its first forward (see `nn.modules.lazy`)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        return super().__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad: bool = True, device=None, dtype=None) -> None:
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """The buffer of a lazy module before its first forward (see `nn.modules.lazy`)."""

    __slots__ = ()
    cls_to_become = Tensor

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None):
        buffer = cls._wrap(empty(0, device=device, dtype=dtype)._value)
        if requires_grad:
            buffer._set_requires_grad(True)
        return buffer

    def __init__(self, requires_grad: bool = False, device=None, dtype=None) -> None:
        pass
