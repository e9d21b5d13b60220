"""An MNIST-style convolutional classifier, trained on a small synthetic digit data set.

Ten noisy 12x12 "digits" (class templates plus noise) stand in for MNIST so the example needs
no download. It uses Dataset/DataLoader, Conv2d, MaxPool2d, BatchNorm2d, Dropout, Linear,
CrossEntropyLoss, SGD with momentum, a StepLR schedule, and a state_dict round trip.

`--compile=model` trains and evaluates `torch.compile(model)` in the same eager loop;
`--compile=step` makes each training step (zero_grad, forward, backward, optimizer.step) one
`@torch.compile` function (the schedule steps once an epoch, outside it). Three epochs of eight
batches: 24 steps.
"""

import argparse
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser(description="Train a small convolutional classifier.")
parser.add_argument("--compile", choices=["model", "step"], help="what torch.compile compiles")
args = parser.parse_args()

torch.manual_seed(0)
rng = np.random.default_rng(0)

templates = rng.normal(size=(10, 1, 12, 12)).astype(np.float32)
labels_np = np.arange(320) % 10
images_np = templates[labels_np] + 0.8 * rng.normal(size=(320, 1, 12, 12)).astype(np.float32)
images = torch.from_numpy(images_np)
labels = torch.from_numpy(labels_np)
train_set = TensorDataset(images[:256], labels[:256])
test_set = TensorDataset(images[256:], labels[256:])
generator = torch.Generator().manual_seed(0)
train_loader = DataLoader(train_set, batch_size=32, shuffle=True, generator=generator)
test_loader = DataLoader(test_set, batch_size=32)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1)
        self.dropout = nn.Dropout(0.25)
        self.fc = nn.Linear(16 * 3 * 3, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = self.dropout(torch.flatten(x, 1))
        return self.fc(x)


model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
criterion = nn.CrossEntropyLoss()
net = torch.compile(model) if args.compile == "model" else model


def train_step(x, y):
    optimizer.zero_grad()
    loss = criterion(net(x), y)
    loss.backward()
    optimizer.step()
    return loss


if args.compile == "step":
    train_step = torch.compile(train_step)


def evaluate(model):
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in test_loader:
            correct += (model(x).argmax(dim=1) == y).sum().item()
    return correct / len(test_set)


epoch_losses, step_losses = [], []
for epoch in range(3):
    net.train()
    total = 0.0
    for x, y in train_loader:
        loss = train_step(x, y)
        step_losses.append(loss.item())
        total += loss.item() * x.shape[0]
    scheduler.step()
    epoch_losses.append(total / len(train_set))
    print(f"epoch {epoch}: loss {epoch_losses[-1]:.4f}  lr {scheduler.get_last_lr()[0]:.4f}")

accuracy = evaluate(net)
print(f"test accuracy {accuracy:.3f}")

with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "mnist_conv.pt")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)
    checkpoint = torch.load(path)
restored = Net()
restored.load_state_dict(checkpoint["model"])
assert evaluate(restored) == accuracy
print("restored model has the same accuracy")
results = {
    "losses": epoch_losses,
    "accuracy": accuracy,
    "step_losses": step_losses,
    "params": {name: p.tolist() for name, p in model.named_parameters()},
    "grads": {name: p.grad.tolist() for name, p in model.named_parameters()},
    "buffers": {name: b.tolist() for name, b in model.named_buffers()},
    "optimizer": {
        f"{index}.{key}": torch.as_tensor(value).tolist()
        for index, state in optimizer.state_dict()["state"].items()
        for key, value in state.items()
    },
}
