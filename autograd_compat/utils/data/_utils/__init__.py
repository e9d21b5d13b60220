"""The DataLoader's internals, at PyTorch's module paths: `fetch` (turn indices into a batch)
and `worker` (the loop a worker process runs, and `get_worker_info`)."""

MP_STATUS_CHECK_INTERVAL = 5.0
"""Seconds between checks that the other side is alive (a worker of its parent, the parent of
its workers) while waiting on a queue."""
