"""accelerate on the CPU: Accelerator(cpu=True) prepares a model, an optimizer and a data
loader; a few steps with accelerator.backward; save_state, more steps, load_state and the same
steps again (they must repeat); init_empty_weights builds a model on the meta device."""

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
    )


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
