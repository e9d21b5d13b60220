"""Downloads for torch.hub: to a partial file renamed over the target once whole and checked."""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import sys
import tempfile
import uuid
from urllib.error import HTTPError, URLError
from urllib.request import Request, urlopen

READ_DATA_CHUNK = 128 * 1024


class PlainProgress:
    """The progress bar where tqdm is not installed: the percentage (or bytes) on stderr."""

    def __init__(self, total=None, disable=False, unit=None, *args, **kwargs) -> None:
        self.total, self.disable, self.n = total, disable, 0

    def update(self, n: int) -> None:
        if self.disable:
            return
        self.n += n
        shown = f"{self.n:.1f} bytes" if self.total is None else f"{100 * self.n / self.total:.1f}%"
        sys.stderr.write(f"\r{shown}")
        sys.stderr.flush()

    def set_description(self, *args, **kwargs) -> None:
        """Accepted as tqdm's; the plain bar shows no description."""

    def write(self, s: str) -> None:
        sys.stderr.write(f"{s}\n")

    def close(self) -> None:
        self.disable = True

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        if not self.disable:
            sys.stderr.write("\n")


try:
    from tqdm import tqdm
except ImportError:  # tqdm is optional, as in PyTorch
    tqdm = PlainProgress


def _partial_file(dst: str):
    """A fresh `dst.<random>.partial` file opened for writing (renamed over `dst` once whole,
    so a broken download never leaves a truncated checkpoint at `dst`)."""
    for _ in range(tempfile.TMP_MAX):
        try:
            return open(f"{dst}.{uuid.uuid4().hex}.partial", "w+b")  # noqa: SIM115
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "No usable temporary file name found")


def _unreachable(url: str, dst: str, error: URLError) -> URLError:
    """The error for a download that could not start, saying where the file can be put."""
    return URLError(
        f"torch.hub could not download {url} ({error.reason}); with no network access, "
        f"download it elsewhere and place it at {dst}"
    )


def download_url_to_file(
    url: str, dst: str, hash_prefix: str | None = None, progress: bool = True
) -> None:
    """Download the object at `url` to the local path `dst`.

    Args:
        url: URL of the object to download.
        dst: full path where the object is saved.
        hash_prefix: if not None, the SHA256 of the file must start with it.
        progress: whether to show a progress bar on stderr.

    Raises:
        URLError: the download cannot be made (no network); the message names `url` and `dst`.
        RuntimeError: the file's hash does not start with `hash_prefix`.
    """
    dst = os.path.expanduser(dst)
    partial = _partial_file(dst)
    try:
        try:
            response = urlopen(Request(url, headers={"User-Agent": "torch.hub"}))
        except HTTPError:
            raise
        except URLError as error:
            raise _unreachable(url, dst, error) from error
        with response:
            sizes = response.info().get_all("Content-Length")
            total = int(sizes[0]) if sizes else None
            sha256 = hashlib.sha256() if hash_prefix is not None else None
            bar = tqdm(
                total=total, disable=not progress, unit="B", unit_scale=True, unit_divisor=1024
            )
            with bar:
                while buffer := response.read(READ_DATA_CHUNK):
                    partial.write(buffer)
                    if sha256 is not None:
                        sha256.update(buffer)
                    bar.update(len(buffer))
        partial.close()
        if sha256 is not None and hash_prefix is not None:
            digest = sha256.hexdigest()
            if digest[: len(hash_prefix)] != hash_prefix:
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(partial.name, dst)
    finally:
        partial.close()
        if os.path.exists(partial.name):
            os.remove(partial.name)
