"""ragguard: evaluate a RAG system on every pull request and gate the merge on it."""

__version__ = "0.1.0"
