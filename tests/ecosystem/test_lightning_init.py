"""Lightning's empty-weights initialization (a TorchFunctionMode) under the alias, against real
PyTorch."""

import importlib.util

import pytest

# Not importorskip: importing lightning here would import torchvision on real PyTorch, which
# needs the help scripts/common.py gives it first.
if importlib.util.find_spec("lightning") is None:
    pytest.skip("lightning is not installed", allow_module_level=True)


def test_init_module_empty_init_skips_nn_init(both):
    """`Fabric.init_module(empty_init=True)` and `Trainer.init_module(empty_init=True)` leave
    Linear and Embedding weights as nn.init did not draw them, LayerNorm's ones and zeros
    still written; the default context initializes everything; no mode stays entered."""
    ours = both("lightning_empty_init.py")
    for key in ("fabric_empty", "trainer_empty"):
        assert ours[key]["same"] == {
            "0.weight": False,
            "0.bias": False,
            "1.weight": True,
            "1.bias": True,
            "2.weight": False,
        }
    assert all(ours["fabric_default"]["same"].values())
    assert ours["modes_after"] == 0
