"""`spawn` and `start_processes`: run `fn(i, *args)` in N processes and wait for them, raising
in the parent the exception (with its traceback text) or the exit of the first that failed."""

from __future__ import annotations

import logging
import multiprocessing.connection
import os
import pickle
import signal
import sys
import tempfile
import time
import traceback
import warnings

from ._context import DEFAULT

__all__ = [
    "ProcessContext",
    "ProcessExitedException",
    "ProcessRaisedException",
    "spawn",
    "start_processes",
]

_log = logging.getLogger(__name__)


class ProcessException(Exception):
    """A process started by `start_processes` failed."""

    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg: str, error_index: int, error_pid: int) -> None:
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A process failed by raising an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A process exited with a non-zero code or was ended by a signal."""

    __slots__ = ["exit_code"]

    def __init__(
        self,
        msg: str,
        error_index: int,
        error_pid: int,
        exit_code: int,
        signal_name: str | None = None,
    ) -> None:
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        args = (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)
        return type(self), args


def _wrap(fn, i: int, args: tuple, error_file: str) -> None:
    """The child's entry point: run `fn(i, *args)`; on an exception, write its traceback to
    `error_file` for the parent and exit with code 1."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent ended this process
    except Exception:
        with open(error_file, "wb") as file:
            pickle.dump(traceback.format_exc(), file)
        sys.exit(1)


class ProcessContext:
    """The processes of one `start_processes` call; `join()` waits for them."""

    def __init__(self, processes: list, error_files: list) -> None:
        self.error_files = error_files
        self.processes = processes
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self) -> list[int]:
        return [int(process.pid) for process in self.processes]

    def _join_all(self, timeout: float) -> None:
        end = time.monotonic() + timeout
        for process in self.processes:
            process.join(max(0.0, end - time.monotonic()))

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """Wait up to `timeout` seconds for a process to end. True once all ended well, False
        while some still run; if one failed, stop the others (SIGTERM after `grace_period`,
        SIGKILL after another) and raise ProcessRaisedException or ProcessExitedException."""
        if not self.sentinels:
            return True
        failed = None
        for sentinel in multiprocessing.connection.wait(list(self.sentinels), timeout=timeout):
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        self._stop_the_others(grace_period)
        raise self._failure(failed)

    def _stop_the_others(self, grace_period: float | None) -> None:
        if grace_period is not None:
            self._join_all(grace_period)
        for process in self.processes:
            if process.is_alive():
                _log.warning("Terminating process %s via signal SIGTERM", process.pid)
                process.terminate()
        self._join_all(30 if grace_period is None else grace_period)
        for process in self.processes:
            if process.is_alive():
                _log.warning(
                    "Unable to shutdown process %s via SIGTERM , forcefully exiting via SIGKILL",
                    process.pid,
                )
                process.kill()
            process.join()

    def _failure(self, index: int) -> ProcessException:
        process = self.processes[index]
        if not os.access(self.error_files[index], os.R_OK):
            code = process.exitcode
            if code >= 0:
                return ProcessExitedException(
                    f"process {index:d} terminated with exit code {code:d}",
                    error_index=index,
                    error_pid=process.pid,
                    exit_code=code,
                )
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"<Unknown signal {-code}>"
            return ProcessExitedException(
                f"process {index:d} terminated with signal {name}",
                error_index=index,
                error_pid=process.pid,
                exit_code=code,
                signal_name=name,
            )
        with open(self.error_files[index], "rb") as file:
            trace = pickle.load(file)
        message = f"\n\n-- Process {index:d} terminated with the following error:\n{trace}"
        return ProcessRaisedException(message, index, process.pid)


def _error_file() -> str:
    """A path no file has yet: a child that raises writes its traceback there."""
    with tempfile.NamedTemporaryFile(
        prefix="pytorch-errorfile-", suffix=".pickle", delete=False
    ) as file:
        name = file.name
    os.unlink(name)
    return name


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start `nprocs` processes running `fn(i, *args)` by `start_method` ("spawn" or
    "forkserver"; "fork" is refused, see `torch.multiprocessing`). With `join`, wait for all
    and return None; else return their ProcessContext."""
    context = DEFAULT.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        error_files.append(_error_file())
        process = context.Process(target=_wrap, args=(fn, i, args, error_files[-1]), daemon=daemon)
        process.start()
        processes.append(process)
    processes_context = ProcessContext(processes, error_files)
    if not join:
        return processes_context
    while not processes_context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Spawn `nprocs` processes that run `fn(i, *args)` (`i` the process index) and wait for
    them: if one fails, the others are stopped and its exception (or exit) is raised here.

    Args:
        fn (function): a function defined at the top level of a module (it is pickled).
        args (tuple): arguments passed to `fn` after the index.
        nprocs (int): how many processes.
        join (bool): wait for them (else return their ProcessContext).
        daemon (bool): the processes' daemon flag.
        start_method (str): deprecated; always "spawn" (use `start_processes` for another).
    """
    if start_method != "spawn":
        warnings.warn(
            f"This method only supports start_method=spawn (got: {start_method}).\n"
            "To use a different start_method use:\n\t\t"
            " torch.multiprocessing.start_processes(...)",
            FutureWarning,
            stacklevel=2,
        )
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
