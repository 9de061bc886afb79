"""The command line: the click group (app) and one module per command group."""
