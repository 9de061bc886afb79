"""`ragguard ci`: the one place that wires the edges together for GitHub Actions.

The pipeline, for a pull request::

    pending status -> run and score -> results on disk -> baseline fetched -> compare
    -> comment and summary on disk -> comment posted -> job summary -> final status
    -> outputs -> exit code

Every collaborator that does I/O (GitHub, the evaluation, git, the log) is handed in as
:class:`Collaborators`, so tests run the same code against the fake GitHub and a recorded
run. Once the pending status is set, any exception ends in an ``error`` status before it
propagates: a check is never left pending forever.

A job matrix splits the run: with the ``shard`` input a job only evaluates its shard and
leaves the partial results on disk (no status, comment or baseline: the verdict is over all
questions); with ``parts`` the final job merges the shard jobs' results instead of running
the system, then compares and reports exactly as an unsharded run does.

Fork pull requests run with a read-only token: the first write answers 403. From then on no
write is attempted; the comment and status are written to ``publish.json`` in the results
folder, for the workflow to upload as an artifact and a ``workflow_run`` workflow to post.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from ragguard.ci.accept import Command, accept
from ragguard.ci.activity import (
    ACCEPT,
    BASELINE,
    IGNORE,
    PUBLISH,
    PULL_REQUEST,
    Activity,
    choose_activity,
)
from ragguard.ci.outputs import action_outputs, append_summary, write_outputs
from ragguard.ci.parts import merge_shard_results
from ragguard.ci.publish import ForkRun, publish_artifact_name, publish_document, publish_run
from ragguard.ci.rechecking import EvaluateOnly, recheck_comparison
from ragguard.ci.rerun import rerun_in_worktree
from ragguard.ci.salvage import leave_reports, mark_reports
from ragguard.ci.sections import CiOptions, ci_options
from ragguard.ci.settings import CiSettings
from ragguard.ci.status import StatusReporter
from ragguard.ci.superseded import head_moved
from ragguard.ci.trend import trend_markdown
from ragguard.ci.trusted import (
    GateSource,
    baseline_changes,
    choose_gate,
    gate_note,
    target_document,
)
from ragguard.compare import (
    ERROR,
    FAIL,
    INCOMPARABLE,
    PASS,
    WARN,
    Comparison,
    Provenance,
    compare,
    describe_age,
)
from ragguard.compare.serialise import comparison_json
from ragguard.config.model import Config, load_config, with_repeat
from ragguard.core.errors import InputError
from ragguard.core.exits import EXIT_ERROR, EXIT_FAIL, EXIT_OK
from ragguard.core.files import write_all, write_report
from ragguard.core.git import git_head, git_repo_path
from ragguard.core.sources import parse_json_value
from ragguard.gate import GateRules, gate_rules_of
from ragguard.github import (
    DEFAULT_COMMENT_MODE,
    ArtifactBaselineStore,
    CommentOutcome,
    GitHubClient,
    GitHubError,
    Outcome,
    ReadOnlyTokenError,
    StoredBaseline,
)
from ragguard.github.comments import note_at_top, with_outcome, without_outcome
from ragguard.render import (
    SUMMARY_LIMIT_BYTES,
    comparison_terminal,
    escape_markdown,
    render_comment,
    render_summary,
)
from ragguard.render.questions import failing_questions
from ragguard.results.model import Results, load_results, results_from_dict, write_results
from ragguard.testset.model import load_testset
from ragguard.testset.shards import Shard


class BaselineStore(Protocol):
    def fetch(
        self, target_branch: str, suite: str, prefer_commit: str | None = None
    ) -> StoredBaseline | None: ...


Evaluate = Callable[[Config, Mapping[str, str | None], Path], Results]


@dataclass
class Collaborators:
    """The edges `ragguard ci` talks to; tests hand in their own."""

    github: GitHubClient
    evaluate: Evaluate
    commit_time: Callable[[str], str | None]
    head_commit: Callable[[], str | None] = field(default=lambda: git_head())
    rerun: Callable[[Config, str, Path, Callable[[str], None]], Results | None] = field(
        default=lambda *args: rerun_in_worktree(*args)
    )
    log: Callable[[str], None] = field(default=lambda line: print(line, file=sys.stderr))
    evaluate_only: EvaluateOnly = field(
        default=lambda config, git, out, ids: evaluate_config(config, git, out, only=ids)
    )
    repo_path: Callable[[Path], str] = field(default=lambda path: git_repo_path(path))


@dataclass(frozen=True)
class Target:
    """The commit being evaluated and where its report goes."""

    sha: str
    base_branch: str | None
    pr: int | None
    base_sha: str | None = None  # the merge base when the event names it (a merge group)


@dataclass(frozen=True)
class CiOutcome:
    """What a run ended with (for tests and the CLI); no comparison when publishing."""

    comparison: Comparison | None
    state: str
    exit_code: int
    comment: CommentOutcome | None
    results_path: Path | None
    read_only: bool


def run_ci(settings: CiSettings, collaborators: Collaborators) -> CiOutcome:
    """Run the activity the event calls for; raises InputError on bad input."""
    log = collaborators.log
    activity = choose_activity(settings.event, settings.mode, settings.pr)
    log(f"ragguard: {activity.why}")
    if activity.kind == PUBLISH:
        _refuse_shard_inputs(settings)
        return _publish(settings, collaborators)
    if activity.kind == IGNORE:
        write_outputs(settings.output_file, {"status": ""})
        return CiOutcome(None, "", EXIT_OK, None, None, False)
    if activity.kind == ACCEPT:
        _refuse_shard_inputs(settings)
        return _accept(settings, collaborators, activity)
    config = with_repeat(load_config(settings.config), settings.repeat)
    rules = gate_rules_of(config)
    opts = ci_options(settings, config)
    if not settings.parts:  # a broken test set is found before any request to GitHub
        load_testset(config.testset)
    target = resolve_target(activity, settings, collaborators.github)
    _warn_unreviewed(settings, target, log)
    if activity.kind == PULL_REQUEST and activity.head_sha is None:
        _check_checkout(target, collaborators.head_commit())
    if settings.shard is not None:
        return _run_shard(settings, collaborators, config, target)
    status = StatusReporter(collaborators.github, target.sha, config.suite, log)
    before = mark_reports(settings.results_dir)
    status.start("pending", f"evaluating {config.suite}")  # in the background
    try:
        return _evaluate_and_report(
            settings, opts, collaborators, activity, config, rules, target, status
        )
    except BaseException as exc:
        _error_status(status, exc, log)
        leave_reports(settings.results_dir, settings.output_file, config.suite, exc, log, before)
        raise


def _check_reviewed_head(reviewed: str | None, number: int, head: str) -> None:
    """Re-evaluation runs with the repository's secrets: a push after review is refused."""
    if reviewed is not None and head != reviewed:
        raise InputError(
            "input sha",
            f"#{number}'s head moved to {head[:12]} after the reviewed {reviewed[:12]}; "
            "nothing is evaluated: review the new commits and dispatch again with their sha",
        )


