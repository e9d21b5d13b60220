"""A tiny Llama from transformers trained with gradient checkpointing: the loss and gradients
of a step with checkpointed decoder layers (`python transformers_checkpointing.py REENTRANT`,
"true" or "false"), the FLOPs of that step and the ModelOutput as a pytree."""

import sys

import torch
import torch.utils._pytree as pytree
from common import emit, set_weights
from torch.utils.flop_counter import FlopCounterMode
from transformers import LlamaConfig, LlamaForCausalLM

reentrant = sys.argv[1] == "true"
config = LlamaConfig(
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=2,
    num_attention_heads=2,
    num_key_value_heads=2,
    vocab_size=50,
    max_position_embeddings=32,
)
config._attn_implementation = "sdpa"
model = LlamaForCausalLM(config)
set_weights(model)
model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": reentrant})
model.train()  # checkpointing runs in training mode; the config has no dropout
ids = torch.tensor([[(7 * i + 3) % 50 for i in range(8)], [(5 * i + 1) % 50 for i in range(8)]])
with FlopCounterMode(display=False) as counter:
    out = model(ids, labels=ids)
    out.loss.backward()
leaves, spec = pytree.tree_flatten(out)
grad_norms = {n: p.grad.norm() for n, p in sorted(model.named_parameters()) if p.grad is not None}
emit(
    loss=out.loss,
    grad_norms=grad_norms,
    flops=counter.get_total_flops(),
    output_leaves=[type(leaf).__name__ for leaf in leaves],
    output_type=spec.type.__name__,
)
