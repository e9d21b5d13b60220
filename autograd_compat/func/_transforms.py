"""torch.func's derivative transforms on JAX's: grad, grad_and_value, vjp, jvp, jacrev, jacfwd,
hessian. Each traces the function once (`Lowered`) and applies `jax.value_and_grad`,
`jax.vjp`, `jax.jvp`, `jax.jacrev` or `jax.jacfwd` of the trace as one op."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax

from .._ops.factories import zeros_like
from .._pure import errors as _errors
from .._state import modes as _grad_mode
from .._state.tensor import Tensor
from .._tape.backward import grad as autograd_grad
from ._lower import Lowered, Untraceable, is_traced
from ._pytree import flatten, unflatten

__all__ = ["grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "vjp"]

_JVP = "jvp(f, primals, tangents)"
RANDOMNESS = ("error", "different", "same")


# ----------------------------------------------------------------------------- arguments
def _argnum(argnum: object, n_args: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if -n_args <= argnum < n_args:
        return argnum % n_args
    raise RuntimeError(f"Got argnum={argnum}, but only {n_args} positional inputs")


class _Differentiated:
    """The arguments a transform differentiates (`argnums`; every one for None): the
    positions of their Tensors among the call's Tensor leaves, and how to rebuild them."""

    def __init__(self, args: tuple, argnums: int | tuple[int, ...] | None) -> None:
        if argnums is None:
            chosen: tuple[int, ...] = tuple(range(len(args)))
        elif isinstance(argnums, int):
            chosen = (_argnum(argnums, len(args)),)
        elif isinstance(argnums, tuple):
            chosen = tuple(_argnum(a, len(args)) for a in argnums)
            if not chosen:
                raise RuntimeError("argnums must be non-empty")
            if len(set(chosen)) != len(chosen):
                raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        else:
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
        self.single = isinstance(argnums, int)
        starts = [0]
        for arg in args:
            starts.append(starts[-1] + sum(isinstance(x, Tensor) for x in flatten(arg)[0]))
        self.index: list[int] = []
        self.trees: list = []
        for i in chosen:
            leaves, tree = flatten(args[i])
            for leaf in leaves:
                if not isinstance(leaf, Tensor):
                    raise ValueError(
                        f"Thing passed to transform API must be Tensor, got {type(leaf)}"
                    )
                if not leaf.dtype.is_floating_point and not leaf.dtype.is_complex:
                    raise RuntimeError(_errors.FLOAT_REQUIRES_GRAD_INPLACE)
            self.index.extend(range(starts[i], starts[i + 1]))
            self.trees.append((tree, len(leaves)))

    def key(self) -> str:
        return ",".join(map(str, self.index))

    def rebuild(self, tensors: Sequence[Any]) -> Any:
        """Per-Tensor results shaped like the differentiated arguments."""
        found = iter(tensors)
        parts = tuple(unflatten(tree, [next(found) for _ in range(n)]) for tree, n in self.trees)
        return parts[0] if self.single else parts


def _split_aux(output: Any, has_aux: bool, api: str) -> tuple[Any, Any]:
    """(output, aux): aux is a pytree of Tensors, as PyTorch requires."""
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(
            f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True"
        )
    for leaf in flatten(output[1])[0]:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
    return output


def _tensor_outputs(output: Any, api: str, check_dtype: bool = True) -> None:
    """PyTorch's checks of what vjp and jvp differentiate: a non-empty pytree of Tensors."""
    leaves = flatten(output)[0]
    if not leaves or (len(leaves) == 1 and leaves[0] is None):
        raise RuntimeError(
            f"{api}: Expected f to be a function that has non-empty output (got output = {leaves})"
        )
    for leaf in leaves:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(
                f"{api}: expected f(*primals) to return only tensors, got unsupported type "
                f"{type(leaf)}"
            )
        if check_dtype and not (leaf.dtype.is_floating_point or leaf.dtype.is_complex):
            raise RuntimeError(
                "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                f"Tensor with dtype {leaf.dtype}"
            )


def _splice(xs: Sequence[Any], index: Sequence[int], values: Sequence[Any]) -> list:
    """`xs` with the entries at `index` replaced by `values`."""
    full = list(xs)
    for i, value in zip(index, values):
        full[i] = value
    return full


