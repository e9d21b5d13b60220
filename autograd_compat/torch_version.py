"""torch.torch_version: `TorchVersion`, the str that `torch.__version__` is, which compares
as a PEP 440 version with strings and tuples (`torch.__version__ >= (2, 1)`)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .version import __version__ as internal_version

__all__ = ["TorchVersion"]

_PEP440 = re.compile(
    r"""v?(?:(?P<epoch>[0-9]+)!)?(?P<release>[0-9]+(?:\.[0-9]+)*)
    (?:[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?
    (?:-(?P<post_n1>[0-9]+)|[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?)?
    (?:[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?""",
    re.VERBOSE | re.IGNORECASE,
)
_PRE = {"alpha": "a", "a": "a", "beta": "b", "b": "b", "c": "rc", "pre": "rc", "preview": "rc"}
_PRE["rc"] = "rc"


class InvalidVersion(ValueError):
    """A string that is no PEP 440 version."""


def version_key(text: str) -> tuple:
    """A key ordering versions as PEP 440 (and `packaging.version.Version`) does.

    Each optional part is (rank, value...): a missing pre-release sorts after any pre-release
    (before them for a bare dev release), a missing post before any, a missing dev after any.
    """
    match = _PEP440.fullmatch(text.strip())
    if match is None:
        raise InvalidVersion(f"Invalid version: '{text}'")
    part = match.groupdict()
    release = tuple(int(n) for n in part["release"].split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    dev = (0, int(part["dev_n"] or 0)) if part["dev_l"] else (1,)
    if part["pre_l"]:
        pre: tuple = (0, _PRE[part["pre_l"].lower()], int(part["pre_n"] or 0))
    else:
        has_post = part["post_l"] or part["post_n1"]
        pre = (-1,) if part["dev_l"] and not has_post else (1,)
    if part["post_n1"] or part["post_l"]:
        post: tuple = (0, int(part["post_n1"] or part["post_n2"] or 0))
    else:
        post = (-1,)
    local: tuple = (0,)
    if part["local"]:
        pieces = re.split(r"[-_.]", part["local"].lower())
        local = (1, *((1, int(p), "") if p.isdigit() else (0, 0, p) for p in pieces))
    return (int(part["epoch"] or 0), release, pre, post, dev, local)


def _as_key(other) -> tuple:
    if isinstance(other, str):
        return version_key(other)
    if isinstance(other, Iterable):  # (2, 1) is version 2.1
        return version_key(".".join(str(item) for item in other))
    if hasattr(other, "release"):  # a packaging.version.Version
        return version_key(str(other))
    raise InvalidVersion(other)


class TorchVersion(str):
    """A string comparing as a version with version strings, tuples and `packaging` Versions.

    Example::

        >>> v = torch.torch_version.TorchVersion("2.13.0+autograd.compat")
        >>> v >= "2.6", v > (2, 12, 1), v == "2.13", v < "2.13.1"
        (True, True, False, True)
    """

    __slots__ = ()
    __hash__ = str.__hash__

    def _compare(self, other, method: str) -> bool:
        try:
            mine, theirs = version_key(self), _as_key(other)
        except InvalidVersion:  # not versions: compare as strings, as PyTorch does
            return getattr(str, method)(self, other)
        return getattr(mine, method)(theirs)

    def __gt__(self, other) -> bool:
        return self._compare(other, "__gt__")

    def __lt__(self, other) -> bool:
        return self._compare(other, "__lt__")

    def __eq__(self, other) -> bool:
        return self._compare(other, "__eq__")

    def __ge__(self, other) -> bool:
        return self._compare(other, "__ge__")

    def __le__(self, other) -> bool:
        return self._compare(other, "__le__")


__version__ = TorchVersion(internal_version)