def _warn_unreviewed(settings: CiSettings, target: Target, log: Callable[[str], None]) -> None:
    if settings.pr is not None and settings.sha is None:
        log(
            f"ragguard: warning: re-evaluating #{target.pr} at its current head "
            f"{target.sha[:12]} without the sha input; give the sha you reviewed, so that a "
            "push after your review is refused instead of run with this workflow's secrets"
        )


def _check_checkout(target: Target, checked_out: str | None) -> None:
    """Re-evaluating a pull request must run its head's code, not the dispatching branch's."""
    if checked_out and checked_out != target.sha:
        raise InputError(
            "input pr",
            f"the checkout is {checked_out[:12]} but #{target.pr}'s head is {target.sha[:12]}; "
            f"check out refs/pull/{target.pr}/head before ragguard (see docs/action.md)",
        )


def _refuse_shard_inputs(settings: CiSettings) -> None:
    if settings.shard is not None or settings.parts:
        name = "shard" if settings.shard is not None else "parts"
        raise InputError(
            f"input {name}", "is for evaluating a run, not for publishing; leave it empty here"
        )


def _run_shard(
    settings: CiSettings, collab: Collaborators, config: Config, target: Target
) -> CiOutcome:
    """A matrix job: evaluate one shard and leave its results for the final job to merge.

    Nothing is posted: the verdict, the comment and the status are over all questions, so
    only the final job (``parts``) knows them. Collaborators.evaluate runs only the shard
    (the CLI binds ``settings.shard`` to it), and the results carry the shard marker.
    """
    out = settings.results_dir
    out.mkdir(parents=True, exist_ok=True)
    results = _head_results(settings, collab, config, target, out)
    results_path = write_results(results, out / "results.json")
    line = (
        f"ragguard: shard {settings.shard} of {config.suite}: {len(results.questions)} "
        f"questions evaluated; results in {results_path} for the final job to merge"
    )
    collab.log(line)
    append_summary(settings.summary_file, line + "\n")
    write_outputs(settings.output_file, {"results-path": str(results_path)})
    return CiOutcome(None, "", EXIT_OK, None, results_path, False)