def _restricted(f: Callable, xs: Sequence, index: Sequence[int], n_primary: int) -> Callable:
    """f of the differentiated inputs only, returning (primary outputs, the rest)."""

    def g(*differentiated):
        outs = f(*_splice(xs, index, differentiated))
        return tuple(outs[:n_primary]), tuple(outs[n_primary:])

    return g


# ----------------------------------------------------------------------------- grad
def grad_and_value(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False):
    """Like `grad`, returning `(gradient, value)`, or `(gradient, (value, aux))` with
    has_aux: the value comes from the same computation.

    Example::

        >>> g, v = torch.func.grad_and_value(lambda x: (x**2).sum())(torch.tensor([1.0, 2.0]))
        >>> g, v
        (tensor([2., 4.]), tensor(5.))
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        api = "grad_and_value(f)(*args)"
        diff = _Differentiated(args, argnums)

        def check(output):
            output, aux = _split_aux(output, has_aux, api)
            if not isinstance(output, Tensor):
                raise RuntimeError(
                    f"{api}: Expected f(*args) to return a Tensor, got {type(output)}"
                )
            if output.dim() != 0:
                raise RuntimeError(
                    f"{api}: Expected f(*args) to return a scalar Tensor, got tensor with "
                    f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs "
                    "instead?"
                )
            return output, aux

        try:
            lowered = Lowered(api, func, args, kwargs, check, differentiated=diff.index)
        except Untraceable:
            if any(is_traced(t._value) for t in _tensors((args, kwargs))):
                raise  # inside another transform's trace: no tape to fall back on
            gradient, value, aux = _grad_on_tape(func, args, kwargs, diff, check)
            return gradient, ((value, aux) if has_aux else value)
        index = diff.index

        def build(f, xs, _):
            def g(*differentiated):
                value, rest = _restricted(f, xs, index, 1)(*differentiated)
                return value[0], rest

            argnums_ = tuple(range(len(index)))
            (value, rest), grads = jax.value_and_grad(g, argnums_, has_aux=True)(
                *[xs[i] for i in index]
            )
            return (*grads, value, *rest)

        results = lowered.run(f"grad-{diff.key()}", build)
        value, aux = lowered.rebuild(results[len(index) :])
        gradient = diff.rebuild(results[: len(index)])
        return gradient, ((value, aux) if has_aux else value)

    return wrapper


def grad(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False):
    """The gradient of a function returning a scalar Tensor, as a function of the same
    arguments (`jax.grad` of the traced function).

    Args:
        func (Callable): a function of Tensors (pytrees of them) returning a 0-dim Tensor,
            or `(output, aux)` with `has_aux`.
        argnums (int or Tuple[int]): the arguments to differentiate. Defaults to 0.
        has_aux (bool): `func` returns `(output, aux)`; aux is returned alongside.

    Returns:
        A function returning the gradient, shaped like the differentiated argument (a tuple
        of them for a tuple `argnums`), and `aux` with `has_aux`.

    Example::

        >>> torch.func.grad(lambda x: x.sin().sum())(torch.tensor([0.0, 1.0]))
        tensor([1.0000, 0.5403])
    """
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        gradient, value = inner(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient

    return wrapper


def _tensors(tree: Any) -> list[Tensor]:
    return [x for x in flatten(tree)[0] if isinstance(x, Tensor)]


def _grad_on_tape(func: Callable, args: tuple, kwargs: dict, diff: _Differentiated, check):
    """(gradient, value, aux) of a function that cannot be traced (Python control flow on
    values, a custom autograd.Function), by PyTorch's own algorithm on the tape: the
    differentiated arguments as new leaves (as connected views where autograd records them),
    then one autograd.grad, with a graph where autograd records. (Tensors the function reads
    from its closure are not connected on this path.)"""
    leaves, spec = flatten((args, kwargs))
    connect = _grad_mode.is_grad_enabled() and any(t.requires_grad for t in _tensors(leaves))
    positions = [i for i, x in enumerate(leaves) if isinstance(x, Tensor)]
    inputs = []
    with _grad_mode.enable_grad():
        for i in diff.index:
            tensor = leaves[positions[i]]
            if connect and tensor.requires_grad:
                leaves[positions[i]] = tensor.view_as(tensor)
            else:
                leaves[positions[i]] = tensor.detach().requires_grad_()
            inputs.append(leaves[positions[i]])
        call_args, call_kwargs = unflatten(spec, leaves)
        value, aux = check(func(*call_args, **call_kwargs))
        grads: Sequence[Tensor | None] = [None] * len(inputs)
        if value.requires_grad:
            grads = autograd_grad(value, inputs, allow_unused=True, create_graph=connect)
    gradient = [zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]
    if not connect:
        gradient = [g.detach() for g in gradient]
        value = value.detach()
    return diff.rebuild(gradient), value, aux


# ----------------------------------------------------------------------------- vjp, jvp
def vjp(func: Callable, *primals, has_aux: bool = False):
    """`(func(*primals), vjp_fn)`: `vjp_fn(cotangents)` returns the vector-Jacobian products,
    one per primal (a tuple), by `jax.vjp` of the traced function.

    Example::

        >>> out, vjp_fn = torch.func.vjp(torch.sin, torch.tensor([0.0, 1.0]))
        >>> vjp_fn(torch.ones(2))
        (tensor([1.0000, 0.5403]),)
    """
    api = "vjp(f, *primals)"
    diff = _Differentiated(primals, None)

    def check(output):
        output, aux = _split_aux(output, has_aux, api)
        _tensor_outputs(output, api)
        return output, aux

    lowered = Lowered(api, func, primals, {}, check, differentiated=diff.index)
    n_primary = lowered.n_primary
    results = lowered.run("call", lambda f, xs, _: f(*xs))
    output, aux = lowered.rebuild(results)
    index = diff.index

    def build(f, xs, cotangents):
        outs, pullback, _ = jax.vjp(
            _restricted(f, xs, index, n_primary), *[xs[i] for i in index], has_aux=True
        )
        grads = pullback(tuple(c.astype(o.dtype) for c, o in zip(cotangents, outs)))
        return (*grads, xs[-1])

    def vjp_fn(cotangents, retain_graph: bool = True, create_graph: bool | None = None):
        flat, tree = flatten(cotangents)
        if tree != lowered.primary_tree:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of "
                f"outputs to the function. cotangents: {tree}, primal output: "
                f"{lowered.primary_tree}"
            )
        if create_graph is None:
            create_graph = _grad_mode.is_grad_enabled()
        with _grad_mode.set_grad_enabled(create_graph):
            grads = lowered.run("vjp", build, flat, advance=False)
        return diff.rebuild(grads)

    return (output, vjp_fn, aux) if has_aux else (output, vjp_fn)


def jvp(
    func: Callable,
    primals: Any,
    tangents: Any,
    *,
    strict: bool = False,
    has_aux: bool = False,
):
    """`(func(*primals), jvp_out)`: the Jacobian-vector product with `tangents` (shaped like
    `primals`), by `jax.jvp` of the traced function (forward mode).

    Example::

        >>> torch.func.jvp(torch.sin, (torch.tensor([0.0]),), (torch.tensor([2.0]),))
        (tensor([0.]), tensor([2.]))
    """
    if not isinstance(primals, tuple):
        raise RuntimeError(
            f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals)."
        )
    flat_primals, primals_tree = flatten(primals)
    flat_tangents, tangents_tree = flatten(tangents)
    if primals_tree != tangents_tree:
        raise RuntimeError(
            f"{_JVP}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {primals_tree} and tangents with structure {tangents_tree}"
        )
    for name, flat in (("primals", flat_primals), ("tangents", flat_tangents)):
        if not flat:
            raise RuntimeError(f"{_JVP}: Expected {name} to contain at least one Tensor.")
        others = [type(x) for x in flat if not isinstance(x, Tensor)]
        if others:
            raise RuntimeError(f"{_JVP}: Expected {name} to only contain Tensors, got {others[0]}")
    for p, t in zip(flat_primals, flat_tangents):
        if p.shape != t.shape:
            raise RuntimeError(
                _errors.FORWARD_GRAD_SIZE.format(tensor=list(p.shape), tangent=list(t.shape))
            )
    index = _Differentiated(primals, None).index

    def check(output):
        output, aux = _split_aux(output, has_aux, _JVP)
        _tensor_outputs(output, _JVP, check_dtype=False)
        return output, aux

    lowered = Lowered(_JVP, func, primals, {}, check, differentiated=index)
    n_primary = lowered.n_primary

    def build(f, xs, tangents_):
        g = _restricted(f, xs, index, n_primary)
        primal_xs = [xs[i] for i in index]
        cast = [t.astype(p.dtype) for t, p in zip(tangents_, primal_xs)]
        outs, out_tangents, rest = jax.jvp(g, primal_xs, cast, has_aux=True)
        return (*outs, *out_tangents, *rest)

    results = lowered.run("jvp", build, flat_tangents)
    output, aux = lowered.rebuild([*results[:n_primary], *results[2 * n_primary :]])
    tangent_out = unflatten(lowered.primary_tree, results[n_primary : 2 * n_primary])
    return (output, tangent_out, aux) if has_aux else (output, tangent_out)


# ----------------------------------------------------------------------------- Jacobians
def _jacobian(transform: Callable, api: str, func: Callable, argnums, has_aux: bool):
    """jacrev or jacfwd: per output Tensor, the Jacobian blocks shaped like the arguments."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        diff = _Differentiated(args, argnums)

        def check(output):
            output, aux = _split_aux(output, has_aux, api)
            _tensor_outputs(output, api, check_dtype=transform is jax.jacrev)
            return output, aux

        name = transform.__name__
        lowered = Lowered(name, func, args, kwargs, check, differentiated=diff.index)
        n_primary, index = lowered.n_primary, diff.index

        def build(f, xs, _):
            g = _restricted(f, xs, index, n_primary)
            argnums_ = tuple(range(len(index)))
            jac, rest = transform(g, argnums_, has_aux=True)(*[xs[i] for i in index])
            return (*[block for per_output in jac for block in per_output], *rest)

        results = lowered.run(f"{name}-{diff.key()}", build)
        n = len(index)
        per_output = [diff.rebuild(results[i * n : (i + 1) * n]) for i in range(n_primary)]
        jacobian = unflatten(lowered.primary_tree, per_output)
        if not has_aux:
            return jacobian
        return jacobian, lowered.rebuild([None] * n_primary + results[n * n_primary :])[1]

    return wrapper


