"""torch._dynamo.eval_frame: where PyTorch defines `OptimizedModule` (accelerate checks
`isinstance(module, torch._dynamo.eval_frame.OptimizedModule)`)."""

from .._compile.module import OptimizedModule

__all__ = ["OptimizedModule"]