def _publish(settings: CiSettings, collab: Collaborators) -> CiOutcome:
    event = settings.event
    if event.run_id is None or not event.run_head_sha:
        raise InputError(
            "GITHUB_EVENT_PATH", "publishing needs a workflow_run event (the run's id and head)"
        )
    run = ForkRun(int(event.run_id), event.run_head_sha, event.run_head_repo, event.run_head_branch)
    done = publish_run(
        collab.github,
        run,
        settings.comment_mode or DEFAULT_COMMENT_MODE,
        collab.log,
        settings.fork_verdicts,
    )
    url = next((p.comment_url for p in done if p.comment_url), None)
    states = ",".join(p.state for p in done)
    write_outputs(
        settings.output_file,
        {"status": states, "comment-url": url or "", "published": str(len(done))},
    )
    lines = [f"- {p.suite}: {p.state} on #{', #'.join(map(str, p.pulls))}" for p in done]
    append_summary(
        settings.summary_file,
        "### ragguard publish\n\n" + ("\n".join(lines) or "Nothing to publish.") + "\n",
    )
    return CiOutcome(None, states, EXIT_OK, None, None, False)


def _accept(settings: CiSettings, collab: Collaborators, activity: Activity) -> CiOutcome:
    """A ``/ragguard accept`` comment: honoured or refused, and either way on record."""
    config = load_config(settings.config)  # the default branch's: issue_comment runs there
    event = settings.event
    assert activity.pr is not None
    command = Command(
        activity.pr, event.comment_user or "", event.comment_body or "", event.comment_created_at
    )
    done = accept(collab.github, command, config.suite)
    line = f"ragguard: {config.suite} on #{activity.pr}: {done.line}"
    collab.log(line)
    append_summary(settings.summary_file, escape_markdown(line, 1000) + "\n")
    state = "success" if done.accepted else ""
    write_outputs(settings.output_file, {"status": state, "accepted": str(done.accepted).lower()})
    return CiOutcome(None, state, EXIT_OK, None, None, False)


def _error_status(status: StatusReporter, exc: BaseException, log: Callable[[str], None]) -> None:
    """Never raises: the original failure is what the user needs to see."""
    message = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, KeyboardInterrupt):
        message = "the job was cancelled"
    try:
        status.set("error", f"ragguard could not finish: {message}")
    except Exception as second:
        log(f"ragguard: could not set the error status either: {second}")


def resolve_target(activity: Activity, settings: CiSettings, github: GitHubClient) -> Target:
    """The head sha to evaluate and report on, and the branch whose baseline applies."""
    if activity.kind == PULL_REQUEST and activity.pr is not None:
        if activity.head_sha and activity.target_branch:
            return Target(activity.head_sha, activity.target_branch, activity.pr)
        pull = github.pull(activity.pr)
        _check_reviewed_head(settings.sha, pull.number, pull.head_sha)
        return Target(pull.head_sha, pull.base_ref, pull.number)
    sha = activity.head_sha or settings.event.sha
    if not sha:
        raise InputError("GITHUB_SHA", "no commit to evaluate: GITHUB_SHA is not set")
    return Target(sha, activity.target_branch, None, activity.base_sha)


