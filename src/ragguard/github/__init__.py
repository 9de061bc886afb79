"""The GitHub edge of ragguard: every call to GitHub's REST API, through PyGithub.

Use :class:`GitHubClient` (built from :func:`settings_from_env`); everything else here is a
value type or a pure helper it uses.
"""

from ragguard.github.artifactstore import ArtifactBaselineStore, artifact_name
from ragguard.github.client import GitHubClient
from ragguard.github.comments import CommentOutcome, Outcome, comment_marker
from ragguard.github.connection import GitHubSettings, connect, settings_from_env
from ragguard.github.databranch import DATA_BRANCH, DataBranchStore, SaveReport, StoredBaseline
from ragguard.github.errors import (
    BaselineConflictError,
    GitHubError,
    ReadOnlyTokenError,
    UntrustedEventError,
)
from ragguard.github.events import EventContext, load_event, read_event
from ragguard.github.pulls import PullInfo
from ragguard.github.statuses import status_context

__all__ = [
    "DATA_BRANCH",
    "ArtifactBaselineStore",
    "BaselineConflictError",
    "CommentOutcome",
    "DataBranchStore",
    "EventContext",
    "GitHubClient",
    "GitHubError",
    "GitHubSettings",
    "Outcome",
    "PullInfo",
    "ReadOnlyTokenError",
    "SaveReport",
    "StoredBaseline",
    "UntrustedEventError",
    "artifact_name",
    "comment_marker",
    "connect",
    "load_event",
    "read_event",
    "settings_from_env",
    "status_context",
]
