"""Shared fixtures: a fixed seed per test, and the optional PyTorch oracle."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch
from tests._helpers.torch_compare import require_torch

# Scripts that tests launch (not modules to import for doctests: they parse argv and run).
collect_ignore = ["_helpers/ddp_job.py", "_helpers/dtensor_job.py"]
# Notebooks that tests execute through a kernel of their own (test_kernel.py), not nbmake's.
collect_ignore_glob = ["data/*.ipynb"]


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
    np.random.seed(0)


@pytest.fixture
def real_torch():
    """The real PyTorch module (the oracle); see `torch_compare.require_torch`."""
    return require_torch()
