"""torchvision's ResNet-18 and MobileNetV2 (random weights from numpy, 10 classes): a training
forward on a tiny batch (BatchNorm on batch statistics, dropout off), the loss, the gradients
and an SGD step, in float32 or (argument "float64") in float64."""

import sys

import numpy as np
import torch
from common import emit, set_weights  # first: it lets real PyTorch import torchvision
from torchvision import models

dtype = getattr(torch, sys.argv[1] if len(sys.argv) > 1 else "float32")
images = torch.from_numpy(np.random.default_rng(1).standard_normal((4, 3, 32, 32))).to(dtype)
labels = torch.tensor([3, 7, 0, 9])


def train_step(model, norm: str):
    set_weights(model)
    model.to(dtype)
    model.train()
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.eval()
    logits = model(images)
    loss = torch.nn.functional.cross_entropy(logits, labels)
    loss.backward()
    running_var = model.get_submodule(norm).running_var.clone()  # before the second forward
    grads = {n: p.grad.norm() for n, p in sorted(model.named_parameters())}
    torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9).step()
    return {
        "logits": logits,
        "loss": loss,
        "grad_norms": grads,
        "running_var": running_var,
        "loss_after_step": torch.nn.functional.cross_entropy(model(images), labels),
    }


emit(
    resnet18=train_step(models.resnet18(weights=None, num_classes=10), "layer4.1.bn2"),
    mobilenet_v2=train_step(models.mobilenet_v2(weights=None, num_classes=10), "features.18.1"),
)
