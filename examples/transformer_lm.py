"""A character-level Transformer language model trained on a short built-in text, then sampled.

Token and position embeddings -> nn.TransformerEncoder under a causal mask -> Linear head,
trained with AdamW on every window of the text (one batch). Generation continues every
training window at once: torch.multinomial samples the next character from the softmax of
the last position's logits (with its own seeded torch.Generator) and the window slides one
character along. `--steps=N` sets the number of training steps (default 40).
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser(description="Train a character-level Transformer and sample it.")
parser.add_argument("--steps", type=int, default=40)
args = parser.parse_args()

torch.manual_seed(0)

text = (
    "she sells sea shells by the sea shore. "
    "peter piper picked a peck of pickled peppers. "
    "how much wood would a woodchuck chuck if a woodchuck could chuck wood? "
) * 2
vocab = sorted(set(text))
index_of = {c: i for i, c in enumerate(vocab)}
data = torch.tensor([index_of[c] for c in text])

block = 16  # the context length
windows = torch.stack([data[i : i + block + 1] for i in range(0, len(data) - block, 8)])
inputs, targets = windows[:, :-1], windows[:, 1:]  # predict every next character


class CharTransformer(nn.Module):
    def __init__(self, vocab, block, d_model=32, nhead=4, layers=2):
        super().__init__()
        self.token = nn.Embedding(vocab, d_model)
        self.position = nn.Embedding(block, d_model)
        layer = nn.TransformerEncoderLayer(
            d_model, nhead, dim_feedforward=4 * d_model, dropout=0.0, batch_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(d_model, vocab)
        self.register_buffer("causal", nn.Transformer.generate_square_subsequent_mask(block))

    def forward(self, idx):
        length = idx.shape[1]
        x = self.token(idx) + self.position(torch.arange(length))
        mask = self.causal[:length, :length]
        return self.head(self.encoder(x, mask=mask, is_causal=True))


model = CharTransformer(len(vocab), block)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)

losses = []
for step in range(args.steps):
    logits = model(inputs)
    loss = F.cross_entropy(logits.reshape(-1, len(vocab)), targets.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
    if step % 10 == 0:
        print(f"step {step:2d}  loss {loss.item():.4f}")
print(f"final loss {losses[-1]:.4f}")
print("loss curve:", " ".join(f"{value:.2f}" for value in losses[::5]))

model.eval()
generator = torch.Generator().manual_seed(1)
window = inputs  # every training window is a prompt, all continued at once (one batch shape)
generated = []
with torch.no_grad():
    for _ in range(60):
        probs = torch.softmax(model(window)[:, -1], dim=-1)
        next_ids = torch.multinomial(probs, 1, generator=generator)
        generated.append(next_ids)
        window = torch.cat([window[:, 1:], next_ids], dim=1)  # slide the window along
continuation = torch.cat(generated, dim=1)[0].tolist()
sample = "".join(vocab[i] for i in inputs[0].tolist() + continuation)
print("sample:", sample)
results = {"losses": losses, "sample": sample}
