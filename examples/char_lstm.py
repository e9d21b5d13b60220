"""A character-level LSTM language model trained on a short built-in text, then sampled.

Embedding -> LSTM (batch_first) -> Linear, trained with CrossEntropyLoss and Adam
with gradient clipping; generation feeds the model one character at a time, carrying the
LSTM state. Seeded with `torch.manual_seed(0)`, it prints PyTorch's numbers.

`--compile=model` trains and samples with `torch.compile(model)` in the same eager loops;
`--compile=step` makes the training step (forward, zero_grad, backward, clipping,
optimizer.step) one `@torch.compile` function. `--steps=N` sets the number of steps (default 50).
"""

import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser(description="Train a character-level LSTM and sample it.")
parser.add_argument("--compile", choices=["model", "step"], help="what torch.compile compiles")
parser.add_argument("--steps", type=int, default=50)
args = parser.parse_args()

torch.manual_seed(0)

text = (
    "the quick brown fox jumps over the lazy dog. "
    "a journey of a thousand miles begins with a single step. "
    "to be or not to be, that is the question. "
) * 2
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
itos = dict(enumerate(chars))
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)

seq_len = 24
starts = torch.arange(0, len(data) - seq_len - 1, 12)
positions = starts[:, None] + torch.arange(seq_len)  # one row of indices per training window
inputs, targets = data[positions], data[positions + 1]


class CharLSTM(nn.Module):
    def __init__(self, vocab, embed=16, hidden=48, layers=1):
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        out, state = self.lstm(self.embed(x), state)
        return self.head(out), state


model = CharLSTM(len(chars))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
criterion = nn.CrossEntropyLoss()
net = torch.compile(model) if args.compile == "model" else model


def train_step(inputs, targets):
    logits, _ = net(inputs)
    loss = criterion(logits.reshape(-1, len(chars)), targets.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return loss


if args.compile == "step":
    train_step = torch.compile(train_step)

losses = []
for step in range(args.steps):
    loss = train_step(inputs, targets)
    losses.append(loss.item())
    if step % 20 == 0:
        print(f"step {step:2d}  loss {loss.item():.4f}")
print(f"final loss {losses[-1]:.4f}")

net.eval()
with torch.no_grad():
    prompt = "the "
    state = None
    for c in prompt:  # feed the prompt one character at a time, carrying the state
        logits, state = net(torch.tensor([[stoi[c]]]), state)
    out = prompt
    for _ in range(40):
        next_id = logits[0, -1].argmax().item()
        out += itos[next_id]
        logits, state = net(torch.tensor([[next_id]]), state)
print("sample:", out)
results = {
    "losses": losses,
    "sample": out,
    "params": {name: p.tolist() for name, p in model.named_parameters()},
    "grads": {name: p.grad.tolist() for name, p in model.named_parameters()},
    "optimizer": {
        f"{index}.{key}": torch.as_tensor(value).tolist()
        for index, state in optimizer.state_dict()["state"].items()
        for key, value in state.items()
    },
}
