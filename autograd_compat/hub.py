"""torch.hub: PyTorch's model cache, so pretrained weights load as they do in PyTorch.

Files live where PyTorch keeps them (`get_dir()/checkpoints/<file name>`, `get_dir()` being
`$TORCH_HOME/hub`, `TORCH_HOME` defaulting to `$XDG_CACHE_HOME/torch`, that to `~/.cache`),
so a cache PyTorch filled serves this library too, and a file placed there loads through this
library's `torch.load`. A download runs over `urllib`; one that cannot be made (no network)
raises a `URLError` naming the URL and the path where the file can be placed by hand.
`load`/`list`/`help` run a repository's `hubconf.py` from a local folder or from a GitHub
repository already in the cache (or downloaded, where the network allows).
"""

from __future__ import annotations

import os
import re
import sys
import warnings
import zipfile
from typing import Any
from urllib.parse import urlparse

from ._hub import repos as _hub_repos
from ._hub.download import READ_DATA_CHUNK as READ_DATA_CHUNK
from ._hub.download import download_url_to_file
from ._hub.download import tqdm as tqdm
from ._serialization import load as _torch_load

__all__ = [
    "download_url_to_file",
    "get_dir",
    "help",
    "list",
    "load",
    "load_state_dict_from_url",
    "set_dir",
]

HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")  # the hash part of "resnet18-bfd8deac.pth"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
_hub_dir: str | None = None


def _get_torch_home() -> str:
    """`$TORCH_HOME`, else `$XDG_CACHE_HOME/torch`, else `~/.cache/torch`, user-expanded."""
    default = os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch")
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, default))


def get_dir() -> str:
    """The hub's cache folder: the one `set_dir` gave, else `$TORCH_HOME/hub`.

    Example::

        >>> torch.hub.get_dir().endswith("hub")
        True
    """
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d: str | os.PathLike) -> None:
    """Use folder `d` for the hub's downloads and checkpoints from now on.

    Args:
        d: path to a local folder.
    """
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


def _is_legacy_zip_format(filename: str) -> bool:
    """A zip holding exactly one file: the pre-1.6 format the hub extracts before loading."""
    if not zipfile.is_zipfile(filename):
        return False
    with zipfile.ZipFile(filename) as archive:
        members = archive.infolist()
    return len(members) == 1 and not members[0].is_dir()


def _legacy_zip_load(filename: str, model_dir: str, map_location, weights_only: bool):
    """Extract the one file of a legacy zip into `model_dir` and load it."""
    warnings.warn(
        "Falling back to the old format < 1.6. This support will be deprecated in favor of "
        "default zipfile format introduced in 1.6. Please redo torch.save() to save it in the "
        "new zipfile format.",
        FutureWarning,
        stacklevel=3,
    )
    with zipfile.ZipFile(filename) as archive:
        _hub_repos.safe_extract_zip(archive, model_dir)
        extracted = os.path.join(model_dir, archive.infolist()[0].filename)
    return _torch_load(extracted, map_location=map_location, weights_only=weights_only)


def load_state_dict_from_url(
    url: str,
    model_dir: str | None = None,
    map_location=None,
    progress: bool = True,
    check_hash: bool = False,
    file_name: str | None = None,
    weights_only: bool = False,
) -> dict[str, Any]:
    """Load the checkpoint at `url`, from the hub's cache when it is there.

    The file is `<model_dir>/<file_name>`, `model_dir` defaulting to `get_dir()/checkpoints`
    and the name to the URL's last path part; a missing file is downloaded first.

    Args:
        url: URL of the checkpoint.
        model_dir: folder of the cached file.
        map_location: as in `torch.load`.
        progress: whether to show a progress bar while downloading.
        check_hash: the file name holds the first digits of its SHA256
            (`name-<sha256>.ext`), checked on download.
        file_name: the cached file's name, if not the URL's.
        weights_only: as in `torch.load`.

    Example::

        >>> import os, tempfile
        >>> folder = tempfile.mkdtemp()
        >>> torch.save({"w": torch.ones(2)}, os.path.join(folder, "tiny-0123abcd.pth"))
        >>> torch.hub.load_state_dict_from_url("https://host/tiny-0123abcd.pth", folder)
        {'w': tensor([1., 1.])}
    """
    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn(
            "TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead", stacklevel=2
        )
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        match = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached_file, match and match.group(1), progress=progress)
    if _is_legacy_zip_format(cached_file):
        return _legacy_zip_load(cached_file, model_dir, map_location, weights_only)
    return _torch_load(cached_file, map_location=map_location, weights_only=weights_only)


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):
    """The callable entry points of the `hubconf.py` of GitHub repository `github`
    ("owner/name[:ref]"), whose names do not start with "_"."""
    repo = _hub_repos.cached_repo(
        get_dir(),
        github,
        force_reload,
        trust_repo,
        verbose=verbose,
        skip_validation=skip_validation,
    )
    module = _hub_repos.import_hubconf(repo)
    return [name for name in dir(module) if callable(getattr(module, name)) and name[0] != "_"]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):
    """The docstring of entry point `model` of GitHub repository `github`'s `hubconf.py`."""
    repo = _hub_repos.cached_repo(
        get_dir(), github, force_reload, trust_repo, verbose=True, skip_validation=skip_validation
    )
    return _hub_repos.entry_point(_hub_repos.import_hubconf(repo), model).__doc__


def load(
    repo_or_dir,
    model,
    *args,
    source="github",
    trust_repo="check",
    force_reload=False,
    verbose=True,
    skip_validation=False,
    **kwargs,
):
    """Call entry point `model` of a repository's `hubconf.py` with `*args, **kwargs`.

    Args:
        repo_or_dir: "owner/name[:ref]" with `source="github"` (served from the hub's cache
            when there), or a local folder with `source="local"`.
        model: the entry point's name.
        source: "github" or "local".
        trust_repo: True, False or "check" (an unknown owner asks on stdin), as in PyTorch.
        force_reload: download the repository again.
        verbose: report a cache hit on stderr.
        skip_validation: skip the GitHub API check that the ref belongs to the repository.
    """
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        repo_or_dir = _hub_repos.cached_repo(
            get_dir(),
            repo_or_dir,
            force_reload,
            trust_repo,
            verbose=verbose,
            skip_validation=skip_validation,
        )
    return _load_local(repo_or_dir, model, *args, **kwargs)


def _load_local(hubconf_dir, model, *args, **kwargs):
    """Call entry point `model` of the `hubconf.py` in folder `hubconf_dir`."""
    with _hub_repos.on_sys_path(hubconf_dir):
        entry = _hub_repos.entry_point(_hub_repos.import_hubconf(hubconf_dir), model)
        return entry(*args, **kwargs)
