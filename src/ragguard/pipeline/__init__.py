"""THE path: evaluate (test set → system → score → Results), score a recorded run, compare with a baseline and gate, and the reports; the CLI, `ragguard ci`, the API and the demo call it."""
