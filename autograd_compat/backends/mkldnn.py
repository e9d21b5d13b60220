"""torch.backends.mkldnn: available as in PyTorch's CPU builds; `enabled` is a settable switch
that changes nothing here (XLA:CPU chooses its kernels)."""

from __future__ import annotations

enabled = True
deterministic = False


def is_available() -> bool:
    return True
