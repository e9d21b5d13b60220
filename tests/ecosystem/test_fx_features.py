"""Feature extraction through torch.fx (torchvision's create_feature_extractor, timm's
features_only and FeatureGraphNet) under the alias, against real PyTorch."""

import importlib.util

import pytest

# find_spec, not importorskip: torchvision does not import on this process's real PyTorch
# (see scripts/common.py); the scripts import it.
if importlib.util.find_spec("timm") is None or importlib.util.find_spec("torchvision") is None:
    pytest.skip("timm and torchvision are needed", allow_module_level=True)


def test_torchvision_create_feature_extractor_resnet18(both):
    ours = both("fx_features.py", "torchvision", rtol=2e-4, atol=1e-3)
    assert ours["flat"]["shape"] == [1, 512]


@pytest.mark.parametrize(
    "which, kind", [("timm", "FeatureListNet"), ("timm_fx", "FeatureGraphNet")]
)
def test_timm_features_only_resnet18(both, which, kind):
    ours = both("fx_features.py", which, rtol=2e-4, atol=1e-3)
    assert ours["kind"] == kind
    assert ours["1"]["shape"] == [1, 256, 4, 4]
