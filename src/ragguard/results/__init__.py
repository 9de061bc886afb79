"""Results: the model, its versioned file (io, layout, parse, columns, lines), run records and
usage. ``Results`` and ``QuestionResult`` are public here, as docs/api.md names them."""

from ragguard.results.model import QuestionResult, Results

__all__ = ["QuestionResult", "Results"]
