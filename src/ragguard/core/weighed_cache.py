"""A cache bounded by the weight of what it keeps, not by how many entries: a few large
values (an analysed 2 MB context takes about 32 MiB) must not pile up as many small ones
may."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


class WeighedCache(Generic[Key, Value]):
    """The values most recently asked for, while their weights total at most ``budget``;
    the newest is kept whatever it weighs. Safe to share between threads (a value may then
    be made twice, never kept twice)."""

    def __init__(self, budget: int) -> None:
        self._budget = budget
        self._kept: OrderedDict[Key, tuple[Value, int]] = OrderedDict()
        self._total = 0
        self._lock = threading.Lock()

    def get(self, key: Key, make: Callable[[], Value], weight: int) -> Value:
        """The value kept for ``key``, else ``make()`` kept with ``weight``."""
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                return found[0]
        value = make()
        with self._lock:
            if key not in self._kept:
                self._kept[key] = (value, weight)
                self._total += weight
                self._drop_oldest()
        return value

    def _drop_oldest(self) -> None:
        while self._total > self._budget and len(self._kept) > 1:
            _, (_, weight) = self._kept.popitem(last=False)
            self._total -= weight

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self._total = 0

    def __len__(self) -> int:
        return len(self._kept)

    def __contains__(self, key: object) -> bool:
        return key in self._kept
