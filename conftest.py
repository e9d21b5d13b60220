"""The docstring examples' namespace: `pytest --doctest-modules` runs them; and the
persistent compilation cache switched off for the whole suite.

Here at the repository root because pytest applies a conftest.py only to files at or below its
folder: tests/conftest.py does not reach the doctests collected from autograd_compat/.
"""

from __future__ import annotations

import os
import warnings

import pytest

# Before the package is imported: the suite (and the processes it starts, which inherit this)
# must not write into the user's persistent compilation cache, and a run must not depend on
# what an earlier one left there. tests/compile/test_compile_cache.py points it at temporary
# folders.
os.environ["AUTOGRAD_COMPAT_CACHE_DIR"] = "off"

import autograd_compat as torch  # noqa: E402


@pytest.fixture(autouse=True)
def _doctest_namespace(request):
    """Doctests see `torch`, `nn` and `F` as PyTorch's docs assume, from a fixed seed."""
    if not isinstance(request.node, pytest.DoctestItem):
        return
    request.getfixturevalue("doctest_namespace").update(
        torch=torch, nn=torch.nn, F=torch.nn.functional
    )
    torch.manual_seed(0)
    # Warnings go to stderr, which a doctest does not compare (filterwarnings = error would
    # turn them into exceptions): the ones detect_anomaly's example shows by design.
    warnings.filterwarnings("ignore", "Anomaly Detection has been enabled", UserWarning)
    warnings.filterwarnings("ignore", "Error detected in", UserWarning)
