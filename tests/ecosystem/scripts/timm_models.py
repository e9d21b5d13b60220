"""timm's ResNet-18 and a tiny ViT (32x32 images, 8x8 patches, two blocks; random weights from
numpy, 10 classes): a training forward on a tiny batch, the loss and the gradients, in float32
or (argument "float64") in float64."""

import sys

import numpy as np
import torch
from common import emit, set_weights
from timm import create_model

dtype = getattr(torch, sys.argv[1] if len(sys.argv) > 1 else "float32")
images = torch.from_numpy(np.random.default_rng(2).standard_normal((4, 3, 32, 32))).to(dtype)
labels = torch.tensor([1, 4, 0, 9])


def train_step(model):
    set_weights(model)
    model.to(dtype).train()
    logits = model(images)
    loss = torch.nn.functional.cross_entropy(logits, labels)
    loss.backward()
    grads = {n: p.grad.norm() for n, p in sorted(model.named_parameters())}
    return {"logits": logits, "loss": loss, "grad_norms": grads}


emit(
    resnet18=train_step(create_model("resnet18", pretrained=False, num_classes=10)),
    vit=train_step(
        create_model(
            "vit_tiny_patch16_224",
            pretrained=False,
            img_size=32,
            patch_size=8,
            depth=2,
            num_classes=10,
        )
    ),
)
