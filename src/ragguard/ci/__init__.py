"""`ragguard ci`: GitHub's environment in, one activity run, status, comment and outputs out.

settings (read the environment once) -> activity (event -> what to do, pure) -> glue (the
pipeline, with its collaborators handed in) -> outputs ($GITHUB_OUTPUT, job summary).
"""
