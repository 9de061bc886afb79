"""ragguard.yml: the one reader and the typed model it returns."""