def jacrev(
    func: Callable,
    argnums: int | tuple[int, ...] = 0,
    *,
    has_aux: bool = False,
    chunk_size: int | None = None,
    _preallocate_and_copy: bool = False,
):
    """The Jacobian of `func` by reverse mode (`jax.jacrev` of the traced function).

    Args:
        func (Callable): a function of Tensors returning a Tensor or a pytree of them.
        argnums (int or Tuple[int]): the arguments to differentiate. Defaults to 0.
        has_aux (bool): `func` returns `(output, aux)`.
        chunk_size (int, optional): accepted; the Jacobian is computed in one call.

    Returns:
        A function returning, per output, `output.shape + input.shape` blocks.

    Example::

        >>> torch.func.jacrev(lambda x: x**2)(torch.tensor([1.0, 2.0]))
        tensor([[2., 0.],
                [0., 4.]])
    """
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian(jax.jacrev, "vjp(f, *primals)", func, argnums, has_aux)


def jacfwd(
    func: Callable,
    argnums: int | tuple[int, ...] = 0,
    has_aux: bool = False,
    *,
    randomness: str = "error",
):
    """The Jacobian of `func` by forward mode (`jax.jacfwd` of the traced function); the
    arguments are jacrev's.

    Example::

        >>> torch.func.jacfwd(lambda x: x.sin())(torch.tensor([0.0]))
        tensor([[1.]])
    """
    if randomness not in RANDOMNESS:
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )
    return _jacobian(jax.jacfwd, _JVP, func, argnums, has_aux)


def hessian(func: Callable, argnums: int | tuple[int, ...] = 0):
    """The Hessian of a scalar function: `jacfwd(jacrev(func, argnums), argnums)`, as in
    PyTorch (forward over reverse).

    Example::

        >>> torch.func.hessian(lambda x: (x**3).sum())(torch.tensor([1.0, 2.0]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)
