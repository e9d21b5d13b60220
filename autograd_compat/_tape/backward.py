"""`backward` and `grad`: PyTorch's argument handling around the engine.

The engine returns gradients (`grad`) or accumulates them into `.grad` (`backward`); this
module checks and pairs the arguments as PyTorch's torch/autograd/__init__.py does.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp

from .._pure import errors as _errors
from .._pure.op import register
from .._pure.shapes import Size
from .._state.modes import modes
from .._state.tensor import Tensor
from .._tape.record import apply
from .engine import release_graph, run_backward
from .meta_backward import meta_backward, on_meta


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
    if on_meta(outputs):
        meta_backward(outputs, inputs, accumulate=True)
        return
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
    if on_meta(outputs):
        result = meta_backward(outputs, inputs, accumulate=False)
    elif is_grads_batched:
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
                # unbatched under is_grads_batched too, as in PyTorch
                g = Tensor._wrap(jnp.zeros_like(tensor._value))
            elif not allow_unused:
                raise RuntimeError(_errors.UNUSED_INPUT.format(index=index))
        out.append(g)
    return tuple(out)


def tensor_backward(
    self: Tensor, gradient=None, retain_graph=None, create_graph=False, inputs=None
) -> None:
    """`Tensor.backward`: accumulate d(self)/d(leaf) into each leaf's `.grad`; see `backward`."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def clear_grad(tensor: Tensor, set_to_none: bool) -> None:
    """`zero_grad()` for one tensor, as Module and Optimizer do it: drop `.grad`, or zero it in
    place, detached from any graph a create_graph backward gave it."""
    grad = tensor._grad
    if grad is None:
        return
    if (
        modes.tracing and modes.captures
    ):  # a torch.compile trace: the .grad about to change is the caller's
        modes.note_read(tensor)
    if set_to_none:
        tensor._grad = None
    elif grad.grad_fn is not None:
        grad.detach_().zero_()
    else:
        grad.requires_grad_(False).zero_()


# The rows of a create_graph batched gradient are stacked by a recorded op, as torch.stack.
_STACK_ROWS = register(
    "autograd.batched_grad.stack",
    lambda *rows: jnp.stack(rows),
    node="StackBackward0",
    saves="none",
)


def batched_grad(outputs: tuple, inputs: tuple, grads: tuple, retain_graph, create_graph) -> list:
    """`autograd.grad(..., is_grads_batched=True)` on checked arguments: the engine's backward
    under jax.vmap over the first dimension of every grad_output (one compiled backward for
    the whole batch). One gradient (or None) per input."""
    batch = None
    for index, (out, g) in enumerate(zip(outputs, grads)):
        if g is None:
            continue
        if tuple(g.shape[1:]) != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                "expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{index}] has a shape of {Size(g.shape[2:])} and "
                f"output[{index}] has a shape of {out.shape}. If you only want some tensors in "
                "`grad_output` to be considered batched, consider using vmap."
            )
        batch = g.shape[0]
    if batch is None:
        raise RuntimeError("is_grads_batched=True needs at least one batched grad_output")
    filled = []
    for out, g in zip(outputs, grads):
        if g is None:
            if out._stored.size != 1:
                raise RuntimeError(_errors.IMPLICIT_GRAD)
            g = Tensor._wrap(jnp.ones((batch, *out._stored.shape), out._stored.dtype))
        filled.append(g)
    result = None
    if not create_graph:

        def one(*values):
            res = run_backward(
                outputs,
                [Tensor._wrap(v) for v in values],
                retain_graph=True,
                create_graph=False,
                targets=inputs,
                accumulate=False,
            )
            return tuple(None if r is None else r._value for r in res)

        try:
            values = jax.vmap(one)(*[g._value for g in filled])
            result = [None if v is None else Tensor._wrap(v) for v in values]
        except _errors.TRACE_ERRORS:
            result = None
    if result is None:  # create_graph, or a backward that cannot be vmapped: one at a time
        rows = [
            grad(
                outputs,
                inputs,
                [g[b] for g in filled],
                retain_graph=True,
                create_graph=create_graph,
                allow_unused=True,
            )
            for b in range(batch)
        ]
        result = []
        for k in range(len(inputs)):
            column = [row[k] for row in rows]
            result.append(None if any(c is None for c in column) else apply(_STACK_ROWS, *column))
    if not retain_graph:
        release_graph(outputs)
    return result
