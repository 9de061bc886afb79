"""GitLab: the merge request note a GitLab CI job posts or updates (docs/gitlab.md)."""

from ragguard.gitlab.notes import GitLabError, MergeRequest, NoteResult, post_or_update_note

__all__ = ["GitLabError", "MergeRequest", "NoteResult", "post_or_update_note"]