def _evaluate_and_report(
    settings: CiSettings,
    opts: CiOptions,
    collab: Collaborators,
    activity: Activity,
    config: Config,
    rules: GateRules,
    target: Target,
    status: StatusReporter,
) -> CiOutcome:
    out = settings.results_dir
    out.mkdir(parents=True, exist_ok=True)
    results = _head_results(settings, collab, config, target, out)
    results_path = write_results(results, out / "results.json")
    gate = trusted_gate(activity, settings, collab, rules, target)
    own_opts, opts = opts, trusted_options(settings, config, gate) or opts

    stored = fetch_baseline(
        settings, opts, collab, config, target, merge_base=gate.commit if gate else None
    )
    baseline = _baseline_results(stored)
    provenance = _provenance(stored, results) if stored else None
    comparison = compare(baseline, results, gate.rules if gate else rules, provenance=provenance)
    comparison = recheck_comparison(
        comparison, config, out, _git_of(settings, target), collab.evaluate_only, collab.log
    )
    if activity.save_baseline:
        _save_baseline(settings, opts, collab, config, target, results, comparison)
    state = status_state(comparison)
    status.set(state, status_description(comparison))  # before the comment, which says if not
    trend = _trend(opts, collab, config, target, results)
    top = status_missing_note(config.suite, status.failure) if status.failure else ""
    if gate is not None:
        changes = baseline_changes(opts, own_opts)
        top += gate_note(gate, comparison, _baseline_phrase(stored, comparison), changes)
    comment_body = with_outcome(
        note_at_top(top, _with_trend(render_comment(comparison), trend)),
        Outcome(comparison.verdict, state),
    )
    summary = note_at_top(top, _with_trend(render_summary(comparison), trend))
    write_all(
        [
            (out / "comment.md", comment_body),
            (out / "summary.md", summary),
            (out / "comparison.json", comparison_json(comparison)),
        ]
    )
    collab.log(comparison_terminal(comparison).rstrip())
    collab.log(f"ragguard: {config.suite}: {comparison.verdict}; results in {results_path}")

    comment = None
    if target.pr is not None and not head_moved(collab.github, target.pr, target.sha, collab.log):
        comment = _post_comment(
            opts, collab, status, target.pr, config.suite, comment_body, comparison
        )
    append_summary(
        settings.summary_file,
        _summary_header(stored, activity) + _job_summary(summary, comparison, trend),
    )
    if status.read_only:
        _write_publish(out, target, config.suite, comment_body, status, settings, comparison)
    write_outputs(
        settings.output_file,
        _outputs(comparison, results_path, out, comment, status, config.suite),
    )
    code = exit_code(comparison, settings.fail_on, activity)
    if status.failure:
        collab.log(
            f"ragguard: the commit status ragguard/{config.suite} is not set "
            f"({status.failure}); exit 3 so that the job shows it"
        )
        code = EXIT_ERROR
    return CiOutcome(comparison, state, code, comment, results_path, status.read_only)


def _outputs(
    comparison: Comparison,
    results_path: Path,
    out: Path,
    comment: CommentOutcome | None,
    status: StatusReporter,
    suite: str,
) -> dict[str, str]:
    """The step outputs of a finished run; ``status-error`` when the final status is missing."""
    outputs = action_outputs(
        comparison,
        results_path=results_path,
        comment_path=out / "comment.md",
        comment_url=comment.url if comment else None,
        comment_id=comment.id if comment else None,
        status=status_state(comparison),
    )
    if status.read_only:
        outputs["publish-artifact"] = publish_artifact_name(suite)
        outputs["publish-path"] = str(out / "publish.json")
    if status.failure:
        outputs["status-error"] = status.failure
    return outputs


def status_missing_note(suite: str, failure: str) -> str:
    """The comment's first lines when the final commit status could not be set."""
    return (
        f"> [!WARNING]\n> The commit status `ragguard/{suite}` could not be "
        f"set ({escape_markdown(failure)}): a required check waits for it. Re-run this job "
        "once GitHub answers again.\n\n"
    )


