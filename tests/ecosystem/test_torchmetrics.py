"""torchmetrics under the alias, against real PyTorch."""

import importlib.util

import pytest

# importorskip's check without its import: torchmetrics imports torchvision, which does not
# import on the CPU build of PyTorch in this process; the scripts import it (scripts/common.py).
if importlib.util.find_spec("torchmetrics") is None:
    pytest.skip("torchmetrics is not installed", allow_module_level=True)


def test_accuracy_f1_and_mse_over_two_batches(both):
    ours = both("torchmetrics_basic.py", rtol=1e-6, atol=1e-7)
    assert ours["accuracy"] == 0.5 and ours["mse_after_reset"] == 1.0
