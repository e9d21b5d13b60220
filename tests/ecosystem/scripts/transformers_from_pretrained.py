"""A tiny GPT-2 through save_pretrained and from_pretrained: transformers writes safetensors and
builds the loaded model on the meta device before it fills the weights in."""

from __future__ import annotations

import torch
from common import emit, set_weights
from transformers import GPT2Config, GPT2LMHeadModel

config = GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=100, n_positions=64)
model = GPT2LMHeadModel(config)
set_weights(model)
model.save_pretrained("saved")
loaded = GPT2LMHeadModel.from_pretrained("saved")
model.train(False)
loaded.train(False)
ids = torch.tensor([[(7 * i + 3) % 100 for i in range(8)]])
emit(
    meta=[name for name, p in loaded.named_parameters() if p.is_meta],
    same=torch.equal(model(ids).logits, loaded(ids).logits),
    tied=loaded.lm_head.weight is loaded.transformer.wte.weight,
    logits=loaded(ids).logits[0, -1],
)
