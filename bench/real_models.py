"""Four real models' training steps, written once as ordinary PyTorch code (`import torch`).

Imported by `bench/models.py` in each column's process: on real PyTorch, or after
`autograd_compat.alias_torch()`, where the same `import torch` is this library. Every model
takes its weights from numpy (`set_weights`, the ecosystem tests' helper) and its batch from a
seeded numpy generator, so every column starts from the same numbers; dropout is off.

- `gpt`: nanoGPT's model (4 layers, 4 heads, n_embd 128, block 64, vocab 65, biases, tied
  embedding and head, causal `scaled_dot_product_attention`), batch 12, AdamW with nanoGPT's
  decay groups;
- `mnist`: the pytorch/examples MNIST CNN (conv 1->32->64, fc 9216->128->10, dropout p=0),
  batch 64 of 28x28 random images, Adadelta (lr 1.0);
- `lstm`: the pytorch/examples word language model (2-layer LSTM, vocab 1000, embedding 128,
  hidden 256), 35 x 20 tokens, `clip_grad_norm_(0.25)`, SGD lr 20; the hidden state starts at
  zero every step (the batch is the same every step);
- `resnet`: four torchvision-style basic blocks of 32 channels with BatchNorm (strides 1, 1, 2,
  2), 32x32 inputs, batch 32, 10 classes, SGD lr 0.1 momentum 0.9.

Each builder returns a `Setup`, whose `train_step()` is zero_grad, forward, backward, update,
returning the loss: the function users hand to `torch.compile`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "ecosystem" / "scripts"))
from common import set_weights  # noqa: E402  (numpy weights, the same in both libraries)


class Setup(NamedTuple):
    """A model ready to train: its training step, and what it uses (for the output)."""

    train_step: Callable[[], torch.Tensor]
    optimizer: str


def _step(model: nn.Module, optimizer: torch.optim.Optimizer, loss_of, clip=None) -> Callable:
    """The training step users write: zero_grad, loss, backward, (clip,) update."""

    def train_step():
        optimizer.zero_grad()
        loss = loss_of(model)
        loss.backward()
        if clip is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        return loss

    return train_step


def _ids(rng: np.random.Generator, high: int, shape: tuple) -> torch.Tensor:
    return torch.from_numpy(rng.integers(0, high, size=shape))


def _images(rng: np.random.Generator, shape: tuple) -> torch.Tensor:
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32))


# ------------------------------------------------------------------------------ nanoGPT
class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd: int, n_head: int) -> None:
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.n_head = n_head

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class Block(nn.Module):
    def __init__(self, n_embd: int, n_head: int) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd)
        )

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab: int, block: int, n_layer: int, n_head: int, n_embd: int) -> None:
        super().__init__()
        self.wte = nn.Embedding(vocab, n_embd)
        self.wpe = nn.Embedding(block, n_embd)
        self.h = nn.ModuleList([Block(n_embd, n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab, bias=False)
        self.wte.weight = self.lm_head.weight  # tied, as nanoGPT's

    def forward(self, idx, targets):
        pos = torch.arange(0, idx.size(1), dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def gpt(batch: int = 12, block: int = 64, vocab: int = 65) -> Setup:
    model = GPT(vocab, block, n_layer=4, n_head=4, n_embd=128)
    set_weights(model)
    rng = np.random.default_rng(1)
    x, y = _ids(rng, vocab, (batch, block)), _ids(rng, vocab, (batch, block))
    params = list(model.parameters())
    groups = [
        {"params": [p for p in params if p.dim() >= 2], "weight_decay": 0.1},
        {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=6e-4, betas=(0.9, 0.95))
    return Setup(_step(model, optimizer, lambda m: m(x, y)), "AdamW")


# ------------------------------------------------------------------------------ MNIST CNN
class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.0)
        self.dropout2 = nn.Dropout(0.0)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = self.dropout1(F.max_pool2d(x, 2))
        x = self.dropout2(F.relu(self.fc1(torch.flatten(x, 1))))
        return F.log_softmax(self.fc2(x), dim=1)


def mnist(batch: int = 64) -> Setup:
    """The CNN with Adadelta (lr 1.0), as pytorch/examples trains it."""
    model = Net()
    set_weights(model)
    rng = np.random.default_rng(1)
    x, y = _images(rng, (batch, 1, 28, 28)), _ids(rng, 10, (batch,))
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    return Setup(_step(model, optimizer, lambda m: F.nll_loss(m(x), y)), "Adadelta")


# ------------------------------------------------------------------------------ LSTM LM
class RNNModel(nn.Module):
    def __init__(self, ntoken: int, ninp: int, nhid: int, nlayers: int) -> None:
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, tokens):
        output, _ = self.rnn(self.encoder(tokens))
        return self.decoder(output)


def lstm(seq: int = 35, batch: int = 20, vocab: int = 1000) -> Setup:
    model = RNNModel(vocab, 128, 256, 2)
    set_weights(model)
    rng = np.random.default_rng(1)
    x, y = _ids(rng, vocab, (seq, batch)), _ids(rng, vocab, (seq, batch))
    optimizer = torch.optim.SGD(model.parameters(), lr=20.0)

    def loss_of(m):
        return F.cross_entropy(m(x).view(-1, vocab), y.view(-1))

    return Setup(_step(model, optimizer, loss_of, clip=0.25), "SGD")


# ------------------------------------------------------------------------------ ResNet
class BasicBlock(nn.Module):
    def __init__(self, channels: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.downsample = None
        if stride != 1:
            self.downsample = nn.Sequential(
                nn.Conv2d(channels, channels, 1, stride, bias=False), nn.BatchNorm2d(channels)
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.downsample is None else self.downsample(x)
        return F.relu(out + identity)


class ResNet(nn.Module):
    def __init__(self, channels: int = 32, classes: int = 10) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, channels, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.layers = nn.Sequential(*[BasicBlock(channels, s) for s in (1, 1, 2, 2)])
        self.fc = nn.Linear(channels, classes)

    def forward(self, x):
        x = self.layers(F.relu(self.bn1(self.conv1(x))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def resnet(batch: int = 32) -> Setup:
    model = ResNet()
    set_weights(model)
    rng = np.random.default_rng(1)
    x, y = _images(rng, (batch, 3, 32, 32)), _ids(rng, 10, (batch,))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    return Setup(_step(model, optimizer, lambda m: F.cross_entropy(m(x), y)), "SGD momentum")


def build(name: str) -> Setup:
    """The model `name` (gpt, mnist, lstm, resnet)."""
    return {"gpt": gpt, "mnist": mnist, "lstm": lstm, "resnet": resnet}[name]()


MODELS = ("gpt", "mnist", "lstm", "resnet")
