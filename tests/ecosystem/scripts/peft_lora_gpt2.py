"""peft LoRA on a tiny GPT-2: only the adapters train (three AdamW steps); the adapter is
saved with save_pretrained (safetensors) and loaded onto a fresh base with from_pretrained."""

from __future__ import annotations

import pathlib
import sys

import torch
from common import emit, set_weights
from peft import LoraConfig, PeftModel, get_peft_model
from transformers import GPT2Config, GPT2LMHeadModel

CONFIG = GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=100, n_positions=64)


def base() -> GPT2LMHeadModel:
    model = GPT2LMHeadModel(CONFIG)
    set_weights(model)
    model.train(False)  # dropout off: both libraries must see the same function
    return model


def main(folder: pathlib.Path) -> None:
    model = get_peft_model(base(), LoraConfig(r=4, lora_alpha=8, target_modules=["c_attn"]))
    set_weights(model, seed=3)  # the adapters' weights too (lora_B is zeros otherwise)
    model.train(False)
    ids = torch.tensor(
        [[(7 * i + 3) % 100 for i in range(12)], [(5 * i + 1) % 100 for i in range(12)]]
    )
    trainable = sorted(n for n, p in model.named_parameters() if p.requires_grad)
    frozen = {n: p.detach().clone() for n, p in model.named_parameters() if not p.requires_grad}
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    losses = []
    for _ in range(3):
        optimizer.zero_grad()
        loss = model(ids, labels=ids).loss
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    unchanged = all(torch.equal(p, frozen[n]) for n, p in model.named_parameters() if n in frozen)
    logits = model(ids).logits
    model.save_pretrained(str(folder / "adapter"))
    loaded = PeftModel.from_pretrained(base(), str(folder / "adapter"))
    loaded.train(False)
    adapters = {n: p for n, p in model.named_parameters() if p.requires_grad}
    reloaded = {n: p for n, p in loaded.named_parameters() if n in adapters}
    same_adapters = len(reloaded) == len(adapters) and all(
        torch.equal(p, adapters[n]) for n, p in reloaded.items()
    )
    emit(
        losses=losses,
        trainable=trainable,
        frozen_unchanged=unchanged,
        adapters=adapters,
        adapters_reloaded=same_adapters,
        logits=logits[:, -1],
        reloaded=loaded(ids).logits[:, -1],
        files=sorted(p.name for p in (folder / "adapter").iterdir()),
    )


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
