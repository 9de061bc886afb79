"""`python -m ragguard`: the CLI, for jobs whose scripts folder is not on PATH."""

from ragguard.cli.app import main

if __name__ == "__main__":
    main()
