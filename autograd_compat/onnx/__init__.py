"""torch.onnx: importable; `export` is not supported (raises NotImplementedError naming the
alternative: export the computation from JAX, with `jax.export` to StableHLO or jax2tf +
tf2onnx to ONNX; `autograd_compat.to_jax` gives the arrays behind the weights).

Libraries register symbolic functions for their custom ops when imported (torchvision's
`nms`, `roi_align`): `register_custom_op_symbolic` checks and records them as PyTorch does,
and the opset modules' symbolic functions, which only an export calls, raise when called.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from . import errors, symbolic_helper, symbolic_opset11

__all__ = [
    "export",
    "is_in_onnx_export",
    "register_custom_op_symbolic",
    "unregister_custom_op_symbolic",
]

_CUSTOM_SYMBOLICS: dict[tuple[str, int], Callable] = {}

_EXPORT_UNSUPPORTED = (
    "torch.onnx.export is not supported by autograd_compat: the model runs on JAX, so export "
    "it from JAX instead: write the forward pass as a JAX function of the weights "
    "(`autograd_compat.to_jax(tensor)` gives each weight's array) and serialize it with "
    "`jax.export` (StableHLO), or convert it to ONNX with jax2tf + tf2onnx"
)


def export(model, args=(), f=None, *rest, **kwargs):
    """Not supported: raises NotImplementedError naming the JAX route."""
    raise NotImplementedError(_EXPORT_UNSUPPORTED)


def is_in_onnx_export() -> bool:
    return False


def _custom_op_name(symbolic_name: str) -> str:
    """`domain::name` checked as PyTorch checks it ("::name" means aten's)."""
    if symbolic_name.startswith("::"):
        symbolic_name = f"aten{symbolic_name}"
    if not re.match(r"^[a-zA-Z0-9-_]+::[a-zA-Z-_]+[a-zA-Z0-9-_]*$", symbolic_name):
        raise errors.OnnxExporterError(
            f"Failed to register operator {symbolic_name}. The symbolic name must match the "
            "format domain::name, and should start with a letter and contain only "
            "alphanumeric characters"
        )
    domain = symbolic_name.split("::")[0]
    if domain == "onnx":
        raise ValueError(
            f"Failed to register operator {symbolic_name}. {domain} domain cannot be modified."
        )
    return symbolic_name


def register_custom_op_symbolic(
    symbolic_name: str, symbolic_fn: Callable, opset_version: int
) -> None:
    """Record the ONNX symbolic function of custom op `domain::name` for an opset."""
    _CUSTOM_SYMBOLICS[(_custom_op_name(symbolic_name), opset_version)] = symbolic_fn


def unregister_custom_op_symbolic(symbolic_name: str, opset_version: int) -> None:
    """Forget the symbolic function registered for `domain::name` at an opset."""
    _CUSTOM_SYMBOLICS.pop((_custom_op_name(symbolic_name), opset_version), None)
