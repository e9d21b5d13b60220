"""A tiny BERT from transformers: a forward pass over a padded batch."""

import torch
from common import emit, set_weights
from transformers import BertConfig, BertModel

config = BertConfig(
    vocab_size=100,
    hidden_size=64,
    num_hidden_layers=2,
    num_attention_heads=2,
    intermediate_size=128,
    max_position_embeddings=64,
)
model = BertModel(config)
set_weights(model)
model.train(False)  # dropout off: both libraries must see the same function
ids = torch.tensor([[(7 * i + 3) % 100 for i in range(10)], [(5 * i + 1) % 100 for i in range(10)]])
attention_mask = torch.tensor([[1] * 10, [1] * 6 + [0] * 4])
token_type_ids = torch.tensor([[0] * 5 + [1] * 5, [0] * 10])
with torch.no_grad():
    out = model(ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
emit(last_hidden_state=out.last_hidden_state, pooler_output=out.pooler_output)
