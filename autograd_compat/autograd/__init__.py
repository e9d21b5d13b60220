"""torch.autograd: `backward`, `grad`, `Variable`, custom `Function`, `functional`,
`forward_ad`, `gradcheck`, anomaly detection, `graph` and the grad-mode switches.

Argument handling follows PyTorch's torch/autograd/__init__.py; the work is done by the
engine, which returns gradients (`grad`) or accumulates them into `.grad` (`backward`).
"""

from __future__ import annotations

import warnings

from .. import _grad_mode as grad_mode
from .._engine import run_backward
from .._grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .._pure import errors as _errors
from .._tensor import Tensor
from . import anomaly_mode, forward_ad, function, functional, graph
from .anomaly_mode import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
    set_detect_anomaly,
)
from .function import Function, InplaceFunction, once_differentiable
from .gradcheck import gradcheck, gradgradcheck

__all__ = [
    "Function",
    "InplaceFunction",
    "Variable",
    "anomaly_mode",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "forward_ad",
    "function",
    "functional",
    "grad",
    "grad_mode",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "inference_mode",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "once_differentiable",
    "set_anomaly_enabled",
    "set_detect_anomaly",
    "set_grad_enabled",
]


def Variable(data, requires_grad: bool = False, volatile: bool = False) -> Tensor:
    """The pre-0.4 wrapper: returns a Tensor (a leaf sharing `data`'s value), as PyTorch does."""
    if not isinstance(data, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
    leaf = data.detach()
    leaf.requires_grad_(requires_grad)
    return leaf


def _as_tuple(value) -> tuple:
    if value is None:
        return (None,)
    if isinstance(value, Tensor):
        return (value,)
    return tuple(value)


def _grad_outputs(grads, outputs: tuple) -> tuple:
    """PyTorch's _make_grads checks (outputs and grads paired by zip, so extra grads are
    ignored) and then the engine's count check."""
    grads = _as_tuple(grads) if grads is not None else (None,) * len(outputs)
    for output, grad in zip(outputs, grads):
        if not isinstance(output, Tensor):
            raise AssertionError("Expected output to be a torch.Tensor")
        if not (grad is None or isinstance(grad, Tensor)):
            kind = type(grad).__name__
            raise TypeError(f"gradients can be either Tensors or None, but got {kind}")
    grads = grads[: len(outputs)]
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    return grads


def _check_inputs(inputs, fname: str) -> tuple:
    """The `inputs` of backward() or grad(): a non-empty sequence of Tensors."""
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError(f"`inputs` argument to `{fname}()` cannot be empty.")
    for tensor in inputs:
        if not isinstance(tensor, Tensor):
            raise RuntimeError(
                f"all inputs have to be Tensors or GradientEdges, but got {type(tensor).__name__}"
            )
    return inputs


def backward(
    tensors=None,
    grad_tensors=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables=None,
    inputs=None,
    *,
    variables=None,
) -> None:
    """Accumulate the gradients of `tensors` (weighted by `grad_tensors`) into leaf `.grad`.

    Args:
        tensors (Tensor or sequence of Tensor): outputs to differentiate. Legacy name:
            `variables` (deprecated).
        grad_tensors (sequence of Tensor or None): the weight of each output, i.e. the
            vector in the vector-Jacobian product; may be None for one-element outputs.
            Non-scalar outputs weighted this way compute the gradient of
            `sum(w_i * y_i)`, the weighted sum of several losses. Legacy name:
            `grad_variables` (deprecated).
        retain_graph (bool, optional): keep the saved values to backward again. Defaults to
            `create_graph`.
        create_graph (bool, optional): record the backward itself, so the gradients can be
            differentiated again (higher-order derivatives). Defaults to False.
        inputs (sequence of Tensor, optional): accumulate only into these tensors.

    Example::

        >>> x = torch.ones(2, 2, requires_grad=True)
        >>> torch.autograd.backward([(x * x).sum()])
        >>> x.grad
        tensor([[2., 2.],
                [2., 2.]])
    """
    if variables is not None:
        if tensors is not None:
            raise RuntimeError(_errors.BOTH_TENSOR_SPELLINGS)
        warnings.warn(
            "`variables` is deprecated. Use `tensors` instead.", FutureWarning, stacklevel=2
        )
        tensors = variables
    if grad_variables is not None:
        if grad_tensors is not None:
            raise RuntimeError(_errors.BOTH_GRAD_SPELLINGS)
        warnings.warn(
            "`grad_variables` is deprecated. Use `grad_tensors` instead.",
            FutureWarning,
            stacklevel=2,
        )
        grad_tensors = grad_variables
    if tensors is None:
        raise TypeError("backward() missing required argument: 'tensors'")
    outputs = _as_tuple(tensors)
    grads = _grad_outputs(grad_tensors, outputs)
    if inputs is not None:
        inputs = _check_inputs(inputs, "backward")
        for tensor in inputs:
            tensor.retain_grad()  # as PyTorch's engine does: a non-leaf input keeps its .grad
    if retain_graph is None:
        retain_graph = create_graph
    run_backward(
        outputs,
        grads,
        retain_graph=retain_graph,
        create_graph=create_graph,
        targets=inputs,
        accumulate=True,
    )


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple:
    """The gradients of `outputs` with respect to `inputs`, without touching `.grad`.

    Args:
        outputs (Tensor or sequence of Tensor): outputs of the differentiated function.
        inputs (Tensor or sequence of Tensor): tensors to differentiate with respect to.
        grad_outputs (sequence of Tensor or None): weights of the outputs (the vector of the
            vector-Jacobian product); None is allowed for one-element outputs.
        retain_graph (bool, optional): keep the graph for another backward. Defaults to
            `create_graph`.
        create_graph (bool, optional): make the result differentiable (higher orders).
        allow_unused (bool, optional): return None for inputs the outputs do not depend on,
            instead of raising. Defaults to `materialize_grads`.
        materialize_grads (bool, optional): return zeros instead of None for unused inputs.

    Returns:
        tuple of Tensor (or None), one per input.

    Example::

        >>> x = torch.tensor(2.0, requires_grad=True)
        >>> (dx,) = torch.autograd.grad(x**3, x, create_graph=True)
        >>> torch.autograd.grad(dx, x)
        (tensor(12.),)
    """
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, "
            "but got: allow_unused=False."
        )
    outputs = _as_tuple(outputs)
    inputs = _check_inputs(inputs, "grad")
    if not all(tensor.requires_grad for tensor in inputs):
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _grad_outputs(grad_outputs, outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        from .functional import batched_grad

        result = batched_grad(outputs, inputs, grads, retain_graph, create_graph)
    else:
        result = run_backward(
            outputs,
            grads,
            retain_graph=retain_graph,
            create_graph=create_graph,
            targets=inputs,
            accumulate=False,
        )
    out = []
    for index, (tensor, g) in enumerate(zip(inputs, result)):
        if g is None:
            if materialize_grads:
                from .._factories import zeros_like

                g = zeros_like(tensor)  # unbatched under is_grads_batched too, as in PyTorch
            elif not allow_unused:
                raise RuntimeError(_errors.UNUSED_INPUT.format(index=index))
        out.append(g)
    return tuple(out)
