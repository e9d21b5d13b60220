"""torch.onnx: importable; `export` is not supported (raises NotImplementedError naming the
alternative: export the computation from JAX, with `jax.export` to StableHLO or jax2tf +
tf2onnx to ONNX; `autograd_compat.to_jax` gives the arrays behind the weights)."""

from __future__ import annotations

__all__ = ["export", "is_in_onnx_export"]

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
