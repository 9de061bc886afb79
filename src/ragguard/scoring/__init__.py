"""Scoring a run: per pass, repeats, parallel parts, labels resolved to chunks."""
