"""GitHub repositories for torch.hub: the cached copy `<hub_dir>/<owner>_<name>_<ref>`, the
trusted list, and the `hubconf.py` entry points, laid out as PyTorch lays them out."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import shutil
import sys
import warnings
import zipfile
from pathlib import Path
from typing import NamedTuple
from urllib.error import HTTPError, URLError
from urllib.request import Request, urlopen

from .download import download_url_to_file

_TRUSTED_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")
_PATH_SEP = re.compile(r"[/\\]")
HUBCONF = "hubconf.py"


class Repo(NamedTuple):
    """A GitHub repository at one ref (branch, tag or commit)."""

    owner: str
    name: str
    ref: str

    @property
    def folder(self) -> str:
        """The cached copy's folder name under the hub directory."""
        return f"{self.owner}_{self.name}_{self.ref.replace('/', '_')}"


def safe_extract_zip(archive: zipfile.ZipFile, extract_to: str) -> None:
    """Extract `archive` into `extract_to`, refusing entries that would land outside it."""
    root = Path(extract_to).resolve(strict=False)
    for member in archive.infolist():
        filename = os.path.normpath(member.filename)
        absolute = filename.startswith(("/", "\\")) or (
            len(filename) >= 2 and filename[1] == ":" and filename[0].isalpha()
        )
        if absolute:
            raise ValueError(f"Archive entry has absolute path: {member.filename}")
        if ".." in _PATH_SEP.split(filename):
            raise ValueError(f"Archive entry contains directory traversal: {member.filename}")
        if not (root / filename).resolve(strict=False).is_relative_to(root):
            raise ValueError(f"Archive entry escapes target directory: {member.filename}")
        archive.extract(member, root)


