"""torch.utils.tensorboard.SummaryWriter: the event files we write read back through
TensorBoard's EventAccumulator with the same tags, steps and values as PyTorch's."""

from __future__ import annotations

import importlib
import os
import re
import socket
import sys

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import (  # the test extra has it
    STORE_EVERYTHING_SIZE_GUIDANCE,
    EventAccumulator,
)
from tensorboard.compat.proto.tensor_pb2 import TensorProto

import autograd_compat as torch
from autograd_compat.utils.tensorboard import SummaryWriter


def _log(lib, writer_class, log_dir: str) -> None:
    """The same calls through either library's SummaryWriter."""
    values = np.linspace(-3.0, 5.0, 50)
    pixels = np.linspace(-0.2, 1.2, 3 * 5 * 7, dtype=np.float32).reshape(3, 5, 7)  # clipped
    with writer_class(log_dir, filename_suffix=".test") as writer:
        for step in range(3):
            writer.add_scalar("loss", lib.tensor(1.0 / (step + 1)), step)
            writer.add_scalar("lr", 0.1 * step, step, new_style=True)
            writer.add_scalars("train/metrics", {"acc": np.float32(step / 4), "f1": step}, step)
            writer.add_histogram("weights", lib.tensor(values * (step + 1)), step)
        writer.add_histogram("numpy", values, 7, bins="auto", max_bins=4)
        writer.add_text("note", "a *markdown* note", 3)
        writer.add_image("image", lib.tensor(pixels), 1)
        writer.add_image(
            "uint8_hwc", (pixels.transpose(1, 2, 0) * 255).astype(np.uint8), 2, dataformats="HWC"
        )
        writer.add_image("gray", lib.tensor(pixels[0]), 0, dataformats="HW")
        writer.add_images("batch", lib.tensor(np.stack([pixels] * 10)), 0)
        figure = plt.figure(figsize=(1, 1), dpi=20)
        plt.plot([0, 1], [1, 0])
        writer.add_figure("figure", figure, 0)
        labels, predictions = values > 0, (values + 3) / 8
        writer.add_pr_curve("pr", lib.tensor(labels), lib.tensor(predictions), 0)
        writer.add_pr_curve(
            "pr_weighted", labels, predictions, 1, num_thresholds=300, weights=values**2
        )
        writer.add_hparams(
            {"lr": 0.1, "opt": "sgd", "nesterov": True, "wd": None}, {"hp/acc": 0.5}, run_name="hp"
        )
        writer.flush()


def _read(run: str) -> dict:
    """Everything TensorBoard reads from one run but the wall times."""
    events = EventAccumulator(run, size_guidance=STORE_EVERYTHING_SIZE_GUIDANCE)
    events.Reload()
    tags = events.Tags()
    content: dict = {}
    for tag in tags["scalars"]:
        content[tag] = [(e.step, e.value) for e in events.Scalars(tag)]
    for tag in tags["histograms"]:
        content[tag] = [(e.step, e.histogram_value) for e in events.Histograms(tag)]
    for tag in tags["images"]:
        content[tag] = [
            (e.step, e.width, e.height, e.encoded_image_string) for e in events.Images(tag)
        ]
    for tag in tags["tensors"]:
        content[tag] = [(e.step, e.tensor_proto.SerializeToString()) for e in events.Tensors(tag)]
    plugins = {p: sorted(events.PluginTagToContent(p).items()) for p in events.PluginAssets("")}
    return {"tags": tags, "content": content, "plugins": plugins}


def _runs(log_dir: str) -> dict:
    runs = {}
    for folder, _, files in os.walk(log_dir):
        events = [f for f in files if f.startswith("events.out.tfevents.")]
        runs[os.path.relpath(folder, log_dir)] = (len(events), _read(folder))
    return runs


def test_event_files_read_back_as_pytorchs(tmp_path, real_torch):
    from torch.utils.tensorboard import SummaryWriter as RealSummaryWriter

    _log(torch, SummaryWriter, str(tmp_path / "ours"))
    _log(real_torch, RealSummaryWriter, str(tmp_path / "theirs"))
    ours, theirs = _runs(str(tmp_path / "ours")), _runs(str(tmp_path / "theirs"))
    assert sorted(ours) == [".", "hp", "train_metrics_acc", "train_metrics_f1"]
    assert ours == theirs
    content = ours["."][1]["content"]
    assert content["loss"] == [(0, 1.0), (1, 0.5), (2, pytest.approx(1 / 3))]
    histogram = content["weights"][2][1]
    assert (histogram.min, histogram.max, histogram.num) == (-9.0, 15.0, 50)
    assert sum(histogram.bucket) == 50
    assert ours["train_metrics_f1"][1]["content"]["train/metrics"][2] == (2, 2.0)
    assert ours["hp"][1]["content"]["hp/acc"] == [(0, 0.5)]
    assert [content[t][0][1:3] for t in ("image", "gray", "batch")] == [(7, 5), (7, 5), (56, 10)]
    assert content["figure"][0][1:3] == (20, 20)
    curve = TensorProto.FromString(content["pr_weighted"][0][1])
    assert [d.size for d in curve.tensor_shape.dim] == [6, 127]  # at most 127 thresholds
    names = os.listdir(tmp_path / "ours")
    assert any(re.fullmatch(r"events\.out\.tfevents\..*\.test", name) for name in names)


def test_default_log_dir_comment_and_purge_step(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    writer = SummaryWriter(comment="_lr0.1", purge_step=5)
    pattern = rf"runs/[A-Z][a-z]{{2}}\d\d_\d\d-\d\d-\d\d_{re.escape(socket.gethostname())}_lr0\.1"
    assert re.fullmatch(pattern, writer.get_logdir())
    writer.add_scalar("x", np.array([2.0]), 5)
    writer.close()
    writer.close()  # a second close does nothing
    writer.add_scalar("x", 3.0, 6)  # reopens: a new event file
    writer.close()
    files = os.listdir(writer.get_logdir())
    assert len(files) == 2
    assert _read(writer.get_logdir())["content"]["x"] == [(5, 2.0), (6, 3.0)]


def test_unsupported_and_bad_values_say_so(tmp_path, real_torch):
    from torch.utils.tensorboard import SummaryWriter as RealSummaryWriter

    with SummaryWriter(str(tmp_path)) as writer:
        with pytest.raises(NotImplementedError, match="add_graph is not yet supported"):
            writer.add_graph(torch.nn.Linear(2, 2), torch.ones(1, 2))
        with pytest.raises(AttributeError, match="add_audio is not yet supported"):
            writer.add_audio("sound", np.zeros(100))
        with pytest.raises(AssertionError, match="size of input tensor and input format"):
            writer.add_image("image", np.zeros((3, 2, 2)), dataformats="HW")
        with RealSummaryWriter(str(tmp_path / "real")) as real:
            for bad in (np.ones(2), [1.0]):
                with pytest.raises(Exception) as theirs:
                    real.add_scalar("x", bad)
                with pytest.raises(type(theirs.value)) as caught:
                    writer.add_scalar("x", bad)
                assert " ".join(str(caught.value).split()) == " ".join(str(theirs.value).split())


def test_missing_tensorboard_fails_at_import_as_in_pytorch(monkeypatch, real_torch):
    errors = []
    for name in ("autograd_compat.utils.tensorboard", "torch.utils.tensorboard"):
        for module in [m for m in sys.modules if m.startswith(name)]:
            monkeypatch.delitem(sys.modules, module)
        monkeypatch.setitem(sys.modules, "tensorboard", None)
        with pytest.raises(ModuleNotFoundError) as caught:
            importlib.import_module(name)
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
