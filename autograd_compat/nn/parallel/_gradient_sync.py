"""DistributedDataParallel's gradient averaging across processes (world size above 1).

Each rank runs the module on its own batch; a post-accumulate-grad hook on every parameter
counts the gradients of a backward, and the last one averages all of them over the ranks in
one program (`all_reduce_bucket`: XLA combines the all-reduces, as PyTorch's buckets do).
Under `no_sync()` nothing is averaged and the gradients accumulate locally; the next synced
backward averages the accumulated total, as in PyTorch.
"""

from __future__ import annotations

from ...distributed.distributed_c10d import ReduceOp, all_reduce_bucket

# PyTorch's error when a forward starts before the previous backward reduced every gradient.
UNFINISHED_REDUCTION = (
    "Expected to have finished reduction in the prior iteration before starting a new one. "
    "This error indicates that your module has parameters that were not used in producing "
    "loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n"
    "making sure all `forward` function outputs participate in calculating loss."
)


class GradientSync:
    """Averages the gradients of `parameters` over the ranks once all have been
    accumulated by a backward."""

    def __init__(self, parameters) -> None:
        self.parameters = [p for p in parameters if p.requires_grad]
        self.enabled = True
        self._ready = 0
        self._handles = [
            p.register_post_accumulate_grad_hook(self._on_grad) for p in self.parameters
        ]

    def _on_grad(self, parameter) -> None:
        if not self.enabled:
            return
        self._ready += 1
        if self._ready == len(self.parameters):
            self._ready = 0
            all_reduce_bucket([p.grad for p in self.parameters], ReduceOp.AVG)

    def check_finished(self) -> None:
        """Before a forward: PyTorch's error when the last backward left gradients
        unreduced (parameters that did not contribute to the loss)."""
        if self._ready:
            self._ready = 0
            raise RuntimeError(UNFINISHED_REDUCTION)
