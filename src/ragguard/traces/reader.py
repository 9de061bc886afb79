"""Read a trace file into a run: OTLP JSON in, one run record per question out.

:func:`load_trace_run` streams the file's spans (each kept as its few facts, its attributes
dropped once read), groups them into traces, matches each trace to a question and builds
its record; :func:`is_trace_file` tells a trace file from a run file by its content.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from ragguard.core.bulk import collector_paused
from ragguard.results.records import Run
from ragguard.traces.matching import QuestionTexts, run_of_traces
from ragguard.traces.otlp import iter_requests, iter_spans
from ragguard.traces.report import Skipped
from ragguard.traces.trees import group_traces, kept_spans

_REQUEST_START = re.compile(r'\s*\{\s*"(?:resourceSpans|resource_spans)"\s*:')


def load_trace_run(
    path: str | Path, questions: Mapping[str, str] | Iterable[tuple[str, str]] = ()
) -> Run:
    """The run a trace file records; ``questions`` (id: text) match traces by their input.

    The run's ``notes`` say what was skipped, one line per reason. The cyclic garbage
    collector is paused meanwhile: the spans kept can form no cycle, and walking them over
    and over as they pile up made reading grow faster than the file (benchmarks/traces.py).
    """
    path = Path(path)
    skipped = Skipped()
    with collector_paused():
        spans = kept_spans(iter_spans(iter_requests(path), path), path)
        traces = group_traces(spans, skipped)
        return run_of_traces(traces, QuestionTexts(questions), skipped, path)


def is_trace_file(head: str) -> bool:
    """Whether a file whose text starts with ``head`` (from its first non-blank character)
    holds OTLP traces: its first object starts with ``resourceSpans`` (the only field of an
    ExportTraceServiceRequest), on one line or over many."""
    return _REQUEST_START.match(head) is not None
