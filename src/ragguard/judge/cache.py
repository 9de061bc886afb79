"""On-disk cache of judge replies, keyed by a hash of model, prompt and parameters.

One JSON file per reply under ``<folder>/<first two hex digits>/<hash>.json``, written
atomically, so concurrent writers and a CI cache (actions/cache) restoring the folder are
both safe. Only valid replies are stored; the API key is never part of the key or the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ragguard.core.sources import parse_json_value


def cache_key(request: Mapping[str, Any]) -> str:
    """The hash of a request body (model, messages and sampling parameters)."""
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


class ReplyCache:
    """Replies by key in a folder; a folder of ``None`` caches nothing."""

    def __init__(self, folder: str | Path | None) -> None:
        self.folder = Path(folder) if folder is not None else None

    def _path(self, key: str) -> Path:
        assert self.folder is not None
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored entry, or ``None`` when missing or unreadable (a miss, not an error):
        read as every JSON input is, so an edited file's lone surrogate is a miss too."""
        if self.folder is None:
            return None
        try:
            data = parse_json_value(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def put(self, key: str, entry: Mapping[str, Any]) -> None:
        if self.folder is None:
            return
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        # A name no other writer uses (process and thread), then an atomic rename.
        temporary = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
        text = json.dumps(dict(entry), ensure_ascii=False, allow_nan=False)
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
