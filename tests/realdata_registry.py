"""The real profiler outputs the tests read, and where the tests find them.

The files are third-party data (shared/realdata/MANIFEST.md says where each
comes from) and are never copied into this repository. realdata_registry.json
beside this module names each one: its relative name in the folder
(``ncu_csv/x.csv``), size, sha256 and the URL of the file at its commit in
its origin repository (``null`` where the origin is unknown).

The folder the tests read (``conftest.REALDATA``) is the first of:

1. ``$ROOFLINE_REALDATA``, when set (a folder with the same layout; nothing
   is downloaded into it);
2. ``../shared/realdata`` beside the checkout, when it is there;
3. the download cache: ``$ROOFLINE_REALDATA_CACHE``, else
   ``pooch.os_cache("roofline-realdata")`` (``~/.cache/roofline-realdata``
   on Linux). Only with ``ROOFLINE_FETCH_REALDATA=1`` does a test run
   download the files missing there, each checked against its sha256;
   without it nothing is ever downloaded.

The registry is data, checked as it is read: a name must be a relative
``/``-separated path of plain parts (no ``..``, ``.`` or empty part, no
absolute path, backslash, drive or control character), else loading it is
a :class:`RegistryError` naming the entry, before anything is fetched; and
:func:`fetch` writes a file only where its name, resolved (links
followed), stays inside the cache.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

REGISTRY_FILE = Path(__file__).with_name("realdata_registry.json")
BESIDE_CHECKOUT = Path(__file__).resolve().parents[2] / "shared" / "realdata"

ENV_FOLDER = "ROOFLINE_REALDATA"
ENV_CACHE = "ROOFLINE_REALDATA_CACHE"
ENV_FETCH = "ROOFLINE_FETCH_REALDATA"
CACHE_NAME = "roofline-realdata"


class RegistryError(ValueError):
    """A registry entry that cannot be trusted to name a file in the folder."""


_PART = re.compile(r"[^\x00-\x1f\x7f\\/:]+")      # no control, backslash, slash or colon (a drive)


def checked_name(name) -> str:
    """``name`` if it is a relative "/"-separated path that stays inside any
    folder it is joined to; else a RegistryError saying why."""
    if not isinstance(name, str) or not name:
        raise RegistryError(f"registry entry name {name!r}: not a non-empty string")
    if name.startswith(("/", "~")) or os.path.isabs(name):
        raise RegistryError(f"registry entry name {name!r}: an absolute or home-relative path")
    for part in name.split("/"):
        if part in ("", ".", ".."):
            raise RegistryError(f"registry entry name {name!r}: an empty, '.' or '..' part")
        if not _PART.fullmatch(part):
            raise RegistryError(f"registry entry name {name!r}: a backslash, drive colon or control character")
    return name


def inside(folder: Path, name: str) -> Path:
    """``folder / name`` resolved (links followed), or a RegistryError when
    that leaves ``folder``."""
    root = Path(folder).resolve()
    target = (root / checked_name(name)).resolve()
    if target == root or not target.is_relative_to(root):
        raise RegistryError(f"registry entry name {name!r}: resolves to {target}, outside {root}")
    return target


@dataclass(frozen=True)
class RealFile:
    name: str                     # relative path in the folder, "/"-separated
    sha256: str
    size: int
    url: str | None = None        # None: origin unknown, not downloadable
    repo: str | None = None
    commit: str | None = None
    path: str | None = None       # path in the origin repository
    origin_checked: bool = False  # the blob at commit:path was seen to have this sha256
    note: str = ""

    def __post_init__(self):
        checked_name(self.name)

    @property
    def downloadable(self) -> bool:
        return bool(self.url)


def load_registry(path: Path = REGISTRY_FILE) -> list[RealFile]:
    """The registry's entries, each name checked (:func:`checked_name`) and
    no name twice; a RegistryError otherwise, before anything is fetched."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    entries = doc.get("files") if isinstance(doc, dict) else None
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise RegistryError(f"{path}: 'files' is not a list of entries")
    try:
        files = [RealFile(**entry) for entry in entries]
    except TypeError as exc:
        raise RegistryError(f"{path}: {exc}") from None
    seen: set[str] = set()
    for f in files:
        if f.name in seen:
            raise RegistryError(f"registry entry name {f.name!r}: listed twice")
        seen.add(f.name)
    return files


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ---------------------------------------------------------------- where the files are

