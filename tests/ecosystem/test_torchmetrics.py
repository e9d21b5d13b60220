"""torchmetrics under the alias, against real PyTorch."""

import importlib.util

import pytest

# importorskip's check without its import: torchmetrics imports torchvision, which does not
# import on the CPU build of PyTorch in this process; the scripts import it (scripts/common.py).
if importlib.util.find_spec("torchmetrics") is None:
    pytest.skip("torchmetrics is not installed", allow_module_level=True)


def test_classification_regression_aggregation_and_retrieval_metrics(both):
    """(R2's total sum of squares cancels: float32 sums in another order differ by ~1e-6.)"""
    ours = both("torchmetrics_basic.py", rtol=1e-5, atol=1e-6)
    assert ours["accuracy"] == 0.5 and ours["mse_after_reset"] == 1.0
    assert all(value != 0 for value in ours["regression"]) and 0 < ours["ndcg"] <= 1
