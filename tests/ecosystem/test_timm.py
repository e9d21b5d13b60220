"""timm models under the alias, against real PyTorch."""

import importlib.util

import pytest

# importorskip's check without its import: timm imports torchvision, which does not import on
# the CPU build of PyTorch in this process; the scripts import it (see scripts/common.py).
if importlib.util.find_spec("timm") is None:
    pytest.skip("timm is not installed", allow_module_level=True)


def test_resnet18_and_tiny_vit_forward_backward(both):
    ours = both("timm_models.py", rtol=2e-4, atol=1e-4)
    assert "blocks.1.attn.qkv.weight" in ours["vit"]["grad_norms"]
    assert len(ours["resnet18"]["logits"]) == 4 and len(ours["vit"]["logits"][0]) == 10
