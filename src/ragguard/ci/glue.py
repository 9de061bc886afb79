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

from collections.abc import Callable

from ragguard.ci.accept import KeptAcceptance, accept_command, kept_acceptance
from ragguard.ci.activity import (
    ACCEPT,
    IGNORE,
    PUBLISH,
    PULL_REQUEST,
    Activity,
    choose_activity,
)
from ragguard.ci.baseline import (
    baseline_file,
    check_baseline_file,
    fetch_baseline,
    git_of,
    head_results,
    save_baseline,
)
from ragguard.ci.collaborators import CiOutcome, Collaborators, Target
from ragguard.ci.corpus_note import uncovered_changes_note
from ragguard.ci.options import CiOptions, ci_options
from ragguard.ci.outputs import append_summary, write_outputs
from ragguard.ci.policy import exit_code, status_description, status_state
from ragguard.ci.publish import publish_fork_run
from ragguard.ci.rechecking import recheck_comparison
from ragguard.ci.report import (
    post_comment,
    step_outputs,
    trend_for,
    write_publish,
)
from ragguard.ci.salvage import leave_reports, mark_reports
from ragguard.ci.settings import CiSettings
from ragguard.ci.status import StatusReporter
from ragguard.ci.superseded import head_moved
from ragguard.ci.target_gate import trusted_gate, trusted_options
from ragguard.compare.serialise import comparison_json
from ragguard.config.load import ConfigFile, load_config
from ragguard.config.model import Config, with_repeat
from ragguard.config.sections.gate import GateRules
from ragguard.core.errors import InputError
from ragguard.core.exits import EXIT_ERROR, EXIT_OK
from ragguard.core.files import write_all
from ragguard.github import (
    GitHubClient,
    Outcome,
)
from ragguard.github.comments import with_outcome
from ragguard.pipeline.compare import compare_to_baseline
from ragguard.pipeline.drafts import awaiting_review
from ragguard.pipeline.passes import check_judge_key
from ragguard.render import (
    comparison_terminal,
)
from ragguard.render.frame import (
    Frame,
    baseline_phrase,
    fitted_summary,
    framed_comment,
    framed_summary,
    status_missing_note,
    summary_header,
)
from ragguard.render.gate_note import baseline_changes, gate_note
from ragguard.results.io import write_results
from ragguard.testset.load import load_testset


def run_ci(
    settings: CiSettings, collaborators: Collaborators, config_file: ConfigFile | None = None
) -> CiOutcome:
    """Run the activity the event calls for; raises InputError on bad input.

    ``config_file``: ``settings.config`` as the caller already read it (the CLI reads it
    first for the log masks), so that the file is parsed once; else it is read here.
    """
    file = config_file or ConfigFile(settings.config)
    log = collaborators.log
    activity = choose_activity(settings.event, settings.mode, settings.pr)
    log(f"ragguard: {activity.why}")
    if activity.kind == PUBLISH:
        _refuse_shard_inputs(settings)
        return publish_fork_run(settings, collaborators)
    if activity.kind == IGNORE:
        write_outputs(settings.output_file, {"status": ""})
        return CiOutcome(None, "", EXIT_OK, None, None, False)
    if activity.kind == ACCEPT:
        _refuse_shard_inputs(settings)
        return accept_command(settings, collaborators, activity, file)
    config = with_repeat(load_config(file), settings.repeat)
    rules = config.gate
    opts = ci_options(settings, config)
    check_baseline_file(opts)  # before any request
    if not settings.parts:  # a broken test set is found before any request to GitHub
        testset = load_testset(config.testset).without_drafts()  # the questions ci asks
        check_judge_key(testset, config.metrics, config.generation)  # a judge key not set
    target = resolve_target(activity, settings, collaborators.github)
    _warn_unreviewed(settings, target, log)
    if activity.kind == PULL_REQUEST and activity.head_sha is None:
        asked_by = "input pr" if settings.pr is not None else "input mode"
        _check_checkout(target, collaborators.head_commit(), asked_by)
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
    """A pull request evaluated at the head the API gives (the pr input, or a comment on it)
    without the sha input: say what that risks."""
    asked = settings.pr is not None or settings.event.name == "issue_comment"
    if asked and target.pr is not None and settings.sha is None:
        log(
            f"ragguard: warning: re-evaluating #{target.pr} at its current head "
            f"{target.sha[:12]} without the sha input; give the sha you reviewed, so that a "
            "push after your review is refused instead of run with this workflow's secrets"
        )


