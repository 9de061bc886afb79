"""The baseline for a CI run: fetched from its store (or evaluated again at the merge base), checked, and saved."""

from __future__ import annotations

from pathlib import Path

from ragguard.ci.collaborators import BaselineStore, Collaborators, Target
from ragguard.ci.options import CiOptions
from ragguard.ci.parts import merge_shard_results
from ragguard.ci.settings import CiSettings
from ragguard.compare import (
    ERROR,
    Comparison,
)
from ragguard.compare.baseline import BaselineFile, parse_stored_results
from ragguard.config.model import Config
from ragguard.core.errors import InputError
from ragguard.github import (
    ArtifactBaselineStore,
    StoredBaseline,
)
from ragguard.results.io import load_results
from ragguard.results.model import Results


def head_results(
    settings: CiSettings, collab: Collaborators, config: Config, target: Target, out: Path
) -> Results:
    """This run's results: evaluated here, or merged from the shard jobs' parts."""
    if not settings.parts:
        return collab.evaluate(config, git_of(settings, target), out)
    merged, paths = merge_shard_results(settings.parts, config.suite, target.sha)
    collab.log(
        f"ragguard: merged {len(paths)} shard results ({len(merged.questions)} questions): "
        + ", ".join(map(str, paths))
    )
    return merged


def git_of(settings: CiSettings, target: Target) -> dict[str, str | None]:
    return {"sha": target.sha, "ref": settings.event.ref}


def fetch_baseline(
    settings: CiSettings,
    opts: CiOptions,
    collab: Collaborators,
    config: Config,
    target: Target,
    merge_base: str | None = None,
) -> StoredBaseline | None:
    """The stored baseline for the target branch: the merge base's if saved, else the newest
    (``merge_base``: when the caller has asked already)."""
    store_kind = opts.baseline_store
    if store_kind == "none" or target.base_branch is None:
        return None
    if store_kind == "file":
        return check_suite(file_baseline(opts, target), config.suite)
    merge_base = merge_base or target.base_sha
    if merge_base is None and (
        target.pr is not None or target.base_branch != settings.event.branch
    ):
        merge_base = collab.github.merge_base(target.base_branch, target.sha)
    store: BaselineStore
    if store_kind == "artifact":
        store = ArtifactBaselineStore(collab.github)
    else:
        store = collab.github.data_branch(opts.baseline_branch)
    stored = store.fetch(target.base_branch, config.suite, prefer_commit=merge_base)
    collab.log(baseline_line(stored, target.base_branch, merge_base))
    check_suite(stored, config.suite)
    if stored is None and opts.rerun and merge_base:
        rerun = collab.rerun(config, merge_base, settings.results_dir, collab.log)
        if rerun is not None:
            return rerun_baseline(rerun, target.base_branch, merge_base)
    return stored


def check_suite(stored: StoredBaseline | None, suite: str) -> StoredBaseline | None:
    """A baseline of another suite is bad input, not a comparison that compares nothing."""
    if stored is not None and stored.suite != suite:
        raise InputError(
            stored.where,
            f"the baseline is of suite {stored.suite!r}, not {suite!r}; point the baseline at "
            "this suite's results",
        )
    return stored


def rerun_baseline(results: Results, branch: str, commit: str) -> StoredBaseline:
    return StoredBaseline(
        suite=results.suite,
        branch=branch,
        commit=commit,
        committed_at=None,
        saved_at=results.created_at,
        results=results.to_json().encode(),
        path=f"a rerun of the merge base {commit[:12]}",
        exact=True,
    )


def check_baseline_file(opts: CiOptions) -> None:
    """A committed baseline file that is not there is a mistake, not "no baseline yet"
    (which would let every pull request pass on nothing compared)."""
    path = opts.baseline_file
    if opts.baseline_store == "file" and path is not None and not path.is_file():
        raise InputError(
            path,
            "the baseline file does not exist; commit the target branch's results file there, "
            "or set baseline: {store: none} until one is committed",
            key="baseline.file",
        )


def file_baseline(opts: CiOptions, target: Target) -> StoredBaseline | None:
    check_baseline_file(opts)
    path = opts.baseline_file
    if path is None:
        return None
    results = load_results(path)
    return StoredBaseline(
        suite=results.suite,
        branch=target.base_branch or "",
        commit=str(results.git.get("sha") or ""),
        committed_at=None,
        saved_at=results.created_at,
        results=path.read_bytes(),
        path=str(path),
        exact=False,
    )


def baseline_line(stored: StoredBaseline | None, branch: str, merge_base: str | None) -> str:
    if stored is None:
        return f"ragguard: no baseline for {branch} yet; reporting the head values"
    which = "the merge base's" if stored.exact else "the newest"
    return f"ragguard: baseline: {which}, commit {stored.commit[:12]} on {branch} ({stored.path})"


def baseline_results(stored: StoredBaseline | None) -> Results | None:
    """The stored baseline's results, checked whole; an error names its store and file."""
    if stored is None:
        return None
    return parse_stored_results(stored.results, stored.where)


def baseline_file(stored: StoredBaseline | None) -> BaselineFile | None:
    """The stored baseline as compare reads a baseline file: its results, and the commit,
    branch and time they describe."""
    if stored is None:
        return None
    return BaselineFile(
        baseline_results(stored),
        commit=stored.commit or None,
        branch=stored.branch or None,
        created_at=stored.committed_at or stored.saved_at,
    )


def save_baseline(
    settings: CiSettings,
    opts: CiOptions,
    collab: Collaborators,
    config: Config,
    target: Target,
    results: Results,
    comparison: Comparison,
) -> None:
    if comparison.verdict == ERROR:
        collab.log("ragguard: the run's verdict is error; the baseline is not replaced")
        return
    if opts.baseline_store != "branch" or target.base_branch is None:
        collab.log(f"ragguard: baseline store {opts.baseline_store}: nothing to save here")
        return
    report = collab.github.data_branch(opts.baseline_branch).save(
        target.base_branch,
        config.suite,
        target.sha,
        results.to_json().encode(),
        {name: summary.value for name, summary in results.summary.items()},
        committed_at=collab.commit_time(target.sha),
        run_url=settings.github.run_url,
    )
    collab.log(f"ragguard: baseline saved: {', '.join(report.paths)}")
