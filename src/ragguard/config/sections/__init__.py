"""The sections of ragguard.yml, each typed by its own module through config/reader.py."""
