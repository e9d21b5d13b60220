"""torchmetrics' Accuracy, F1Score and MeanSquaredError, each updated with two batches, then
computed (the classification ones also per batch through forward) and reset; R2Score and
ExplainedVariance (their compute masks 0-d results with 0-d bool tensors), MaxMetric and
MinMetric (forward deep-copies their states) and RetrievalNormalizedDCG."""

import numpy as np
import torch
from common import emit
from torchmetrics import (
    Accuracy,
    ExplainedVariance,
    F1Score,
    MaxMetric,
    MeanSquaredError,
    MinMetric,
    R2Score,
)
from torchmetrics.retrieval import RetrievalNormalizedDCG

rng = np.random.default_rng(3)
batches = [
    (
        torch.tensor(rng.standard_normal((6, 4)), dtype=torch.float32),
        torch.tensor([0, 3, 1, 1, 2, 3]),
    ),
    (
        torch.tensor(rng.standard_normal((6, 4)), dtype=torch.float32),
        torch.tensor([2, 2, 0, 1, 3, 0]),
    ),
]
accuracy = Accuracy(task="multiclass", num_classes=4)
f1 = F1Score(task="multiclass", num_classes=4, average="macro")
binary_f1 = F1Score(task="binary", threshold=0.4)
mse = MeanSquaredError()
regression = [R2Score(), ExplainedVariance(), MaxMetric(), MinMetric()]
ndcg = RetrievalNormalizedDCG()
per_batch = []
for logits, target in batches:
    per_batch.append([accuracy(logits, target), f1(logits.softmax(-1), target)])
    binary_f1.update(logits[:, 0].sigmoid(), (target > 1).long())
    mse.update(logits[:, 0], target.float())
    for metric in regression:
        if isinstance(metric, (MaxMetric, MinMetric)):
            per_batch.append(metric(logits[:, 1]))
        else:
            per_batch.append(metric(logits[:, 0], target.float() + logits[:, 0]))
    ndcg.update(logits[:, 2].sigmoid(), target > 1, indexes=torch.arange(6) % 2)
results = {
    "per_batch": per_batch,
    "accuracy": accuracy.compute(),
    "f1": f1.compute(),
    "binary_f1": binary_f1.compute(),
    "mse": mse.compute(),
    "regression": [metric.compute() for metric in regression],
    "ndcg": ndcg.compute(),
}
mse.reset()
mse.update(torch.zeros(3), torch.ones(3))
emit(**results, mse_after_reset=mse.compute())
