"""Lightning's `_EmptyInit` (a TorchFunctionMode): `Fabric.init_module(empty_init=True)` and
`Trainer.init_module(empty_init=True)` build modules whose `nn.init` calls are skipped, while
the initializers PyTorch does not route through `__torch_function__` (LayerNorm's ones and
zeros) still run."""

import common  # first: it lets the oracle import torchvision, which torchmetrics imports
import lightning.pytorch as pl
import torch
from lightning.fabric import Fabric


def build():
    return torch.nn.Sequential(
        torch.nn.Linear(3, 4), torch.nn.LayerNorm(4), torch.nn.Embedding(5, 2)
    )


def initialized_like_reference(context) -> dict:
    """Which parameters equal those of the same model built outside `context()` from the same
    seed (what nn.init draws), and the LayerNorm's values (Lightning enters its modes when
    `init_module` is called, hence the factory)."""
    torch.manual_seed(0)
    reference = build()
    torch.manual_seed(0)
    with context():
        model = build()
    same = {
        name: bool(torch.equal(param, dict(reference.named_parameters())[name]))
        for name, param in model.named_parameters()
    }
    return {"same": same, "layer_norm": common.numbers(model[1].weight)}


fabric = Fabric(accelerator="cpu", devices=1)
trainer = pl.Trainer(accelerator="cpu", devices=1, logger=False, enable_progress_bar=False)
common.emit(
    fabric_empty=initialized_like_reference(lambda: fabric.init_module(empty_init=True)),
    fabric_default=initialized_like_reference(fabric.init_module),
    trainer_empty=initialized_like_reference(lambda: trainer.init_module(empty_init=True)),
    modes_after=len(torch.overrides._get_current_function_mode_stack()),
)
