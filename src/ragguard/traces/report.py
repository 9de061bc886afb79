"""What the trace reader left out, counted by why, as one line each for the user.

Nothing is dropped silently: every span, trace and document that does not make it into a
run record is counted here, and each reason with a count becomes one note, e.g.::

    ragguard: traces.json: 2 spans skipped: their parent span is not in the file (the first at line 7)
"""

from __future__ import annotations

from dataclasses import dataclass, field

# kind: (what is counted, why, what happened to it)
REASONS = {
    "repeated": ("span", "a repeat of a span already read (same trace and span id)", "kept once"),
    "orphan": ("span", "parent span not in the file", "skipped"),
    "cycle": ("span", "parent spans form a loop", "skipped"),
    "other root": (
        "span",
        "under a second root span of the trace (the root that started first is the trace's)",
        "skipped",
    ),
    "unmatched": (
        "trace",
        "no span names a question in ragguard.question.id, and the root span's input.value "
        "is no question's text",
        "skipped",
    ),
    "ambiguous": (
        "trace",
        "the root span's input.value is the text of several questions; set "
        "ragguard.question.id to say which",
        "skipped",
    ),
    "two questions": (
        "trace",
        "its spans name two questions in ragguard.question.id",
        "skipped",
    ),
    "second trace": (
        "trace",
        "a second trace for a question that already has one (the first is kept)",
        "skipped",
    ),
    "without id": (
        "retrieved document",
        "no document.id (nor an id in document.metadata)",
        "skipped",
    ),
    "repeated document": (
        "retrieved document",
        "an id the same span already retrieved (the first keeps its rank)",
        "skipped",
    ),
    "nested llm": (
        "model-call span",
        "inside another model-call span (two instrumentations of one call)",
        "counted once, with the outer one",
    ),
}


@dataclass
class Skipped:
    """Counts by reason, with the place of the first one of each."""

    counts: dict[str, int] = field(default_factory=dict)
    first: dict[str, str] = field(default_factory=dict)

    def add(self, kind: str, place: str, count: int = 1) -> None:
        """Count ``count`` of ``kind``; ``place`` says where (the first one is shown)."""
        if count <= 0:
            return
        self.counts[kind] = self.counts.get(kind, 0) + count
        self.first.setdefault(kind, place)

    def lines(self, source: str) -> tuple[str, ...]:
        """One note per reason, in the order of :data:`REASONS`."""
        return tuple(
            _line(source, kind, self.counts[kind], self.first[kind])
            for kind in REASONS
            if kind in self.counts
        )


def _line(source: str, kind: str, count: int, first: str) -> str:
    noun, why, outcome = REASONS[kind]
    counted = f"1 {noun}" if count == 1 else f"{count} {noun}s"
    where = f"at {first}" if count == 1 else f"the first at {first}"
    return f"ragguard: {source}: {counted} {outcome}: {why} ({where})"
