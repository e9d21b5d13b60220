"""What the ecosystem scripts share: weights from numpy, and one JSON line of results.

Written against the PyTorch API only, so it runs on real PyTorch and under the alias alike.
"""

from __future__ import annotations

import json

import numpy as np
import torch

ORACLE = not hasattr(torch, "alias_torch")  # real PyTorch, not autograd_compat


def _torchvision_importable_on_the_oracle() -> None:
    """Let real PyTorch import this environment's torchvision.

    The torchvision wheel the package index serves here is a CUDA build: its compiled ops
    cannot load against the CPU build of PyTorch, and `import torchvision` then fails when it
    registers shape functions for two of those ops (`register_fake("torchvision::nms")`). The
    models are pure Python and never call them, so on the oracle such a registration is
    skipped. autograd_compat needs no such help: its `torch.library` accepts them.
    """
    register_fake = torch.library.register_fake

    def tolerant(op, func=None, /, **kwargs):
        register = register_fake(op, **kwargs)

        def skip_undefined(fn):
            try:
                return register(fn)
            except RuntimeError as error:
                if "torchvision::" not in str(op) or "does not exist" not in str(error):
                    raise
                return fn

        return skip_undefined if func is None else skip_undefined(func)

    torch.library.register_fake = tolerant


if ORACLE:
    _torchvision_importable_on_the_oracle()


def set_weights(module: torch.nn.Module, seed: int = 0, scale: float = 0.05) -> None:
    """Give every parameter and floating buffer of `module` values drawn by numpy, in name
    order, so both libraries start from the same weights whatever their generators do."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for name, tensor in sorted(module.state_dict(keep_vars=True).items()):
            if not tensor.is_floating_point():
                continue
            if name.endswith(("running_var", "weight")) and tensor.dim() == 1:
                values = 1.0 + scale * rng.standard_normal(tensor.shape)  # norm scales
            else:
                values = scale * rng.standard_normal(tensor.shape)
            tensor.copy_(torch.from_numpy(values.astype(np.float32)))


def numbers(value):
    """A JSON-ready form of tensors (as nested lists), numbers and containers of them."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().double().numpy().tolist()
    if isinstance(value, dict):
        return {str(k): numbers(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [numbers(v) for v in value]
    return value


def emit(**results) -> None:
    """Print the results as the script's last line, one JSON object."""
    print(json.dumps(numbers(results)))
