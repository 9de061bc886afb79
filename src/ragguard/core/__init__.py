"""The floor everything stands on: errors, readers, files, and the one module that runs git."""
