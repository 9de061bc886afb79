"""Building millions of objects at once: the cyclic garbage collector paused meanwhile."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block (reference counting still frees).

    Reading a large run or results file creates millions of lists, tuples and dicts that
    can form no cycle; the collector would walk them over and over as they pile up, which
    measured a third to a half of the reading time. It runs again at the end of the block.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
