"""torch.onnx.symbolic_opset11: the symbolic functions libraries name (torchvision's ONNX
registrations); each raises when called, since only `torch.onnx.export` (not supported here)
calls them."""

from .._stand_ins import raising

_WHY = (
    "it runs only inside torch.onnx.export, which autograd_compat does not support "
    "(export the model from JAX instead)"
)

select = raising("torch.onnx.symbolic_opset11.select", _WHY)
squeeze = raising("torch.onnx.symbolic_opset11.squeeze", _WHY)
unsqueeze = raising("torch.onnx.symbolic_opset11.unsqueeze", _WHY)
