"""torch.save / torch.load in PyTorch's own checkpoint format, loaded safely.

`save` writes what `torch.save` writes (a zip of `data.pkl`, PyTorch's protocol-2 pickle, and
one raw record per storage), so real PyTorch's `torch.load` reads it, `weights_only=True`
included. `load` reads those files, whether written here or by PyTorch (state dicts, tensors
and their views, Parameters, optimizer states), without PyTorch installed and, by default
(`weights_only=True`, PyTorch's default since 2.6), without running any code: the pickle runs
through an allow-list unpickler (`weights_only.py`) that refuses every other global with
PyTorch's error. `weights_only=False` unpickles everything (a whole `nn.Module`), which can run
code: trusted files only. Checkpoints of this library's former format (a zip of .npy arrays
and a JSON manifest) still load (`legacy.py`).

Robustness: `save` to a path writes a temporary file beside it and renames it over the target,
so a save that fails midway leaves the previous checkpoint whole. `load` checks each record's
declared size before inflating it (a storage's must be exactly its elements' bytes), and a
corrupt or truncated file raises a RuntimeError that says so. A stream is read from its
position and left at the end of the checkpoint when that end is known.
"""

from __future__ import annotations

import os
import secrets
import struct
import sys
import warnings
import zipfile
from collections.abc import Iterator

from . import archive as _archive
from . import legacy, pickler, reader

_CORRUPT = (
    zipfile.BadZipFile,
    UnicodeDecodeError,
    KeyError,
    IndexError,
    TypeError,
    ValueError,
    OSError,
    EOFError,
    struct.error,
)


def _is_path(f) -> bool:
    return isinstance(f, (str, os.PathLike))


def _records(
    data: bytes, storages: list[pickler.SavedStorage]
) -> Iterator[tuple[str, bytes | memoryview]]:
    """The records of a checkpoint whose pickle is `data`, in PyTorch's order; each storage's
    bytes are copied to the host only when its record is written."""
    yield "data.pkl", data
    yield ".format_version", b"1"
    yield ".storage_alignment", str(_archive.ALIGNMENT).encode()
    yield "byteorder", sys.byteorder.encode()
    for storage in storages:
        yield f"data/{storage.key}", storage.data()
    yield "version", b"3\n"
    yield ".data/serialization_id", str(secrets.randbits(128)).zfill(40).encode()


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Save `obj` (tensors, state dicts, optimizer states, nested containers, whole modules)
    to `f` in PyTorch's checkpoint format.

    Args:
        obj: what to save.
        f: a path or a writable binary file object.
        pickle_protocol: the pickle protocol (PyTorch's default, 2, is what
            `torch.load(weights_only=True)` reads).
        pickle_module: accepted for compatibility and ignored.

    Example::

        >>> import io
        >>> model = nn.Linear(2, 1)
        >>> buffer = io.BytesIO()  # or a path such as "ckpt.pt"
        >>> torch.save({"model": model.state_dict(), "step": 10}, buffer)
        >>> checkpoint = torch.load(io.BytesIO(buffer.getvalue()))
        >>> checkpoint["step"], list(checkpoint["model"])
        (10, ['weight', 'bias'])
    """
    records = _records(*pickler.dump(obj, pickle_protocol))  # an unpicklable obj: nothing written
    if _is_path(f):
        path = os.fspath(f)
        folder = os.path.splitext(os.path.basename(path))[0] or "archive"
        prefixed = ((f"{folder}/{name}", data) for name, data in records)
        _archive.write_atomically(path, lambda handle: _archive.write_records(handle, prefixed))
    else:
        _archive.write_records(f, ((f"archive/{name}", data) for name, data in records))


def _weights_only_setting(weights_only, pickle_module) -> bool:
    """PyTorch's choice of `weights_only`: the argument, else True unless a pickle_module is
    given; the environment variables TORCH_FORCE_WEIGHTS_ONLY_LOAD (always) and
    TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD (when the argument is not given) override it."""
    truthy = ("1", "y", "yes", "true")
    force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in truthy
    force_no = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in truthy
    if force and force_no:
        raise RuntimeError(
            "Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
            "should be set, but both were set."
        )
    if force:
        return True
    if weights_only is None and force_no:
        warnings.warn(
            "Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the"
            "`weights_only` argument was not explicitly passed to `torch.load`, forcing "
            "weights_only=False.",
            UserWarning,
            stacklevel=3,
        )
        return False
    return pickle_module is None if weights_only is None else bool(weights_only)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **kwargs):
    """Load an object saved by `torch.save` (PyTorch's or this library's).

    Args:
        f: a path or a readable, seekable binary file object.
        map_location: a device, a device string, or a dict from saved locations ("cuda:0")
            to devices.
        pickle_module: with it, `weights_only` defaults to False (as in PyTorch); the
            unpickler is Python's own.
        weights_only: True (the default) loads only tensors, containers, numbers, strings,
            dtypes, devices and sizes, and never runs code; False unpickles anything,
            which can run code: only for files you trust.
        mmap: accepted for compatibility and ignored.
        **kwargs: the full unpickler's arguments (`encoding`, `errors`), with
            `weights_only=False` only.

    Raises:
        pickle.UnpicklingError: with weights_only, if the file needs anything else (PyTorch's
            message, which names it).
        RuntimeError: if `f` is not a valid checkpoint (corrupt, truncated).
    """
    weights_only = _weights_only_setting(weights_only, pickle_module)
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if kwargs and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    options = {"weights_only": bool(weights_only), "encoding": "utf-8"}
    if not weights_only:
        options.update(kwargs)
    locate = reader.locator(map_location)
    name = _archive.describe(f)
    if _is_path(f):
        if not os.path.exists(f):
            raise FileNotFoundError(f"[Errno 2] No such file or directory: '{os.fspath(f)}'")
        with open(f, "rb") as handle:
            return _load(handle, name, locate, options)
    handle, length = _archive.window(f)
    result = _load(handle, name, locate, options)
    if isinstance(handle, _archive.Window) and length is not None:
        f.seek(handle.start + length)
    return result


def _load(handle, name: str, locate, options: dict):
    archive = _archive.open_zip(handle, name)
    with archive:

        def read_record(info: zipfile.ZipInfo, size: int | None) -> bytes:
            return _archive.read_record(archive, info, size)

        try:
            if legacy.MANIFEST in archive.namelist():
                return legacy.load(archive, locate("cpu", None).device)
            return reader.load(archive, read_record, locate, options)
        except RecursionError:
            raise _archive.invalid(
                name,
                f"its objects are nested deeper than Python's recursion limit, "
                f"{sys.getrecursionlimit()}",
            ) from None
        except _CORRUPT as error:
            raise _archive.corrupt(name, error) from None