def _check_checkout(target: Target, checked_out: str | None, asked_by: str) -> None:
    """Re-evaluating a pull request must run its head's code, not the dispatching branch's
    (``asked_by``: the input that asked for it, the error's place)."""
    if checked_out and checked_out != target.sha:
        raise InputError(
            asked_by,
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
    results = head_results(settings, collab, config, target, out)
    results_path = write_results(results, out / "results.json")
    line = (
        f"ragguard: shard {settings.shard} of {config.suite}: {len(results.questions)} "
        f"questions evaluated; results in {results_path} for the final job to merge"
    )
    collab.log(line)
    append_summary(settings.summary_file, line + "\n")
    write_outputs(settings.output_file, {"results-path": str(results_path)})
    return CiOutcome(None, "", EXIT_OK, None, results_path, False)


def _kept_acceptance(
    activity: Activity, target: Target, collab: Collaborators, suite: str, state: str
) -> KeptAcceptance | None:
    """A pull request's head evaluated again after its regression was accepted keeps the
    acceptance (ci/accept.py); not in a fork's own run, whose report the publisher judges."""
    if target.pr is None or activity.fork:
        return None
    return kept_acceptance(collab.github, target.sha, suite, state)


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
    results = head_results(settings, collab, config, target, out)
    results_path = write_results(results, out / "results.json")
    gate = trusted_gate(activity, settings, collab, rules, target)
    own_opts, opts = opts, trusted_options(settings, config, gate) or opts

    stored = fetch_baseline(
        settings, opts, collab, config, target, merge_base=gate.commit if gate else None
    )
    comparison = compare_to_baseline(baseline_file(stored), results, gate.rules if gate else rules)
    comparison = recheck_comparison(
        comparison, config, out, git_of(settings, target), collab.evaluate_only, collab.log
    )
    if activity.save_baseline:
        save_baseline(settings, opts, collab, config, target, results, comparison)
    state = status_state(comparison)
    kept = _kept_acceptance(activity, target, collab, config.suite, state)
    if kept is not None:
        state = "success"
        collab.log(
            f"ragguard: {config.suite}: the regression of {target.sha[:12]} stays {kept.description}"
        )
    description = kept.description if kept else status_description(comparison)
    status.set(state, description)  # before the comment, which says if not
    trend = trend_for(opts, collab, config, target, results)
    top = kept.note if kept else ""
    top += status_missing_note(config.suite, status.failure) if status.failure else ""
    if gate is not None:
        changes = baseline_changes(opts, own_opts)
        top += gate_note(gate, comparison, baseline_phrase(stored, comparison), changes)
    if config.documents is not None and target.pr is not None:
        merge_base = (gate.commit if gate else None) or target.base_sha
        merge_base = merge_base or collab.github.merge_base(target.base_branch or "", target.sha)
        top += uncovered_changes_note(config, target, merge_base, collab.log)
    frame = Frame(top, trend, awaiting_review(config.testset))
    comment_body = with_outcome(
        framed_comment(comparison, frame), Outcome(comparison.reported_verdict, state)
    )
    summary = framed_summary(comparison, frame)
    write_all(
        [
            (out / "comment.md", comment_body),
            (out / "summary.md", summary),
            (out / "comparison.json", comparison_json(comparison)),
        ]
    )
    collab.log(comparison_terminal(comparison).rstrip())
    collab.log(
        f"ragguard: {config.suite}: {comparison.reported_verdict}; results in {results_path}"
    )

    comment = None
    if target.pr is not None and not head_moved(collab.github, target.pr, target.sha, collab.log):
        comment = post_comment(
            opts, collab, status, target.pr, config.suite, comment_body, comparison
        )
    append_summary(
        settings.summary_file,
        summary_header(activity.why, stored) + fitted_summary(summary, comparison, frame),
    )
    if status.read_only:
        write_publish(out, target, config.suite, comment_body, status, settings, comparison)
    write_outputs(
        settings.output_file,
        step_outputs(comparison, results_path, out, comment, status, config.suite),
    )
    code = EXIT_OK if kept else exit_code(comparison, settings.fail_on, activity)
    if status.failure:
        collab.log(
            f"ragguard: the commit status ragguard/{config.suite} is not set "
            f"({status.failure}); exit 3 so that the job shows it"
        )
        code = EXIT_ERROR
    return CiOutcome(comparison, state, code, comment, results_path, status.read_only)
