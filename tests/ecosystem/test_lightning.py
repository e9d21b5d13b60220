"""Lightning's Trainer under the alias, against real PyTorch."""

import importlib.util

import pytest

# Not importorskip: importing lightning here would import torchvision on real PyTorch, which
# needs the help scripts/common.py gives it first.
if importlib.util.find_spec("lightning") is None:
    pytest.skip("lightning is not installed", allow_module_level=True)


def test_fit_validate_checkpoint_and_resume(both):
    """Two epochs of fit (8 SGD steps with momentum), validate, the checkpoint Lightning
    saves, and a fresh Trainer resuming from it for a third epoch: losses, weights, the
    checkpoint's contents and the logged columns agree with PyTorch's."""
    ours = both("lightning_mlp.py")
    assert len(ours["losses"]) == 8 and len(ours["resumed_losses"]) == 4
    assert (ours["checkpoint_epoch"], ours["checkpoint_step"], ours["resumed_step"]) == (1, 8, 12)
    assert ours["checkpoint_name"] == "epoch=1-step=8.ckpt"
    assert ours["checkpoint_weights"] == ours["weights"]
    assert "val_loss" in ours["board_tags"] and ours["board_losses"]  # TensorBoardLogger
    assert ours["resumed_losses"][0] != ours["losses"][0]
