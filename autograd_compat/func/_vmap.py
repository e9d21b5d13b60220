"""torch.vmap on jax.vmap: the function is traced once on one example's shapes (the mapped
dimensions removed) and `jax.vmap` of the trace is applied to the batched Tensors as one op."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from .._state.tensor import Tensor
from ._lower import Lowered, aval
from ._pytree import broadcast_prefix, flatten
from ._transforms import RANDOMNESS

__all__ = ["vmap"]

_RANDOM_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
    "of vmap"
)


def vmap(
    func: Callable,
    in_dims: int | tuple = 0,
    out_dims: int | tuple = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
) -> Callable:
    """Map `func` over a dimension of its inputs (`jax.vmap` of the traced function).

    Args:
        func (Callable): a function of Tensors (pytrees of them) written for one example.
        in_dims (int or nested tuple): the mapped dimension of each input (a prefix of the
            inputs' structure); None for an input that is not mapped. Defaults to 0.
        out_dims (int or nested tuple): where the mapped dimension goes in each output.
        randomness (str): "error" (random draws raise), "different" (each example draws its
            own) or "same" (one draw for the batch).
        chunk_size (int, optional): map this many examples at a time.

    Returns:
        The batched function.

    Example::

        >>> torch.vmap(torch.dot)(torch.ones(3, 2), torch.ones(3, 2))
        tensor([2., 2., 2.])
    """
    if randomness not in RANDOMNESS:
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        name = getattr(func, "__name__", repr(func))
        dims, size = _input_dims(name, in_dims, args)
        tensors = [x for x in flatten((args, kwargs))[0] if isinstance(x, Tensor)]
        leaf_dims = [d for x, d in zip(flatten(args)[0], dims) if isinstance(x, Tensor)]
        leaf_dims += [None] * (len(tensors) - len(leaf_dims))  # keyword arguments: not mapped
        out_axes: list[int | None] = []

        def check(output):
            out_axes[:] = _output_dims(name, out_dims, output)
            return output, None

        avals = [_example_aval(t, d) for t, d in zip(tensors, leaf_dims)]
        lowered = Lowered(f"vmap({name}, ...)", func, args, kwargs, check, avals)
        if lowered.uses_random and randomness == "error":
            raise RuntimeError(_RANDOM_ERROR)
        build = _builder(leaf_dims, out_axes, size, randomness == "different", chunk_size)
        kind = f"vmap-{leaf_dims}-{out_axes}-{size}-{randomness}-{chunk_size}"
        try:
            results = lowered.run(kind, build)
        except ValueError as error:
            if "out_axes" not in str(error):
                raise
            raise ValueError(
                f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None"
            ) from None
        return lowered.rebuild(results)[0]

    return wrapped


def _input_dims(name: str, in_dims: Any, args: tuple) -> tuple[list, int]:
    """The mapped dimension of each leaf of `args` and the batch size, checked as PyTorch
    checks them."""
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
            f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}."
        )
    if not args:
        raise ValueError(
            f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
            "trying to vmap over a function with no inputs. The latter is unsupported."
        )
    leaves, tree = flatten(args)
    dims = broadcast_prefix(in_dims, args)
    if dims is None:
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
            f"structure of `inputs`. in_dims has structure {flatten(in_dims)[1]} but inputs has "
            f"structure {tree}."
        )
    prefix = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): "
    for i, (arg, dim) in enumerate(zip(leaves, dims)):
        if dim is None:
            continue
        if not isinstance(dim, int):
            raise ValueError(
                f"{prefix}Got in_dim={dim} for an input but in_dim must be either an integer "
                "dimension or None."
            )
        if not isinstance(arg, Tensor):
            raise ValueError(
                f"{prefix}Got in_dim={dim} for an input but the input is of type {type(arg)}. "
                "We cannot vmap over non-Tensor arguments, please use None as the respective "
                "in_dim"
            )
        if not -arg.dim() <= dim < arg.dim():
            raise ValueError(
                f"{prefix}Got in_dim={dim} for some input, but that input is a Tensor of "
                f"dimensionality {arg.dim()} so expected in_dim to satisfy "
                f"-{arg.dim()} <= in_dim < {arg.dim()}."
            )
        dims[i] = dim % arg.dim()
    sizes = [arg.size(dim) for arg, dim in zip(leaves, dims) if dim is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension"
        )
    return dims, sizes[0]


def _output_dims(name: str, out_dims: Any, output: Any) -> list[int | None]:
    """The mapped dimension of each Tensor the function returns (from its first call)."""
    if not isinstance(out_dims, int):
        for dim in flatten(out_dims)[0]:
            if dim is not None and not isinstance(dim, int):
                raise ValueError(
                    f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, None "
                    "or a python collection of ints representing where in the outputs the "
                    "vmapped dimension should appear."
                )
    if isinstance(output, Tensor) and isinstance(out_dims, tuple) and len(out_dims) == 1:
        out_dims = out_dims[0]
    dims = broadcast_prefix(out_dims, output)
    if dims is None:
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with "
            f"the structure of `outputs`. out_dims has structure {flatten(out_dims)[1]} but "
            f"outputs has structure {flatten(output)[1]}."
        )
    axes = []
    for leaf, dim in zip(flatten(output)[0], dims):
        if isinstance(leaf, Tensor):
            axes.append(dim)
        elif dim is not None:
            raise ValueError(
                f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(leaf)}. "
                "Did you mean to set out_dims= to None for output?"
            )
    return axes


def _example_aval(tensor: Tensor, dim: int | None) -> jax.ShapeDtypeStruct:
    """The shape one example of `tensor` has."""
    if dim is None:
        return aval(tensor._value)
    shape = tuple(tensor.shape)
    return jax.ShapeDtypeStruct(shape[:dim] + shape[dim + 1 :], tensor._stored.dtype)


def _builder(
    in_axes: Sequence[int | None],
    out_axes: Sequence[int | None],
    size: int,
    different: bool,
    chunk_size: int | None,
):
    """The transform: jax.vmap of the traced function, `chunk_size` examples at a time. The
    generator's key is one key for the batch, or one per example with `different`."""

    def build(f, xs, _):
        *leaves, key = xs
        key_axis = 0 if different else None
        if different:
            keys = jax.random.key_data(jax.random.split(jax.random.wrap_key_data(key), size + 1))
            key, example_keys = keys[0], keys[1:]
        else:
            example_keys = key
        axes_in = (*in_axes, key_axis)
        axes_out = (*out_axes, key_axis)
        args = (*leaves, example_keys)
        step = max(1, size if chunk_size is None else min(chunk_size, size))
        pieces = []
        for start in range(0, max(size, 1), step):  # an empty batch is one empty chunk
            stop = min(start + step, size)
            part = [
                x if d is None else lax.slice_in_dim(x, start, stop, axis=d)
                for x, d in zip(args, axes_in)
            ]
            mapped = jax.vmap(f, in_axes=axes_in, out_axes=axes_out, axis_size=stop - start)
            pieces.append(mapped(*part))
        outs = [
            o[0] if d is None else jnp.concatenate(o, axis=d)
            for o, d in zip(zip(*pieces), axes_out)
        ]
        if different:
            outs[-1] = key
        return tuple(outs)

    return build
