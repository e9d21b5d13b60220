"""Feature extraction through torch.fx: torchvision's `create_feature_extractor` on
ResNet-18 (argument "torchvision"), timm's `features_only` ResNet-18 (argument "timm") and
timm's fx-based `FeatureGraphNet` (argument "timm_fx"); random weights from numpy, one 64x64
image, the feature maps' sums and shapes."""

import sys

import numpy as np
import torch
from common import emit, set_weights

image = torch.from_numpy(np.random.default_rng(2).standard_normal((1, 3, 64, 64))).float()


def features(model, outputs):
    set_weights(model)
    model.eval()
    with torch.no_grad():
        values = outputs(model)
    return {name: {"sum": value.sum(), "shape": list(value.shape)} for name, value in values}


which = sys.argv[1]
if which == "torchvision":
    from torchvision.models import resnet18
    from torchvision.models.feature_extraction import create_feature_extractor

    nodes = {"layer1": "low", "layer4.1.relu_1": "high", "flatten": "flat"}
    extractor = create_feature_extractor(resnet18(), return_nodes=nodes)
    emit(**features(extractor, lambda m: sorted(m(image).items())))
else:
    import timm

    kwargs = {"feature_cls": "fx"} if which == "timm_fx" else {}
    model = timm.create_model("resnet18", features_only=True, out_indices=(1, 3), **kwargs)
    found = features(model, lambda m: [(str(i), v) for i, v in enumerate(m(image))])
    emit(kind=type(model).__name__, **found)
