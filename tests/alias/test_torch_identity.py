"""What PyTorch code learns about the `torch` it runs on: the installed metadata while aliased,
`torch.__version__` (a TorchVersion), `torch.version` and `torch.torch_version`."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import itertools
import sys

import pytest

import autograd_compat
from autograd_compat import _alias
from autograd_compat.torch_version import TorchVersion, version_key

VERSION = "2.13.0+autograd.compat"


def test_metadata_names_this_library_while_aliased():
    with autograd_compat.alias_torch():
        assert importlib.metadata.version("torch") == VERSION
        assert importlib.metadata.distribution("torch").metadata["Name"] == "torch"
        assert importlib.metadata.metadata("torch")["Version"] == VERSION
        assert importlib.util.find_spec("torch") is not None
        named = [d for d in importlib.metadata.distributions() if d.metadata["Name"] == "torch"]
        assert named[0].version == VERSION  # found before any installed PyTorch
        assert sys.meta_path[0] is _alias._finder
    assert _alias._finder not in sys.meta_path


def test_installed_torch_metadata_untouched_without_the_alias(real_torch):
    assert importlib.metadata.version("torch") == str(real_torch.version.__version__)
    with autograd_compat.alias_torch():
        pass
    assert importlib.metadata.version("torch") == str(real_torch.version.__version__)


def test_transformers_sees_pytorch_2_13():
    pytest.importorskip("transformers")
    from transformers.utils import import_utils

    with autograd_compat.alias_torch():
        available, version = import_utils._is_package_available("torch", return_version=True)
    assert available and version == VERSION


def test_version_module():
    v = autograd_compat.version
    assert (v.__version__, v.cuda, v.hip, v.rocm, v.xpu, v.debug) == (
        VERSION,
        None,
        None,
        None,
        None,
        False,
    )
    assert isinstance(v.git_version, str)
    assert isinstance(autograd_compat.__version__, TorchVersion)
    assert autograd_compat.__version__ == VERSION


VERSIONS = ["2.13.0+autograd.compat", "2.13.0", "2.13", "2.6.0", "2.13.1", "2.13.0rc1"]
VERSIONS += ["2.14.0.dev20260101", "2.13.0.post1", "1!0.1", "parrot", "2.13.0+cpu"]
OTHERS = [*VERSIONS, (2, 13), (2, 12, 1), (2, 14), (1,)]


def test_torch_version_compares_as_pytorchs(real_torch):
    theirs_class = real_torch.torch_version.TorchVersion
    for text, other in itertools.product(VERSIONS, OTHERS):
        for op in ("__lt__", "__le__", "__eq__", "__ge__", "__gt__"):
            ours = getattr(TorchVersion(text), op)(other)
            theirs = getattr(theirs_class(text), op)(other)
            assert ours == theirs, (text, op, other)
    assert hash(TorchVersion("2.1")) == hash("2.1")


def test_version_key_orders_as_packaging():
    packaging = pytest.importorskip("packaging.version")
    texts = [t for t in VERSIONS if t != "parrot"] + ["2.13.0a1", "2.13.0b2.dev3", "2.13.0+cpu.1"]
    for a, b in itertools.product(texts, texts):
        ours = version_key(a) < version_key(b)
        assert ours == (packaging.Version(a) < packaging.Version(b)), (a, b)