def cache_folder(environ=os.environ) -> Path:
    """Where ``ROOFLINE_FETCH_REALDATA=1`` downloads to."""
    if environ.get(ENV_CACHE):
        return Path(environ[ENV_CACHE]).expanduser()
    try:
        import pooch
    except ImportError:           # no download without pooch anyway; the same place on Linux
        return Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / CACHE_NAME
    return Path(pooch.os_cache(CACHE_NAME))


def wants_fetch(environ=os.environ) -> bool:
    return environ.get(ENV_FETCH, "").strip().lower() in ("1", "true", "yes")


@dataclass(frozen=True)
class Choice:
    folder: Path
    source: str                   # "ROOFLINE_REALDATA", "beside the checkout" or "cache"

    @property
    def is_cache(self) -> bool:
        return self.source == "cache"


def choose_folder(environ=os.environ, beside: Path = BESIDE_CHECKOUT) -> Choice:
    """The folder the tests read: a local folder first, the cache last."""
    if environ.get(ENV_FOLDER):
        return Choice(Path(environ[ENV_FOLDER]).expanduser(), ENV_FOLDER)
    if beside.is_dir():
        return Choice(beside, "beside the checkout")
    return Choice(cache_folder(environ), "cache")


def holds_files(folder: Path) -> bool:
    """``folder`` exists and holds at least one file (an empty folder counts as absent)."""
    try:
        return folder.is_dir() and any(p.is_file() for p in folder.rglob("*"))
    except OSError:
        return False


def missing(folder: Path, files: list[RealFile]) -> list[RealFile]:
    """The registry's files that ``folder`` lacks (or holds with another size)."""
    out = []
    for f in files:
        p = folder / f.name
        try:
            if p.stat().st_size != f.size:
                out.append(f)
        except OSError:
            out.append(f)
    return out


# ---------------------------------------------------------------- download

@dataclass
class FetchResult:
    fetched: list[str] = field(default_factory=list)          # now in the cache (downloaded or already there)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (name, why)
    not_downloadable: list[str] = field(default_factory=list)


def fetch(files: list[RealFile], cache: Path, *, retries: int = 2, timeout: float = 60,
          quiet: bool = True) -> FetchResult:
    """Bring ``files`` into ``cache`` with pooch, each at ``cache / name``.

    A file already there with the right sha256 is not downloaded again; one
    whose download does not match its sha256 is refused (not kept). Failures
    are returned, not raised; but a name that would be written outside
    ``cache`` (:func:`inside`: through a link in the cache too) is a
    RegistryError before anything is fetched."""
    import pooch

    for f in files:
        inside(cache, f.name)
    if quiet:
        pooch.get_logger().setLevel("WARNING")
    result = FetchResult()
    wanted = [f for f in files if f.downloadable]
    result.not_downloadable = [f.name for f in files if not f.downloadable]
    store = pooch.create(path=Path(cache), base_url="", retry_if_failed=retries,
                         registry={f.name: f"sha256:{f.sha256}" for f in wanted},
                         urls={f.name: f.url for f in wanted})
    downloader = pooch.HTTPDownloader(progressbar=False, timeout=timeout)
    for f in wanted:
        try:
            store.fetch(f.name, downloader=downloader)
        except Exception as e:    # noqa: BLE001 - a refused or failed download is reported, not raised
            result.failed.append((f.name, f"{type(e).__name__}: {e}"))
        else:
            result.fetched.append(f.name)
    return result
