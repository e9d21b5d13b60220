"""accelerate on the CPU: Accelerator(cpu=True) prepares a model, an optimizer and a data
loader; a few steps with accelerator.backward; save_state, more steps, load_state and the same
steps again (they must repeat); gradient accumulation with clipping and a learning-rate
schedule; init_empty_weights builds a model on the meta device."""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import torch
from accelerate import Accelerator, init_empty_weights
from common import emit, set_weights


def model() -> torch.nn.Module:
    net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
    set_weights(net, seed=1, scale=0.3)
    return net


def data() -> torch.utils.data.DataLoader:
    rng = np.random.default_rng(2)
    x = torch.from_numpy(rng.standard_normal((16, 4)).astype(np.float32))
    y = torch.from_numpy(rng.standard_normal((16, 1)).astype(np.float32))
    return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=4)


def steps(accelerator, net, optimizer, loader) -> list:
    losses = []
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(net(x), y)
        accelerator.backward(loss)
        optimizer.step()
        losses.append(loss.item())
    return losses


def accumulated() -> tuple:
    """Two batches per step (`accumulate`), gradients clipped (accelerate computes the norm,
    then `clip_grads_with_norm_`), a linear warm-up; the losses and the final weights."""
    accelerator = Accelerator(cpu=True, gradient_accumulation_steps=2)
    net = model()
    optimizer = torch.optim.AdamW(net.parameters(), lr=0.05)
    schedule = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.5, total_iters=4)
    net, optimizer, loader, schedule = accelerator.prepare(net, optimizer, data(), schedule)
    losses = []
    for x, y in loader:
        with accelerator.accumulate(net):
            loss = torch.nn.functional.mse_loss(net(x), y)
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(net.parameters(), 0.1)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
        losses.append(loss.item())
    return losses, dict(accelerator.unwrap_model(net).state_dict())


def main(folder: pathlib.Path) -> None:
    accelerator = Accelerator(cpu=True)
    net = model()
    optimizer = torch.optim.AdamW(net.parameters(), lr=0.05)
    net, optimizer, loader = accelerator.prepare(net, optimizer, data())
    first = steps(accelerator, net, optimizer, loader)
    accelerator.save_state(str(folder / "state"))
    second = steps(accelerator, net, optimizer, loader)
    accelerator.load_state(str(folder / "state"))
    again = steps(accelerator, net, optimizer, loader)
    with init_empty_weights():
        empty = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.LayerNorm(8))
    emit(
        device=str(accelerator.device),
        first=first,
        second=second,
        again=again,
        weights=dict(net.state_dict()),
        saved=sorted(p.name for p in (folder / "state").iterdir()),
        empty=[(name, p.is_meta, list(p.shape)) for name, p in empty.named_parameters()],
        accumulated=accumulated(),
    )


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
