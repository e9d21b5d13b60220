"""torch.onnx.symbolic_opset11: importable; its symbolic functions raise when called, since
only `torch.onnx.export` (not supported here) calls them."""

from .._stand_ins import raising


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
    return raising(
        f"torch.onnx.symbolic_opset11.{name}",
        "it runs only inside torch.onnx.export, which autograd_compat does not support "
        "(export the model from JAX instead)",
    )
