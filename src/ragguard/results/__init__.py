"""Results: the model, its versioned JSON file, columns and lines, run records, usage."""
