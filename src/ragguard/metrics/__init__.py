"""Metric definitions: names, retrieval metrics, and (later) generation metrics."""
