"""PyTorch's OpInfo database replayed on autograd_compat, shard 1 of 4 (see opinfo_ops; the
database is split over four files so that pytest-xdist's --dist loadfile spreads it)."""

from __future__ import annotations

import pytest

from tests.parity import opinfo_ops
from tests.parity.opinfo_harness import check


@pytest.mark.parametrize("op", opinfo_ops.shard(1, 4))
def test_opinfo(op):
    check(op, opinfo_ops.replay)
