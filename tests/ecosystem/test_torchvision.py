"""torchvision models under the alias, against real PyTorch."""

import importlib.util

import pytest

# importorskip's check without its import: this environment's torchvision (a CUDA build) does not
# import on the CPU build of PyTorch in this process; the scripts import it (see common.py).
if importlib.util.find_spec("torchvision") is None:
    pytest.skip("torchvision is not installed", allow_module_level=True)


def test_resnet18_and_mobilenet_v2_train_step(both):
    """In float64, so that both libraries are seen computing the same function: in float32,
    BatchNorm over four images amplifies each library's rounding to a few 1e-4 in
    MobileNetV2's gradient norms (and an SGD step on gradients of norm ~600 carries it on)."""
    ours = both("torchvision_models.py", "float64", rtol=1e-7, atol=1e-9)
    assert len(ours["resnet18"]["logits"]) == 4 and len(ours["mobilenet_v2"]["logits"][0]) == 10
    assert ours["resnet18"]["loss_after_step"] < ours["resnet18"]["loss"]


def test_ops_and_tensor_transforms(both):
    """roi_align's Python path and box operations, rotate/affine/perspective (grid_sample,
    and lstsq with driver "gels"), and nms, which needs torchvision's compiled extension."""
    ours = both("torchvision_ops.py", rtol=1e-5, atol=1e-6)
    assert ours["nms_error"].startswith("Couldn't load custom C++ ops")
