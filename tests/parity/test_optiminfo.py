"""PyTorch's OptimizerInfo database replayed on autograd_compat (see opinfo_optimizers)."""

from __future__ import annotations

import pytest

from tests.parity import opinfo_optimizers
from tests.parity.opinfo_harness import check, params


@pytest.mark.parametrize(
    "info",
    params(opinfo_optimizers.optim_db, opinfo_optimizers.optim_name, opinfo_optimizers.KNOWN),
)
def test_optiminfo(info):
    check(info, opinfo_optimizers.replay)
