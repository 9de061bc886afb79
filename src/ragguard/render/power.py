"""Words for the smallest drop a test set can detect (ragguard/power.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ragguard.compare.detectable import Detectable
from ragguard.render.text import and_more

REPEAT_NOTE = "asking each question more than once (system.repeat) lowers the noise"


def too_small_sentence(found: Detectable, name: str) -> str:
    """Once, plainly: the drop this test set can detect now, the ``max_drop`` its rule asks
    for, and what more questions (or repeats) would buy. ``name`` is the metric's name,
    already escaped for where it is shown."""
    if found.drop is None:
        now = f"With {found.n} questions this test set cannot reliably detect any drop in {name}"
    else:
        now = (
            f"With {found.n} questions this test set can detect a drop of about "
            f"{found.drop:.2f} in {name}"
        )
    return f"{now}, not the {found.max_drop:g} its gate rule asks for; " + _buys(
        [found.needed], f"{found.max_drop:g}", ""
    )


def _buys(needed: Sequence[int | None], drops: str, which: str) -> str:
    """What more questions would buy: the number at which ``drops`` becomes detectable."""
    if None in needed:
        return f"no number of questions would detect {drops}{which} at this noise; {REPEAT_NOTE}."
    most = max(n for n in needed if n is not None)
    return f"about {most} questions would detect {drops}{which}, and {REPEAT_NOTE} too."


def too_small_lines(
    power: Sequence[Detectable], escape: Callable[[str], str], shown: int = 3
) -> list[str]:
    """The gated metrics whose ``max_drop`` the test set cannot detect: one sentence for
    one metric; for several, one sentence naming the first ``shown`` with the drop each can
    detect, and the questions that would make every one of them detectable."""
    small = [found for found in power if found.too_small]
    if len(small) <= 1:
        return [too_small_sentence(found, escape(found.metric)) for found in small]
    names = and_more(
        [
            ("no drop at all" if found.drop is None else f"about {found.drop:.2f}")
            + f" in {escape(found.metric)}"
            for found in small[:shown]
        ],
        len(small),
    )
    n = max(found.n for found in small)
    drops = " or ".join(sorted({f"{found.max_drop:g}" for found in small}))
    return [
        f"With {n} questions this test set can detect only large drops in {len(small)} gated "
        f"metrics ({names}), not the {drops} their gate rules ask for; "
        + _buys([found.needed for found in small], drops, " in all of them")
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
