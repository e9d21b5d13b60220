"""SummaryWriter and FileWriter: PyTorch's TensorBoard logging API over tensorboard's own
event-file writer, so the files are the ones TensorBoard reads."""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime

from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import _utils, summary

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Writes Event protocol buffers to a new event file in `log_dir` (asynchronously,
    flushed every `flush_secs` seconds or when `max_queue` events are waiting)."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix="") -> None:
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self) -> str:
        """The directory the event file is written in."""
        return self.event_writer.get_logdir()

    def add_event(self, event: Event, step=None, walltime=None) -> None:
        """Stamp `event` with the wall time (now unless given) and `step`, and queue it."""
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None) -> None:
        """Queue a Summary protocol buffer as an Event."""
        self.add_event(Event(summary=summary), global_step, walltime)

    def flush(self) -> None:
        """Write the queued events to disk."""
        self.event_writer.flush()

    def close(self) -> None:
        """Flush and close the event file."""
        self.event_writer.close()

    def reopen(self) -> None:
        """After `close()`, continue in a new event file in the same directory."""
        self.event_writer.reopen()


class SummaryWriter:
    """Writes scalars, histograms, text and hyperparameters to event files in `log_dir`
    for TensorBoard, as PyTorch's `torch.utils.tensorboard.SummaryWriter` does.

    Args:
        log_dir (str, optional): where to write. Defaults to `runs/CURRENT_DATETIME_HOSTNAME`
            followed by `comment`.
        comment (str, optional): suffix of the default `log_dir`; ignored when `log_dir` is
            given. Defaults to "".
        purge_step (int, optional): after a crash at step T+X, restarting at T: events of
            steps >= T are hidden by TensorBoard. Defaults to None.
        max_queue (int, optional): events held before a write to disk. Defaults to 10.
        flush_secs (int, optional): seconds between writes to disk. Defaults to 120.
        filename_suffix (str, optional): suffix of every event file's name. Defaults to "".

    Values may be Tensors (detached and read on the host), numpy arrays or Python numbers.
    `add_graph` is not supported (it needs `torch.jit.trace`'s graph).

    Example::

        >>> import tempfile
        >>> from autograd_compat.utils.tensorboard import SummaryWriter  # torch.utils.tensorboard
        >>> with SummaryWriter(tempfile.mkdtemp()) as writer:
        ...     for step in range(3):
        ...         writer.add_scalar("loss", torch.tensor(1.0 / (step + 1)), step)
    """

    def __init__(
        self,
        log_dir=None,
        comment="",
        purge_step=None,
        max_queue=10,
        flush_secs=120,
        filename_suffix="",
    ) -> None:
        if not log_dir:
            started = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{started}_{socket.gethostname()}{comment}")
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer: FileWriter | None = None
        self.all_writers: dict[str, FileWriter] = {}  # by directory; empty once closed
        self.default_bins = summary.default_bins()
        self._get_file_writer()

    def _get_file_writer(self) -> FileWriter:
        """The writer of `log_dir`, opened anew after `close()`."""
        if self.file_writer is None:
            self.file_writer = self._new_writer(self.log_dir)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                step = self.purge_step
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                start = SessionLog(status=SessionLog.START)
                self.file_writer.add_event(Event(step=step, session_log=start))
                self.purge_step = None
        return self.file_writer

    def _new_writer(self, log_dir: str) -> FileWriter:
        return FileWriter(log_dir, self.max_queue, self.flush_secs, self.filename_suffix)

    def get_logdir(self) -> str:
        """The directory the event files are written in."""
        return self.log_dir

    def add_scalar(
        self,
        tag,
        scalar_value,
        global_step=None,
        walltime=None,
        new_style=False,
        double_precision=False,
    ) -> None:
        """Log one number (a float, a one-element Tensor or array) under `tag`."""
        value = summary.scalar(tag, scalar_value, new_style, double_precision)
        self._get_file_writer().add_summary(value, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None) -> None:
        """Log several numbers in one chart: each goes to its own run, the subdirectory
        `<log_dir>/<main_tag>_<tag>` ("/" in `main_tag` written as "_"), under `main_tag`."""
        walltime = time.time() if walltime is None else walltime
        root = self._get_file_writer().get_logdir()
        writers = self.all_writers
        for tag, value in tag_scalar_dict.items():
            run = f"{root}/{main_tag.replace('/', '_')}_{tag}"
            if run not in writers:
                writers[run] = self._new_writer(run)
            writers[run].add_summary(summary.scalar(main_tag, value), global_step, walltime)

    def add_histogram(
        self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None
    ) -> None:
        """Log a histogram of `values`; `bins` is "tensorflow" (TensorFlow's exponential
        buckets) or anything `numpy.histogram` takes."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        value = summary.histogram(tag, values, bins, max_bins)
        self._get_file_writer().add_summary(value, global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None) -> None:
        """Log a string (Markdown in TensorBoard's text tab)."""
        value = summary.text(tag, text_string)
        self._get_file_writer().add_summary(value, global_step, walltime)

    def add_hparams(
        self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None, global_step=None
    ) -> None:
        """Log a hyperparameter set and its metrics for TensorBoard's HPARAMS tab, in the run
        `<log_dir>/<run_name>` (the current time when not given)."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        summaries = summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        run = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=run) as writer:
            for part in summaries:
                writer._get_file_writer().add_summary(part, global_step)
            for tag, value in metric_dict.items():
                writer.add_scalar(tag, value, global_step)

    def add_image(
        self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"
    ) -> None:
        """One image (3 x H x W by default; `dataformats` "HWC", "HW", ... otherwise), float
        values in [0, 1] or uint8 in [0, 255]."""
        self._get_file_writer().add_summary(
            summary.image(tag, img_tensor, dataformats=dataformats), global_step, walltime
        )

    def add_images(
        self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"
    ) -> None:
        """A batch of images (N x 3 x H x W by default), tiled into one grid image."""
        self.add_image(tag, img_tensor, global_step, walltime, dataformats)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None) -> None:
        """A matplotlib figure (or a list of them, tiled) rendered as an image; closed
        afterwards unless `close` is False."""
        layout = "NCHW" if isinstance(figure, list) else "CHW"
        image = _utils.figure_to_image(figure, close)
        self.add_image(tag, image, global_step, walltime, dataformats=layout)

    def add_pr_curve(
        self,
        tag,
        labels,
        predictions,
        global_step=None,
        num_thresholds=127,
        weights=None,
        walltime=None,
    ) -> None:
        """A precision-recall curve from binary labels and predicted probabilities."""
        labels, predictions = summary.make_np(labels), summary.make_np(predictions)
        self._get_file_writer().add_summary(
            summary.pr_curve(tag, labels, predictions, num_thresholds, weights),
            global_step,
            walltime,
        )

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """Not supported: PyTorch draws the graph `torch.jit.trace` records, which this
        library does not have."""
        raise NotImplementedError(
            "SummaryWriter.add_graph is not yet supported by autograd_compat: it needs the "
            "graph torch.jit.trace records. Log scalars, histograms or text instead."
        )

    def flush(self) -> None:
        """Write every pending event to disk."""
        for writer in self.all_writers.values():
            writer.flush()

    def close(self) -> None:
        """Flush and close every event file; a later add_* opens new ones."""
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = None
        self.all_writers = {}

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        self.close()

    def __getattr__(self, name: str):
        """PyTorch's other add_* methods (audio, video, embeddings, meshes...): not yet
        supported."""
        message = f"'SummaryWriter' object has no attribute '{name}'"
        if name.startswith("add_"):
            message += f": SummaryWriter.{name} is not yet supported by autograd_compat"
        raise AttributeError(message)
