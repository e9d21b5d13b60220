"""PyTorch's ModuleInfo database replayed on autograd_compat (see opinfo_modules)."""

from __future__ import annotations

import pytest

from tests.parity import opinfo_modules
from tests.parity.opinfo_harness import check, params


@pytest.mark.parametrize(
    "info", params(opinfo_modules.module_db, opinfo_modules.module_name, opinfo_modules.KNOWN)
)
def test_moduleinfo(info):
    check(info, opinfo_modules.replay)
