"""Words for the smallest drop a test set can detect (ragguard/power.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ragguard.compare.detectable import Detectable
from ragguard.render.text import and_more


def too_small_sentence(found: Detectable, name: str) -> str:
    """Plainly: the rule's ``max_drop`` is below what the test set can detect, and what
    would help. ``name`` is the metric's name, already escaped for where it is shown."""
    opening = f"This test set is too small to detect a {found.max_drop:g} drop in {name}"
    if found.drop is None:
        seen = f"; with {found.n} questions it cannot reliably detect any drop"
    else:
        seen = f"; it can detect {found.drop:.2f}"
    if found.needed is None:
        advice = "; no number of questions would, at this noise."
    else:
        advice = f"; add about {max(found.needed - found.n, 1)} questions."
    return opening + seen + advice


def too_small_lines(
    power: Sequence[Detectable], escape: Callable[[str], str], shown: int = 3
) -> list[str]:
    """The gated metrics whose ``max_drop`` the test set cannot detect: one sentence for
    one metric; for several, one sentence naming the first ``shown`` and the questions that
    would make every one of them detectable."""
    small = [found for found in power if found.too_small]
    if len(small) <= 1:
        return [too_small_sentence(found, escape(found.metric)) for found in small]
    names = and_more(
        [
            escape(found.metric)
            + (f" (it can detect {found.drop:.2f})" if found.drop is not None else "")
            for found in small[:shown]
        ],
        len(small),
    )
    needed = [found.needed for found in small]
    n = max(found.n for found in small)
    if None in needed:
        advice = "some cannot be detected with any number of questions at this noise."
    else:
        advice = f"add about {max(max(needed) - n, 1)} questions for all of them."  # type: ignore[type-var]
    drops = sorted({f"{found.max_drop:g}" for found in small})
    return [
        f"This test set ({n} questions) is too small to detect a {' or '.join(drops)} drop in "
        f"{len(small)} gated metrics: {names}; {advice}"
    ]


def power_table(power: Sequence[Detectable], escape: Callable[[str], str]) -> list[list[str]]:
    """Rows for ``ragguard power``: metric, n, alpha, noise, detectable drop, max_drop."""
    return [
        [
            escape(found.metric),
            str(found.n),
            f"{found.alpha:.3g}",
            ("discordance " if found.noise.binary else "sd of deltas ")
            + f"{found.noise.spread:.3f}",
            "none" if found.drop is None else f"{found.drop:.3f}",
            f"{found.max_drop:g}",
            "—"
            if not found.too_small
            else ("never" if found.needed is None else str(found.needed)),
        ]
        for found in power
    ]
