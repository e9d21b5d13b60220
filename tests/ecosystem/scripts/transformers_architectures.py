"""Tiny transformers models of several architectures in one process: loss, a slice of the
logits and every gradient's norm of one forward and backward over a left-padded batch
(unpadded for Mamba, which takes no attention mask).

Each reaches a part of the torch API the GPT-2, BERT and Llama scripts do not: Mixtral's
experts (a custom op called with a keyword argument), Mamba's selective scan (its load hook
and `torch._higher_order_ops`), and Falcon's ALiBi on padding (the flash attention
kernel's gradient for fully masked queries).
"""

import torch
from common import emit, set_weights
from transformers import (
    FalconConfig,
    FalconForCausalLM,
    MambaConfig,
    MambaForCausalLM,
    MixtralConfig,
    MixtralForCausalLM,
)

ids = torch.tensor([[(7 * i + 3) % 100 for i in range(12)], [(5 * i + 1) % 100 for i in range(12)]])
mask = torch.tensor([[1] * 12, [0] * 3 + [1] * 9])
small = dict(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64)


def step(model, **inputs):
    set_weights(model)
    model.train(False)
    out = model(**inputs)
    out.loss.backward()
    grads = {n: p.grad.norm() for n, p in sorted(model.named_parameters()) if p.grad is not None}
    return {"loss": out.loss, "logits": out.logits.reshape(-1)[:8], "grad_norms": grads}


def causal(model, padded=True):
    if not padded:
        return step(model, input_ids=ids, labels=ids)
    return step(model, input_ids=ids, attention_mask=mask, labels=ids)


mixtral = MixtralConfig(
    vocab_size=100, num_key_value_heads=1, num_local_experts=4, num_experts_per_tok=2, **small
)
mamba = MambaConfig(vocab_size=100, hidden_size=32, state_size=8, num_hidden_layers=1)
falcon = FalconConfig(
    vocab_size=100, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, alibi=True
)
emit(
    mixtral=causal(MixtralForCausalLM(mixtral)),
    mamba=causal(MambaForCausalLM(mamba), padded=False),
    falcon=causal(FalconForCausalLM(falcon)),
)
