"""Runs read from OpenTelemetry traces (docs/traces.md).

A trace file (OTLP JSON) is read wherever a run file is (:func:`reader.load_trace_run`,
told apart by :func:`reader.is_trace_file`): its spans map to an agent's steps by the
OpenInference and OpenTelemetry GenAI conventions (:mod:`conventions`), group into traces
(:mod:`trees`), and each trace becomes the run record of the question it answers
(:mod:`matching`, :mod:`records`); what cannot be used is counted and reported
(:mod:`report`). Reading a file needs nothing beyond the standard library.
"""
