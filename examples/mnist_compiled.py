"""torch.compile on an MNIST-style classifier: the same 20 training steps three ways.

1. eager: the usual loop;
2. compiled model: `torch.compile(model)` called inside an eager step (forward compiled,
   backward through the compiled graph);
3. compiled step: a `@torch.compile` function doing forward, backward, `optimizer.step()` and
   `scheduler.step()`.

Each way starts from the same weights (drawn by numpy, not torch's initialisation; no dropout)
and sees the same synthetic 12x12 "digits", so the three must agree step for step up to
float32 rounding: losses, parameters, gradients, BatchNorm statistics and Adam's state.

`python mnist_compiled.py --eager-only` runs only the eager loop. If `torch.compile` itself
fails (real PyTorch's CPU backend needs a working C++ compiler), the script says so, records the
error under `results["compile_errors"]` and still reports the eager numbers.
"""

import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 20
BATCH = 16
EAGER_ONLY = "--eager-only" in sys.argv[1:]

# Synthetic digits: ten class templates plus noise, in a fixed shuffled order.
rng = np.random.default_rng(0)
templates = rng.normal(size=(10, 1, 12, 12)).astype(np.float32)
labels_np = rng.permutation(np.arange(STEPS * BATCH) % 10)
images_np = templates[labels_np] + 0.8 * rng.normal(size=(STEPS * BATCH, 1, 12, 12))
images = torch.from_numpy(images_np.astype(np.float32))
labels = torch.from_numpy(labels_np)
batches = [
    (images[i * BATCH : (i + 1) * BATCH], labels[i * BATCH : (i + 1) * BATCH]) for i in range(STEPS)
]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        # No bias before BatchNorm: BN cancels it, so its gradient would be rounding noise,
        # which Adam would scale up into full-size steps that differ between backends.
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1)
        self.fc = nn.Linear(16 * 3 * 3, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def initial_state(model):
    """Weights drawn by numpy (scaled by fan-in), so every run, on any backend, starts alike."""
    init_rng = np.random.default_rng(1)
    state = {}
    for name, p in model.named_parameters():
        value = init_rng.normal(size=tuple(p.shape))
        if p.dim() > 1:
            value = value / np.sqrt(np.prod(p.shape[1:]))
        elif name.startswith("bn"):
            value = 1.0 + 0.1 * value if name.endswith("weight") else 0.1 * value
        else:
            value = 0.1 * value
        state[name] = torch.from_numpy(value.astype(np.float32))
    return state


def train(way):
    """20 steps of Adam with a StepLR schedule; `way` is "eager", "compiled_model" or
    "compiled_step". Returns the model, optimizer, scheduler, losses and step times."""
    model = Net()
    model.load_state_dict(initial_state(model), strict=False)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
    net = torch.compile(model) if way == "compiled_model" else model  # use 1

    def train_step(x, y):
        optimizer.zero_grad()
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        return loss

    if way == "compiled_step":
        train_step = torch.compile(train_step)  # use 2: the whole step is one program

    model.train()
    losses, times = [], []
    for x, y in batches:
        start = time.perf_counter()
        losses.append(train_step(x, y).item())  # .item() waits for the step to finish
        times.append(time.perf_counter() - start)
    return model, optimizer, scheduler, losses, times


def summary(model, optimizer, scheduler, losses):
    """What a test compares: plain lists of numbers."""
    optimizer_state = {
        f"{index}.{key}": torch.as_tensor(value).tolist()
        for index, state in optimizer.state_dict()["state"].items()
        for key, value in state.items()
    }
    return {
        "losses": losses,
        "params": {name: p.tolist() for name, p in model.named_parameters()},
        "grads": {name: p.grad.tolist() for name, p in model.named_parameters()},
        "buffers": {name: b.tolist() for name, b in model.named_buffers()},
        "optimizer": optimizer_state,
        "lr": scheduler.get_last_lr(),
    }


ways = ["eager"] if EAGER_ONLY else ["eager", "compiled_model", "compiled_step"]
results = {}
step_times = {}
compile_errors = {}
for way in ways:
    try:
        model, optimizer, scheduler, losses, times = train(way)
    except Exception as error:  # only torch.compile's ways can get here in a working setup
        if way == "eager":
            raise
        compile_errors[way] = f"{type(error).__name__}: {error}"
        print(f"{way}: torch.compile failed ({compile_errors[way][:200]})")
        continue
    results[way] = summary(model, optimizer, scheduler, losses)
    step_times[way] = times

header = "step" + "".join(f" | {way:>14} loss      ms" for way in results)
print(header)
for step in range(STEPS):
    row = f"{step:4d}"
    for way in results:
        row += f" | {results[way]['losses'][step]:19.6f} {1e3 * step_times[way][step]:7.1f}"
    print(row)
for way in results:
    steady = sorted(step_times[way][2:])[len(step_times[way][2:]) // 2]
    print(
        f"{way}: first step {1e3 * step_times[way][0]:.1f} ms, median later step "
        f"{1e3 * steady:.2f} ms, final loss {results[way]['losses'][-1]:.4f}"
    )
if compile_errors:
    results["compile_errors"] = compile_errors
