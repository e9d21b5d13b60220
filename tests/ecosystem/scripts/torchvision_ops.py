"""torchvision's operators and tensor transforms: roi_align (its Python path) with gradients,
box operations, image rotation, affine and perspective warps (grid_sample), and the error of
an operator that only torchvision's compiled extension provides (nms)."""

import numpy as np
import torch
from common import emit
from torchvision import ops
from torchvision.transforms import InterpolationMode
from torchvision.transforms import functional as TF

rng = np.random.default_rng(4)
features = torch.tensor(rng.standard_normal((1, 2, 6, 6)), requires_grad=True)
boxes = torch.tensor([[0.5, 0.5, 4.2, 3.9], [1.0, 0.0, 5.5, 5.5]], dtype=torch.float64)
pooled = ops.roi_align(features, [boxes], output_size=3, sampling_ratio=2, aligned=True)
(
    pooled * torch.linspace(-1, 1, pooled.numel(), dtype=torch.float64).view_as(pooled)
).sum().backward()

image = torch.tensor(rng.uniform(0, 1, (3, 8, 10)), dtype=torch.float32)
try:
    ops.nms(boxes, torch.tensor([0.9, 0.8], dtype=torch.float64), 0.5)
    nms_error = None
except RuntimeError as error:
    nms_error = str(error)[:40]
emit(
    roi_align=pooled,
    roi_align_grad=features.grad,
    box_iou=ops.box_iou(boxes, boxes),
    box_area=ops.box_area(boxes),
    box_convert=ops.box_convert(boxes, "xyxy", "cxcywh"),
    rotate=TF.rotate(image, 30.0, interpolation=InterpolationMode.BILINEAR),
    affine=TF.affine(image, angle=10.0, translate=[1, 2], scale=0.9, shear=[5.0, 0.0]),
    perspective=TF.perspective(
        image, [[0, 0], [9, 0], [9, 7], [0, 7]], [[1, 0], [8, 1], [9, 7], [0, 6]]
    ),
    nms_error=nms_error,
)