def trusted_gate(
    activity: Activity,
    settings: CiSettings,
    collab: Collaborators,
    own: GateRules,
    target: Target,
) -> GateSource | None:
    """For a pull request or a merge group: the gate rules of the target branch's ragguard.yml
    at the merge base (read through the API: the checkout is the pull request's), else None."""
    if (activity.kind != PULL_REQUEST and activity.base_sha is None) or not target.base_branch:
        return None
    # a merge group names its base; its queued head holds the pull request's ragguard.yml
    merge_base = activity.base_sha or collab.github.merge_base(target.base_branch, target.sha)
    path = collab.repo_path(settings.config)
    content = collab.github.file_at(path, merge_base)
    where = f"{path} on {target.base_branch} at {merge_base[:12]}"
    document = target_document(content, where) if content is not None else None
    source = choose_gate(own, document, target.base_branch, merge_base, where)
    collab.log(f"ragguard: gate rules: {_gate_origin(source, where)}")
    return source


def trusted_options(
    settings: CiSettings, config: Config, gate: GateSource | None
) -> CiOptions | None:
    """Where the baseline comes from, per the target's ragguard.yml when its gate applies: a
    pull request that sets ``baseline: {store: none}`` would otherwise have no baseline to
    fail against. The action's inputs still win (docs/compare.md, "The trusted gate")."""
    if gate is None or gate.sections is None:
        return None
    return ci_options(settings, replace(config, path=Path(gate.where), sections=gate.sections))


def _gate_origin(source: GateSource, where: str) -> str:
    if source.origin == "target":
        return f"{where} (the pull request's own changes take effect once merged)"
    if source.origin == "pull-request":
        return f"the pull request's own ({where} sets gate.rules_from: pull-request)"
    return f"the pull request's own ({where} does not exist yet)"


def _baseline_phrase(stored: StoredBaseline | None, comparison: Comparison) -> str:
    """Which stored baseline the comparison used and how old it is, for the comment's top."""
    if stored is None:
        return "no baseline (none saved for the target branch yet)"
    which = "the merge base's baseline" if stored.exact else "the newest baseline"
    commit = f"commit `{escape_markdown(stored.commit[:12], 12)}`" if stored.commit else "a commit"
    age = comparison.provenance.age
    old = f", {escape_markdown(age, 40)} older than this run" if age else ""
    return f"{which}: {commit} on {escape_markdown(stored.branch, 100)}{old}"


def _head_results(
    settings: CiSettings, collab: Collaborators, config: Config, target: Target, out: Path
) -> Results:
    """This run's results: evaluated here, or merged from the shard jobs' parts."""
    if not settings.parts:
        return collab.evaluate(config, _git_of(settings, target), out)
    merged, paths = merge_shard_results(settings.parts, config.suite, target.sha)
    collab.log(
        f"ragguard: merged {len(paths)} shard results ({len(merged.questions)} questions): "
        + ", ".join(map(str, paths))
    )
    return merged


def _git_of(settings: CiSettings, target: Target) -> dict[str, str | None]:
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
        return _check_suite(_file_baseline(opts, target), config.suite)
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
    collab.log(_baseline_line(stored, target.base_branch, merge_base))
    _check_suite(stored, config.suite)
    if stored is None and opts.rerun and merge_base:
        rerun = collab.rerun(config, merge_base, settings.results_dir, collab.log)
        if rerun is not None:
            return _rerun_baseline(rerun, target.base_branch, merge_base)
    return stored


def _check_suite(stored: StoredBaseline | None, suite: str) -> StoredBaseline | None:
    """A baseline of another suite is bad input, not a comparison that compares nothing."""
    if stored is not None and stored.suite != suite:
        raise InputError(
            stored.path,
            f"the baseline is of suite {stored.suite!r}, not {suite!r}; point the baseline at "
            "this suite's results",
        )
    return stored


def _rerun_baseline(results: Results, branch: str, commit: str) -> StoredBaseline:
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


def _trend(
    opts: CiOptions, collab: Collaborators, config: Config, target: Target, head: Results
) -> str:
    """The metrics' trend over the data branch's history; decoration, so failures only log."""
    if opts.baseline_store != "branch" or target.base_branch is None:
        return ""
    try:
        history = collab.github.data_branch(opts.baseline_branch).history(
            target.base_branch, config.suite
        )
    except GitHubError as exc:
        collab.log(f"ragguard: no trend chart: {exc}")
        return ""
    values = {name: summary.value for name, summary in head.summary.items()}
    label = f"#{target.pr}" if target.pr is not None else "this run"
    return trend_markdown(history, values, target.base_branch, head_label=label)


