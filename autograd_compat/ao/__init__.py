"""torch.ao: architecture optimization; `quantization` holds the float-mode stubs."""

from . import quantization

__all__ = ["quantization"]
