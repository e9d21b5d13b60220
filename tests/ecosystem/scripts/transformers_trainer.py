"""transformers' own training and inference machinery on a tiny GPT-2: `Trainer.train` for two
epochs and `evaluate` (its data loading, AdamW, schedule, loss logging), a text-generation
`pipeline` with a word-level tokenizer, and `generate` with sampling (top-k, top-p,
temperature) and with beam search."""

import pathlib
import sys

import torch
from common import emit, set_weights
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import (
    GPT2Config,
    GPT2LMHeadModel,
    PreTrainedTokenizerFast,
    Trainer,
    TrainingArguments,
    pipeline,
)

VOCAB = 50


def tiny_gpt2() -> GPT2LMHeadModel:
    config = GPT2Config(n_layer=1, n_head=2, n_embd=32, vocab_size=VOCAB, n_positions=32)
    config.bos_token_id = config.eos_token_id = config.pad_token_id = 0
    model = GPT2LMHeadModel(config)
    set_weights(model)
    return model


class Sequences(torch.utils.data.Dataset):
    def __len__(self) -> int:
        return 8

    def __getitem__(self, i: int) -> dict:
        ids = (torch.arange(8) * (i + 1) + i) % VOCAB
        return {"input_ids": ids, "labels": ids}


def train(folder: pathlib.Path) -> tuple:
    arguments = TrainingArguments(
        str(folder),
        per_device_train_batch_size=4,
        num_train_epochs=2,
        learning_rate=1e-2,
        logging_steps=1,
        report_to=[],
        save_strategy="no",
        use_cpu=True,
        seed=0,
        dataloader_num_workers=0,
    )
    trainer = Trainer(
        model=tiny_gpt2(), args=arguments, train_dataset=Sequences(), eval_dataset=Sequences()
    )
    result = trainer.train()
    losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
    return result.training_loss, losses, trainer.evaluate()["eval_loss"]


def generated() -> dict:
    model = tiny_gpt2().eval()
    words = Tokenizer(models.WordLevel({f"w{i}": i for i in range(VOCAB)}, unk_token="w0"))
    words.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=words, unk_token="w0", pad_token="w0")
    text = pipeline("text-generation", model=model, tokenizer=tokenizer, device="cpu")
    ids = torch.tensor([[3, 14, 15, 9]])
    torch.manual_seed(1)
    sampled = model.generate(
        ids, max_new_tokens=6, do_sample=True, top_k=10, top_p=0.9, temperature=0.8
    )
    return {
        "pipeline": text("w1 w2 w3", max_new_tokens=4, do_sample=False)[0]["generated_text"],
        "sampled": sampled,
        "beams": model.generate(ids, max_new_tokens=4, num_beams=3, do_sample=False),
    }


training_loss, losses, eval_loss = train(pathlib.Path(sys.argv[1]))
emit(training_loss=training_loss, losses=losses, eval_loss=eval_loss, **generated())
