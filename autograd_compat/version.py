"""torch.version: the PyTorch release whose API this library gives, and its build facts.

The version is PyTorch's release with a local label naming this library
(`2.13.0+autograd.compat`), so version checks written for PyTorch 2.13 hold, and
`importlib.metadata.version("torch")` says the same while `torch` is aliased. There is no CUDA,
ROCm or XPU build: JAX picks the accelerator.
"""

from __future__ import annotations

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]

__version__ = "2.13.0+autograd.compat"
debug = False
cuda: str | None = None
git_version = "Unknown"  # what PyTorch's build records when it has no git checkout
hip: str | None = None
rocm: str | None = None
xpu: str | None = None
