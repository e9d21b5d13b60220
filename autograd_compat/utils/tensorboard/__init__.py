"""torch.utils.tensorboard: SummaryWriter, writing TensorBoard event files.

Needs the `tensorboard` package (`pip install autograd_compat[tensorboard]`), imported only
when this module is: without it the import fails as PyTorch's does.
"""

import tensorboard
from packaging.version import Version

if not hasattr(tensorboard, "__version__") or Version(tensorboard.__version__) < Version("1.15"):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

del Version
del tensorboard

from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
