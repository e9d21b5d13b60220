"""A tiny Llama from transformers: loss, logits and gradients of one forward and backward over
a left-padded batch, with grouped-query attention, and the logits of an unpadded forward (no
mask: transformers then hands the shared key and value heads to
`scaled_dot_product_attention(enable_gqa=True)`).

`python transformers_llama.py IMPLEMENTATION` picks the attention (default "sdpa"). With
"flex_attention", real PyTorch runs "sdpa" instead: its flex_attention has no backward on CPU
and compiles with inductor, and both compute the same masked attention, so the oracle stays.
"""

import sys

import torch
from common import ORACLE, emit, set_weights
from transformers import LlamaConfig, LlamaForCausalLM

implementation = sys.argv[1] if len(sys.argv) > 1 else "sdpa"
config = LlamaConfig(
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=2,
    num_attention_heads=2,
    num_key_value_heads=1,
    vocab_size=100,
    max_position_embeddings=64,
)
config._attn_implementation = "sdpa" if ORACLE else implementation
model = LlamaForCausalLM(config)
set_weights(model)
model.train(False)
ids = torch.tensor([[(7 * i + 3) % 100 for i in range(12)], [(5 * i + 1) % 100 for i in range(12)]])
attention_mask = torch.tensor([[1] * 12, [0] * 3 + [1] * 9])
labels = ids.masked_fill(attention_mask == 0, -100)
out = model(ids, attention_mask=attention_mask, labels=labels)
out.loss.backward()
grad_norms = {n: p.grad.norm() for n, p in sorted(model.named_parameters()) if p.grad is not None}
unpadded = model(ids).logits[:, -3:, :8]
emit(loss=out.loss, logits=out.logits[:, -3:, :8], grad_norms=grad_norms, unpadded=unpadded)
