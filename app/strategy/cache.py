"""The value table on disk: a versioned name, an atomic save, a load that refuses stale data.

The file is ``strategy-<fingerprint>.npz`` holding the table (float64, so that a loaded table
makes exactly the choices of a freshly built one) and the fingerprint again. The fingerprint
hashes the format version and the source of the rules and of the table's computation, so any
change there names a new file and a stale table is never loaded.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import zipfile
from functools import cache
from pathlib import Path

import numpy as np

import app.rules
from app.strategy.tables import STATE_COUNT, FloatArray

TABLE_FORMAT = 1
_SUFFIX = ".npz"
_COMPUTATION_MODULES = ("tables.py", "turn.py", "build.py")

logger = logging.getLogger(__name__)


@cache
def fingerprint() -> str:
    """12 hex digits that change whenever the rules or the table computation change."""
    digest = hashlib.sha256(f"penta-strategy-table-{TABLE_FORMAT}".encode())
    rules = Path(app.rules.__file__).parent
    strategy = Path(__file__).parent
    sources = [*sorted(rules.glob("*.py")), *(strategy / name for name in _COMPUTATION_MODULES)]
    for source in sources:
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:12]


def table_file_name() -> str:
    """The cache file name for the current rules and computation."""
    return f"strategy-{fingerprint()}{_SUFFIX}"


def resolve_table_path(location: Path) -> Path:
    """``location`` itself if it names a ``.npz`` file, else the versioned file inside it."""
    return location if location.suffix == _SUFFIX else location / table_file_name()


def save_values(path: Path, values: FloatArray) -> None:
    """Write the table to ``path`` atomically: readers see the old file or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as file:
            np.savez(file, values=values, fingerprint=np.array(fingerprint()))
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, 0o644)  # mkstemp makes it private; the table is no secret
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def load_values(path: Path) -> FloatArray | None:
    """The table stored at ``path``, or None if it is missing, unreadable or stale."""
    try:
        with np.load(path, allow_pickle=False) as stored:
            stamp = str(stored["fingerprint"])
            values = np.asarray(stored["values"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
        logger.warning("ignoring unreadable strategy table %s: %s", path, error)
        return None
    if stamp != fingerprint() or values.shape != (STATE_COUNT,) or values.dtype != np.float64:
        logger.warning("ignoring stale strategy table %s", path)
        return None
    values.flags.writeable = False
    result: FloatArray = values
    return result