def _job_summary(full: str, comparison: Comparison, trend: str) -> str:
    """The full report when it fits GitHub's job summary, else one cut to fit (summary.md
    on disk keeps the full one)."""
    if len(full.encode("utf-8")) < SUMMARY_LIMIT_BYTES:
        return full
    return _with_trend(render_summary(comparison, limit=SUMMARY_LIMIT_BYTES), trend)


def _with_trend(report: str, trend: str) -> str:
    return report if not trend else report.rstrip("\n") + "\n\n" + trend


def _file_baseline(opts: CiOptions, target: Target) -> StoredBaseline | None:
    path = opts.baseline_file
    if path is None or not path.exists():
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


def _baseline_line(stored: StoredBaseline | None, branch: str, merge_base: str | None) -> str:
    if stored is None:
        return f"ragguard: no baseline for {branch} yet; reporting the head values"
    which = "the merge base's" if stored.exact else "the newest"
    return f"ragguard: baseline: {which}, commit {stored.commit[:12]} on {branch} ({stored.path})"


def _baseline_results(stored: StoredBaseline | None) -> Results | None:
    if stored is None:
        return None
    try:
        data = parse_json_value(stored.results.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(stored.path, f"stored baseline is not JSON: {exc}") from None
    return results_from_dict(data, stored.path)


def _provenance(stored: StoredBaseline, head: Results) -> Provenance:
    created = stored.committed_at or stored.saved_at
    return Provenance(
        commit=stored.commit or None,
        branch=stored.branch or None,
        created_at=created,
        age=describe_age(created, head.created_at) if created else None,
    )


def _summary_header(stored: StoredBaseline | None, activity: Activity) -> str:
    """Which activity ran and which stored baseline it used (the report says its age)."""
    line = f"ragguard: {escape_markdown(activity.why)}."
    if stored is not None:
        which = "the merge base's baseline" if stored.exact else "the newest baseline"
        line += f" Compared with {which}: commit `{stored.commit[:12]}` on `{stored.branch}`."
    return line + "\n\n"


def _post_comment(
    opts: CiOptions,
    collab: Collaborators,
    status: StatusReporter,
    number: int,
    suite: str,
    body: str,
    comparison: Comparison,
) -> CommentOutcome | None:
    if status.read_only:
        return None
    regressed = comparison.verdict != "pass"
    now = Outcome(comparison.verdict, status_state(comparison))
    try:
        outcome = collab.github.upsert_comment(
            number, suite, body, mode=opts.comment_mode, regressed=regressed, outcome=now
        )
    except ReadOnlyTokenError:
        status.read_only = True
        collab.log("ragguard: the token may not comment: the comment goes to publish.json")
        return None
    collab.log(f"ragguard: comment {outcome.action}" + (f": {outcome.url}" if outcome.url else ""))
    if outcome.superseded is not None:
        collab.log(
            f"ragguard: the verdict turned {comparison.verdict}: new comment posted; "
            + (
                f"comment {outcome.superseded} not minimised ({outcome.minimize_error})"
                if outcome.minimize_error
                else f"comment {outcome.superseded} minimised as outdated"
            )
        )
    return outcome


def _save_baseline(
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


def status_state(comparison: Comparison) -> str:
    """success / failure / error for the commit status."""
    if comparison.verdict == ERROR:
        return "error"
    return "failure" if comparison.blocks else "success"


def status_description(comparison: Comparison) -> str:
    """One plain line (the status API shows no markdown); clipped to 140 by the client."""
    if comparison.baseline_missing:
        return _no_baseline_description(comparison)
    if comparison.reasons:
        reason = comparison.reasons[0]
        subject = f"{reason.subject} " if reason.subject else ""
        return f"{comparison.verdict}: {subject}{reason.text}"
    newly = len(comparison.of_kind("newly_failing"))
    return f"{comparison.verdict}: no regression; {newly} newly failing of {comparison.n_head}"


def _no_baseline_description(comparison: Comparison) -> str:
    """Without a baseline nothing is compared: a pass says so, never "pass" alone."""
    failing = failing_questions(comparison)
    critical = sum(1 for q in failing if q.critical)
    counted = f"{len(failing)} of {comparison.n_head} questions fail" + (
        f" ({critical} critical)" if critical else ""
    )
    if comparison.verdict == PASS:
        return f"no baseline yet: {counted}; the comparison starts once a baseline is saved"
    return f"{comparison.verdict} (no baseline yet): {counted}"


def exit_code(comparison: Comparison, fail_on: str, activity: Activity) -> int:
    """Non-zero when the step should fail: a block (or a warn, with fail-on: warn)."""
    if comparison.verdict == ERROR:
        return EXIT_ERROR
    if fail_on == "never" or activity.kind == BASELINE:
        return EXIT_OK
    if comparison.blocks:
        return EXIT_FAIL if comparison.verdict == FAIL else EXIT_ERROR
    if fail_on == "warn" and comparison.verdict in (WARN, INCOMPARABLE):
        return EXIT_FAIL
    return EXIT_OK


def _write_publish(
    out: Path,
    target: Target,
    suite: str,
    body: str,
    status: StatusReporter,
    settings: CiSettings,
    comparison: Comparison,
) -> None:
    state, description = status.last or ("error", "ragguard did not finish")
    # The publisher writes its own outcome line; a published one would be made inert text.
    payload = publish_document(
        suite, target.sha, without_outcome(body), state, description, comparison.verdict
    )
    write_report(out / "publish.json", json.dumps(payload, indent=1) + "\n")
    append_summary(
        settings.summary_file,
        f"The token is read-only (a fork's pull request): the comment and status are in "
        f"`{out / 'publish.json'}`, to upload as the artifact `{publish_artifact_name(suite)}` "
        "for the ragguard-publish workflow to post.\n",
    )


# ----- the real collaborators -----------------------------------------------------------------


def evaluate_config(
    config: Config,
    git: Mapping[str, str | None],
    out: Path,
    cache_dir: Path | None = None,
    shard: Shard | None = None,
    only: frozenset[str] | None = None,
    summary_file: Path | None = None,
) -> Results:
    """Run the suite's system over its test set (or one shard of it, or ``only`` those
    questions) and score it. With ``system.repeat`` N, pass ``i``'s records go to
    ``run.jsonl`` (the first) or ``run.<i>.jsonl``, and the run's cost goes to the job log
    and the job summary (``summary_file``)."""
    import time

    from ragguard.results.records import dump_run
    from ragguard.system.journal import pass_records_path
    from ragguard.system.runner import (
        LineLog,
        cost_line,
        end_log_with_failures,
        run_config,
        score_suite_run,
    )

    started = time.monotonic()
    log = LineLog(out / "system.log")
    try:
        suite_run = run_config(config, progress_stream=sys.stderr, log=log, shard=shard, only=only)
        failures = end_log_with_failures(log, suite_run.outcome)
    finally:
        log.close()
    outcome = suite_run.outcome
    if outcome.stopped_early:
        print(f"ragguard: {outcome.stopped_early_line()}", file=sys.stderr)
    for line in failures:  # the job log names the failed questions, grouped by error
        print(f"ragguard: {line}", file=sys.stderr)
    for index, records in enumerate(outcome.passes):
        write_report(pass_records_path(out / "run.jsonl", index), dump_run(records.values()))
    results, generation = score_suite_run(
        config,
        suite_run,
        git=dict(git),
        cache_dir=cache_dir,
        warn=lambda line: print(f"ragguard: warning: {line}", file=sys.stderr),
    )
    if generation.judge:  # the judge's calls and tokens, as `ragguard run` prints them
        print(f"ragguard: {generation.judge.usage.line()}", file=sys.stderr)
    if outcome.repeat > 1:
        usage = generation.judge.usage if generation.judge else None
        cost = cost_line(outcome, usage, time.monotonic() - started)
        print(f"ragguard: {cost}", file=sys.stderr)
        append_summary(summary_file, f"ragguard {config.suite}: {cost}\n")
    return results
