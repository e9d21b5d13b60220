"""Tiny transformers models of several architectures in one process: loss, a slice of the
logits and every gradient's norm of one forward and backward over a left-padded batch
(unpadded for Mamba, which takes no attention mask).

Each reaches a part of the torch API the GPT-2, BERT and Llama scripts do not: Mixtral's
experts (a custom op called with a keyword argument), Mamba's selective scan (its load hook
and `torch._higher_order_ops`), Falcon's ALiBi on padding (the flash attention kernel's
gradient for fully masked queries), and a time-series transformer's Student-t head (its loss a
negative log-likelihood through `torch.distributions`: StudentT, AffineTransform,
TransformedDistribution, Independent).
"""

import numpy as np
import torch
from common import emit, set_weights
from transformers import (
    FalconConfig,
    FalconForCausalLM,
    MambaConfig,
    MambaForCausalLM,
    MixtralConfig,
    MixtralForCausalLM,
    TimeSeriesTransformerConfig,
    TimeSeriesTransformerForPrediction,
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


def forecast(model):
    """A Student-t forecast's loss (the negative log-likelihood of the future values)."""
    rng = np.random.default_rng(3)
    values = {
        "past_values": (2, 10),
        "past_time_features": (2, 10, 1),
        "future_values": (2, 4),
        "future_time_features": (2, 4, 1),
    }
    inputs = {k: torch.from_numpy(rng.standard_normal(s, np.float32)) for k, s in values.items()}
    set_weights(model)
    model.train(False)
    out = model(**inputs, past_observed_mask=torch.ones(2, 10))
    out.loss.backward()
    grads = {n: p.grad.norm() for n, p in sorted(model.named_parameters()) if p.grad is not None}
    return {"loss": out.loss, "logits": out.params[0].reshape(-1)[:8], "grad_norms": grads}


mixtral = MixtralConfig(
    vocab_size=100, num_key_value_heads=1, num_local_experts=4, num_experts_per_tok=2, **small
)
mamba = MambaConfig(vocab_size=100, hidden_size=32, state_size=8, num_hidden_layers=1)
falcon = FalconConfig(
    vocab_size=100, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, alibi=True
)
series = TimeSeriesTransformerConfig(
    prediction_length=4,
    context_length=8,
    input_size=1,
    lags_sequence=[1, 2],
    num_time_features=1,
    d_model=16,
    encoder_layers=1,
    decoder_layers=1,
    encoder_attention_heads=2,
    decoder_attention_heads=2,
    encoder_ffn_dim=16,
    decoder_ffn_dim=16,
    distribution_output="student_t",
)
emit(
    mixtral=causal(MixtralForCausalLM(mixtral)),
    mamba=causal(MambaForCausalLM(mamba), padded=False),
    falcon=causal(FalconForCausalLM(falcon)),
    time_series=forecast(TimeSeriesTransformerForPrediction(series)),
)
