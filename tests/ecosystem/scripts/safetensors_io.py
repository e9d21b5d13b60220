"""safetensors' torch functions: `write DIR` saves tensors of six dtypes (and views) with
save_file and save, reads them back with load_file, load and safe_open (mmap and pread), and
prints the files' digests with what was read; `read FILE` prints what a file written by the
other library holds."""

from __future__ import annotations

import hashlib
import pathlib
import sys

import numpy as np
import torch
from common import emit
from safetensors import safe_open
from safetensors.torch import load, load_file, save, save_file


def tensors() -> dict:
    """Tensors of six dtypes, one a packed non-contiguous view, one empty."""
    rng = np.random.default_rng(0)
    base = torch.from_numpy(rng.standard_normal((4, 6)).astype(np.float32))
    return {
        "f32": base,
        "f16": base.half(),
        "bf16": base.to(torch.bfloat16),
        "i64": torch.from_numpy(rng.integers(-(2**40), 2**40, (3, 5))),
        "bool": torch.from_numpy(rng.standard_normal(7) > 0),
        "cols": base[:, 1:4].contiguous(),  # a non-contiguous view, packed
        "scalar": torch.tensor(3.5),
        "empty": torch.zeros(0, 3),
        "u8": torch.arange(5, dtype=torch.uint8),
    }


def described(found: dict) -> dict:
    """Each tensor's dtype, shape and values (bfloat16 and float16 as float32)."""
    return {
        name: {"dtype": str(t.dtype), "shape": list(t.shape), "values": t.float().tolist()}
        for name, t in sorted(found.items())
    }


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write(folder: pathlib.Path) -> None:
    written = tensors()
    path = folder / "weights.safetensors"
    save_file(written, str(path), metadata={"format": "pt"})
    row = folder / "row.safetensors"
    save_file({"row": written["f32"][2]}, str(row))  # a contiguous view at offset 12
    refused = {}
    for name, bad in (
        ("strided", {"s": written["f32"][:, 1:4]}),
        ("shared", {**written, "row": written["f32"][2]}),
    ):
        try:
            save_file(bad, str(folder / "refused.safetensors"))
            refused[name] = "saved"
        except (ValueError, RuntimeError) as error:
            refused[name] = str(error).split(":")[0].strip()
    readers = {}
    for backend in ("mmap", "pread"):
        with safe_open(str(path), framework="pt", backend=backend) as f:
            readers[backend] = {
                "keys": sorted(f.keys()),
                "metadata": f.metadata(),
                "i64": f.get_tensor("i64").tolist(),
                "slice": f.get_slice("f32")[1:3, ::2].tolist(),
            }
    emit(
        file=digest(path.read_bytes()),
        bytes=digest(save(written)),
        loaded=described(load_file(str(path))),
        from_bytes=described(load(path.read_bytes())),
        readers=readers,
        row={"file": digest(row.read_bytes()), "loaded": described(load_file(str(row)))},
        refused=refused,
        unchanged=described(written) == described(tensors()),
    )


def read(path: pathlib.Path) -> None:
    emit(loaded=described(load_file(str(path))), file=digest(path.read_bytes()))


if __name__ == "__main__":
    action, where = sys.argv[1], pathlib.Path(sys.argv[2])
    write(where) if action == "write" else read(where)
