"""A small MLP as a LightningModule: Trainer.fit for two epochs with CSV and TensorBoard
loggers and checkpointing, validate, then a fresh Trainer resuming from the checkpoint for a
third epoch."""

import pathlib

import common  # first: it lets the oracle import torchvision, which torchmetrics imports
import lightning.pytorch as pl
import numpy as np
import torch
from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(0)
inputs = torch.from_numpy(rng.standard_normal((32, 4)).astype(np.float32))
targets = torch.from_numpy(rng.standard_normal((32, 1)).astype(np.float32))
validation = (inputs[:16] * 0.5, targets[:16])


class MLP(pl.LightningModule):
    def __init__(self, seed: int) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)
        )
        common.set_weights(self.net, seed=seed, scale=0.5)
        self.losses = []

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self(x), y)
        self.log("train_loss", loss)
        self.losses.append(loss.detach())
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", torch.nn.functional.mse_loss(self(x), y))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1, momentum=0.9)


def loaders():
    train = DataLoader(TensorDataset(inputs, targets), batch_size=8, shuffle=False)
    return train, DataLoader(TensorDataset(*validation), batch_size=8)


def trainer(epochs: int) -> pl.Trainer:
    return pl.Trainer(
        max_epochs=epochs,
        accelerator="cpu",
        devices=1,
        enable_progress_bar=False,
        logger=[
            CSVLogger(pathlib.Path.cwd() / "logs"),
            TensorBoardLogger(pathlib.Path.cwd() / "tb"),
        ],
        enable_checkpointing=True,
        default_root_dir=pathlib.Path.cwd(),
    )


model = MLP(seed=0)
first = trainer(2)
first.fit(model, *loaders())
validated = first.validate(model, loaders()[1], verbose=False)
checkpoint = first.checkpoint_callback.best_model_path
saved = torch.load(checkpoint, weights_only=False)

resumed_model = MLP(seed=1)
second = trainer(3)
second.fit(resumed_model, *loaders(), ckpt_path=checkpoint)
board = EventAccumulator(str(sorted((pathlib.Path.cwd() / "tb").rglob("version_0"))[0]))
board.Reload()

common.emit(
    losses=model.losses,
    weights=dict(model.state_dict()),
    validated=validated,
    checkpoint_name=pathlib.Path(checkpoint).name,
    checkpoint_epoch=saved["epoch"],
    checkpoint_step=saved["global_step"],
    checkpoint_weights=dict(saved["state_dict"]),
    resumed_losses=resumed_model.losses,
    resumed_weights=dict(resumed_model.state_dict()),
    resumed_step=second.global_step,
    logged=sorted((pathlib.Path.cwd() / "logs").rglob("metrics.csv"))[0]
    .read_text()
    .splitlines()[0],
    board_tags=board.Tags()["scalars"],
    board_losses=[event.value for event in board.Scalars(board.Tags()["scalars"][0])],
)
