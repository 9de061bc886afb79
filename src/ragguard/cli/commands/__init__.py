"""One module per command group: parse, call the pipeline, print."""
