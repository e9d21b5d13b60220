"""The docstring examples' namespace: `pytest --doctest-modules` runs them; and the
run's own persistent compilation cache, shared by every process of the run.

Here at the repository root because pytest applies a conftest.py only to files at or below its
folder: tests/conftest.py does not reach the doctests collected from autograd_compat/.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import warnings

import pytest

SUITE_CACHE = "AUTOGRAD_COMPAT_SUITE_CACHE"  # the run's own compilation cache
# Before the package is imported: the suite (and the processes it starts, which inherit this)
# must not write into the user's persistent compilation cache, and a run must not depend on
# what an earlier one left there. So a run gets a persistent cache of its own, empty at its
# start and removed at its end: the first process to import this (pytest itself, or xdist's
# controller) makes it, and the workers and every process a test starts inherit it, so a
# program one of them compiled loads in the others. tests/compile/test_compile_cache.py points
# the cache at temporary folders of its own.
if SUITE_CACHE not in os.environ:
    os.environ[SUITE_CACHE] = tempfile.mkdtemp(prefix="autograd_compat_suite_cache_")
    atexit.register(shutil.rmtree, os.environ[SUITE_CACHE], ignore_errors=True)
os.environ["AUTOGRAD_COMPAT_CACHE_DIR"] = os.environ[SUITE_CACHE]

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