@contextlib.contextmanager
def on_sys_path(path: str):
    """`path` first on sys.path for the block (a hubconf imports its repository's modules)."""
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def import_hubconf(folder: str):
    """The module of `folder/hubconf.py`, imported with `folder` on sys.path."""
    with on_sys_path(folder):
        spec = importlib.util.spec_from_file_location(HUBCONF, os.path.join(folder, HUBCONF))
        if spec is None or spec.loader is None:
            raise AssertionError(f"failed to load spec from {os.path.join(folder, HUBCONF)}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module


def entry_point(module, model):
    """The callable `model` of a hubconf module, after checking its declared dependencies."""
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    dependencies = getattr(module, "dependencies", None) if "dependencies" in dir(module) else None
    missing = [name for name in dependencies or () if importlib.util.find_spec(name) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    function = getattr(module, model) if model in dir(module) else None
    if function is None or not callable(function):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return function


def _default_ref(hub_dir: str, owner: str, name: str) -> str:
    """The default branch: "main" if the repository has one, else "master"; offline, the
    one in the cache."""
    try:
        with urlopen(f"https://github.com/{owner}/{name}/tree/main/"):
            return "main"
    except HTTPError as error:
        if error.code == 404:
            return "master"
        raise
    except URLError as error:
        for ref in ("main", "master"):
            if os.path.exists(os.path.join(hub_dir, f"{owner}_{name}_{ref}")):
                return ref
        raise RuntimeError(
            "It looks like there is no internet connection and the repo could not be found in "
            f"the cache ({hub_dir})"
        ) from error


def parse(hub_dir: str, github: str) -> Repo:
    """The repository of "owner/name[:ref]"."""
    info, _, ref = github.partition(":")
    owner, name = info.split("/")
    return Repo(owner, name, ref or _default_ref(hub_dir, owner, name))


def _check_trusted(hub_dir: str, repo: Repo, trust_repo) -> None:
    """Ask on stdin before running an unknown owner's code, as PyTorch does; remember a yes."""
    listing = os.path.join(hub_dir, "trusted_list")
    Path(listing).touch()
    with open(listing) as file:
        trusted = {line.strip() for line in file}
    owner_name = f"{repo.owner}_{repo.name}"
    is_trusted = (
        owner_name in trusted
        or repo.folder in next(os.walk(hub_dir))[1]
        or repo.owner in _TRUSTED_OWNERS
    )
    if trust_repo is False or (trust_repo == "check" and not is_trusted):
        response = input(
            f"The repository {owner_name} does not belong to the list of trusted repositories "
            "and as such cannot be downloaded. Do you trust this repository and wish to add it "
            "to the trusted list of repositories (y/N)?"
        ).lower()
        if response in ("y", "yes"):
            if is_trusted:
                print("The repository is already trusted.")
        elif response in ("n", "no", ""):
            raise Exception("Untrusted repository.")  # noqa: TRY002 -- PyTorch's type
        else:
            raise ValueError(f"Unrecognized response {response}.")
    if not is_trusted:
        with open(listing, "a") as file:
            file.write(owner_name + "\n")


def _validate_not_a_fork(repo: Repo) -> None:
    """Check through GitHub's API that `repo.ref` is a branch, tag or commit of `repo`."""
    headers = {"Accept": "application/vnd.github.v3+json"}
    if os.environ.get("GITHUB_TOKEN") is not None:
        headers["Authorization"] = f"token {os.environ['GITHUB_TOKEN']}"
    for kind in ("branches", "tags"):
        page = 0
        while True:
            page += 1
            url = f"https://api.github.com/repos/{repo.owner}/{repo.name}/{kind}"
            try:
                listing = _read_json(Request(f"{url}?per_page=100&page={page}", headers=headers))
            except HTTPError:  # retry without a token that lacks the permission
                headers.pop("Authorization", None)
                listing = _read_json(Request(f"{url}?per_page=100&page={page}", headers=headers))
            if not listing:
                break
            if any(
                b["name"] == repo.ref or b["commit"]["sha"].startswith(repo.ref) for b in listing
            ):
                return
    raise ValueError(
        f"Cannot find {repo.ref} in https://github.com/{repo.owner}/{repo.name}. If it's a "
        "commit from a forked repo, please call hub.load() with forked repo directly."
    )


def _read_json(request: Request):
    with urlopen(request) as response:
        return json.loads(response.read().decode(response.headers.get_content_charset("utf-8")))


def _download(repo: Repo, zip_path: str) -> None:
    """Download the repository's zip archive; an ambiguous ref is taken as a branch."""
    url = f"https://github.com/{repo.owner}/{repo.name}/zipball/{repo.ref}"
    sys.stdout.write(f'Downloading: "{url}" to {zip_path}\n')
    try:
        download_url_to_file(url, zip_path, progress=False)
    except HTTPError as error:
        if error.code != 300:
            raise
        warnings.warn(
            f"The ref {repo.ref} is ambiguous. Perhaps it is both a tag and a branch in the "
            "repo? Torchhub will now assume that it's a branch. You can disambiguate tags and "
            "branches by explicitly passing refs/heads/branch_name or refs/tags/tag_name as the "
            "ref. That might require using skip_validation=True.",
            stacklevel=4,
        )
        url = f"https://github.com/{repo.owner}/{repo.name}/zipball/refs/heads/{repo.ref}"
        download_url_to_file(url, zip_path, progress=False)


def cached_repo(
    hub_dir: str, github, force_reload, trust_repo, verbose=True, skip_validation=False
) -> str:
    """The folder of GitHub repository `github`'s copy in `hub_dir`, downloaded if absent."""
    os.makedirs(hub_dir, exist_ok=True)
    repo = parse(hub_dir, github)
    folder = os.path.join(hub_dir, repo.folder)
    _check_trusted(hub_dir, repo, trust_repo)
    if not force_reload and os.path.exists(folder):
        if verbose:
            sys.stderr.write(f"Using cache found in {folder}\n")
        return folder
    if not skip_validation:
        _validate_not_a_fork(repo)
    zip_path = os.path.join(hub_dir, repo.ref.replace("/", "_") + ".zip")
    _remove(zip_path)
    _download(repo, zip_path)
    with zipfile.ZipFile(zip_path) as archive:
        extracted = os.path.join(hub_dir, archive.infolist()[0].filename)
        _remove(extracted)
        safe_extract_zip(archive, hub_dir)
    _remove(zip_path)
    _remove(folder)
    shutil.move(extracted, folder)
    return folder


def _remove(path: str) -> None:
    if os.path.isfile(path):
        os.remove(path)
    elif os.path.exists(path):
        shutil.rmtree(path)
