"""The static files as browsers get them: under names that hold a hash of their content,
cached for a year (``immutable``), and compressed where that pays.

Each file of ``static/`` is read once, at the first use of :data:`ASSETS`, and answers under
two names: ``css/penta.css`` (``no-cache``: checked each time, 304 while unchanged) and
``css/penta.<hash>.css`` (``public, max-age=31536000, immutable``), which pages link to through
the templates' ``static()``: a new release changes the name of every file it changes, so no
browser or proxy keeps an old stylesheet, and nobody asks again for one that did not change.
A stylesheet's ``url("/static/…")`` are rewritten to the hashed names before it is hashed
itself (the fonts are cached as the stylesheets are).

Text files (scripts, stylesheets, SVG) are gzipped at the highest level the first time a
browser that accepts gzip asks for them, and kept so: the files are the release's, a bounded
set (about 2 MB, 0.6 MB more compressed).
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from app.settings import ROOT

PREFIX = "/static/"
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
COMPRESSED_TYPES = frozenset({".css", ".js", ".svg", ".json", ".txt", ".md"})
"""Suffixes worth compressing; fonts (woff2) and pictures (png) are compressed already."""
_CSS_URL = re.compile(r"""url\(\s*(["']?)(/static/[^"')\s]+)\1\s*\)""")


@dataclass
class Asset:
    """One static file: its bytes, and its gzipped bytes once asked for."""

    name: str
    """Its path under ``static/``, as written in ``static()``: ``css/penta.css``."""
    hashed: str
    """The same with its content's hash before the suffix: ``css/penta.1a2b3c4d5e6f.css``."""
    body: bytes
    media_type: str
    etag: str
    _gzipped: bytes | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def compressible(self) -> bool:
        return PurePosixPath(self.name).suffix in COMPRESSED_TYPES

    def gzipped(self) -> bytes:
        """The body gzipped (made once; ``mtime`` 0: the same bytes on every worker)."""
        with self._lock:
            if self._gzipped is None:
                self._gzipped = gzip.compress(self.body, compresslevel=9, mtime=0)
            return self._gzipped


class Assets:
    """The files of a folder by their plain and their hashed names."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._by_name: dict[str, tuple[Asset, bool]] = {}
        files = sorted(path for path in folder.rglob("*") if path.is_file())
        # Stylesheets last: they name other files, by the names those files end up with.
        for path in sorted(files, key=lambda path: path.suffix == ".css"):
            name = path.relative_to(folder).as_posix()
            body = path.read_bytes()
            if path.suffix == ".css":
                body = _CSS_URL.sub(self._hashed_url, body.decode()).encode()
            self._add(name, body)

    def _add(self, name: str, body: bytes) -> None:
        digest = hashlib.sha256(body).hexdigest()[:12]
        path = PurePosixPath(name)
        hashed = str(path.with_name(f"{path.stem}.{digest}{path.suffix}"))
        media_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if media_type.startswith("text/") or media_type.endswith(("javascript", "json")):
            media_type += "; charset=utf-8"
        asset = Asset(name, hashed, body, media_type, f'"{digest}"')
        self._by_name[name] = (asset, False)
        self._by_name[hashed] = (asset, True)

    def _hashed_url(self, match: re.Match[str]) -> str:
        quote, url = match.group(1), match.group(2)
        return f"url({quote}{self.url(url.removeprefix(PREFIX))}{quote})"

    def url(self, name: str) -> str:
        """The address pages link to for ``name`` (a path under ``static/``): its hashed
        name. KeyError for a file there is not (a template's typo fails where it is)."""
        return PREFIX + self._by_name[name][0].hashed

    def find(self, name: str) -> tuple[Asset, bool] | None:
        """The asset answering to ``name`` (plain or hashed) and whether it was hashed."""
        return self._by_name.get(name)

    def __len__(self) -> int:
        return sum(hashed for _asset, hashed in self._by_name.values())


ASSETS = Assets(ROOT / "static")


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` header admits gzip (not with ``q=0``)."""
    for part in accept_encoding.lower().split(","):
        coding, _, parameters = part.strip().partition(";")
        if coding.strip() in ("gzip", "*"):
            weight = parameters.strip()
            return not re.fullmatch(r"q\s*=\s*0(\.0*)?", weight)
    return False
