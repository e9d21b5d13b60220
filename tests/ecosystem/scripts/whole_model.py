"""A whole model saved with `torch.save(model)` and loaded under `safe_globals`, as
pytorch/examples' word language model does: `whole_model.py save PATH` or `load PATH`."""

import sys

import torch
import torch.nn as nn
from common import emit, set_weights


class RNNModel(nn.Module):
    """An embedding, a dropout, an LSTM and a decoder, as the word language model's."""

    def __init__(self, ntoken=20, ninp=8, nhid=8):
        super().__init__()
        self.drop = nn.Dropout(0.2)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, 1)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, tokens):
        output, _ = self.rnn(self.drop(self.encoder(tokens)))
        return self.decoder(self.drop(output))


tokens = torch.tensor([[1, 2, 3], [4, 5, 6]])
action, path = sys.argv[1], sys.argv[2]
if action == "save":
    model = RNNModel()
    set_weights(model)
    torch.save(model, path)
    model.eval()
    emit(output=model(tokens))
else:
    allowed = [RNNModel, nn.Dropout, nn.Embedding, nn.LSTM, nn.Linear]
    with torch.serialization.safe_globals(allowed):
        model = torch.load(path)
    model.eval()
    emit(output=model(tokens), type=type(model).__name__)
