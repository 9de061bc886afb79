"""Which retrieval step answers which expected hop.

An agent may retrieve more often than the test set has hops (a retry, a side lookup) or
skip one. Hops are matched to retrieval steps in order, one step per hop, so that together
they find as much of the hops' evidence as possible: ``found[h][s]`` is the share of hop
``h``'s relevant labels that step ``s`` retrieved (at any depth). A hop whose evidence no
step found stays unmatched; among equal alignments the earliest steps are taken.
"""

from __future__ import annotations

from collections.abc import Sequence

HOPS_REACHED = "hops_reached"


def align_hops(found: Sequence[Sequence[float]]) -> list[int | None]:
    """The step index matched to each hop (None: unmatched), in order, one step per hop."""
    hops = len(found)
    steps = len(found[0]) if hops else 0
    best = [[0.0] * (steps + 1) for _ in range(hops + 1)]
    for h in range(hops - 1, -1, -1):
        for s in range(steps - 1, -1, -1):
            take = best[h + 1][s + 1] + found[h][s] if found[h][s] > 0 else -1.0
            best[h][s] = max(take, best[h + 1][s], best[h][s + 1])
    matched: list[int | None] = [None] * hops
    h = s = 0
    while h < hops and s < steps:
        if found[h][s] > 0 and best[h][s] == best[h + 1][s + 1] + found[h][s]:
            matched[h] = s
            h, s = h + 1, s + 1
        elif best[h][s] == best[h][s + 1]:
            s += 1
        else:
            h += 1
    return matched


def hops_reached(found: Sequence[Sequence[float]]) -> float:
    """1 when every hop's evidence was retrieved, in part at least, by some step; else 0."""
    return 1.0 if all(any(share > 0 for share in row) for row in found) else 0.0
