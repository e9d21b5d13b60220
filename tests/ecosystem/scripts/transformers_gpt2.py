"""A tiny GPT-2 from transformers: loss, backward, an AdamW step, greedy generation."""

import torch
from common import emit, set_weights
from transformers import GPT2Config, GPT2LMHeadModel

config = GPT2Config(
    n_layer=2,
    n_head=2,
    n_embd=64,
    vocab_size=100,
    n_positions=64,
    bos_token_id=0,
    eos_token_id=None,
)
model = GPT2LMHeadModel(config)
set_weights(model)
model.train(False)  # dropout off: both libraries must see the same function
ids = torch.tensor([[(7 * i + 3) % 100 for i in range(12)], [(5 * i + 1) % 100 for i in range(12)]])
out = model(ids, labels=ids)
out.loss.backward()
grad_norms = {n: p.grad.norm() for n, p in sorted(model.named_parameters()) if p.grad is not None}
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
optimizer.step()
after = model(ids, labels=ids).loss
generated = model.generate(ids[:1, :4], max_new_tokens=10, do_sample=False, pad_token_id=0)
emit(loss=out.loss, grad_norms=grad_norms, loss_after_step=after, generated=generated)
