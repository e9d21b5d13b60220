"""Hugging Face transformers models under the alias, against real PyTorch."""

import pytest

pytest.importorskip("transformers")


def test_gpt2_train_step_and_generate(both):
    ours = both("transformers_gpt2.py")
    assert len(ours["generated"][0]) == 14


def test_trainer_pipeline_and_decoding(both):
    """Trainer.train and evaluate, a text-generation pipeline, sampling and beam search."""
    ours = both("transformers_trainer.py", ".")
    assert len(ours["losses"]) == 4 and ours["eval_loss"] > 0
    assert len(ours["sampled"][0]) == 10 and len(ours["beams"][0]) == 8
    assert ours["pipeline"].startswith("w1 w2 w3")


def test_bert_forward(both):
    ours = both("transformers_bert.py")
    assert len(ours["last_hidden_state"][1]) == 10 and len(ours["pooler_output"][0]) == 64


def test_llama_forward_and_backward(both):
    """Padded (grouped heads repeated by transformers) and unpadded (enable_gqa) attention."""
    ours = both("transformers_llama.py")
    assert len(ours["grad_norms"]) == 21  # every parameter got a gradient
    assert len(ours["unpadded"]) == 2


def test_llama_flex_attention_equals_sdpa(both):
    """transformers' flex_attention path (block mask from its mask functions, score_mod,
    grouped-query heads) gives PyTorch's sdpa result, forward and backward."""
    ours = both("transformers_llama.py", "flex_attention")
    assert ours["loss"] > 0


@pytest.mark.parametrize("reentrant", ["true", "false"])
def test_llama_gradient_checkpointing(both, reentrant):
    """Checkpointed decoder layers recompute in the backward: the same loss, gradients and
    FLOPs (the recomputation included) as real PyTorch, and the ModelOutput as a pytree."""
    ours = both("transformers_checkpointing.py", reentrant)
    assert len(ours["grad_norms"]) == 21 and ours["output_type"] == "CausalLMOutputWithPast"


def test_mixtral_mamba_falcon_alibi_and_time_series_forward_and_backward(both):
    """Four more architectures in one process: mixture-of-experts routing, a selective
    scan, ALiBi over padding, and a Student-t forecasting head."""
    ours = both("transformers_architectures.py")
    assert set(ours) == {"mixtral", "mamba", "falcon", "time_series"}
    assert all(len(model["grad_norms"]) > 5 for model in ours.values())
