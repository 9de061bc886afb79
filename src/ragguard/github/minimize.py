"""Minimising a comment as outdated: GitHub's GraphQL ``minimizeComment`` mutation.

REST has no way to hide a comment; GraphQL does, by the comment's node id. The request goes
through PyGithub's requester (the same token, retries and GHES URL rules as every REST call:
``https://HOST/api/v3`` answers GraphQL at ``https://HOST/api/graphql``). A GraphQL error comes
back with status 200 and an ``errors`` list; PyGithub raises it as a GithubException, which
:func:`github_call` turns into a one-line GitHubError.
"""

from __future__ import annotations

from github.Requester import Requester

from ragguard.github.errors import GitHubError, github_call

OUTDATED = "OUTDATED"
MINIMIZE = """\
mutation($id: ID!, $classifier: ReportedContentClassifiers!) {
  minimizeComment(input: {subjectId: $id, classifier: $classifier}) {
    minimizedComment { isMinimized minimizedReason }
  }
}"""


def minimize_comment(requester: Requester, node_id: str, classifier: str = OUTDATED) -> None:
    """Hide comment ``node_id`` behind "This comment was marked as outdated"."""
    action = f"minimise comment {node_id}"
    with github_call(action, write=True):
        _, data = requester.graphql_query(MINIMIZE, {"id": node_id, "classifier": classifier})
    result = ((data.get("data") or {}).get("minimizeComment") or {}).get("minimizedComment")
    if not (result or {}).get("isMinimized"):
        raise GitHubError(action, None, "GitHub did not report the comment minimised")
