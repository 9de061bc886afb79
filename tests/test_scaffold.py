"""`ragguard init`: a working example suite, the documented workflows, .gitignore lines, and
nothing clobbered; and the first hour (init, run, compare) replayed in an empty repository."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from ragguard.config.load import load_config
from ragguard.config.sections.gate import gate_rules_of
from ragguard.config.sections.generation import generation_settings_of
from ragguard.core.errors import InputError
from ragguard.demo.scaffold import (
    DOCS_URL,
    EXAMPLE_SUITE,
    GITIGNORE_LINES,
    STARTER_CONFIG,
    WORKFLOW_FILES,
    add_gitignore_lines,
    write_starter_suite,
    write_workflows,
)

DOCUMENTED_WORKFLOWS = Path(__file__).resolve().parents[1] / "docs" / "workflows"


def test_the_written_workflows_are_the_documented_ones(tmp_path: Path) -> None:
    written = write_workflows(tmp_path / ".github" / "workflows")
    assert [path.name for path in written] == list(WORKFLOW_FILES)
    for path in written:
        documented = DOCUMENTED_WORKFLOWS / path.name
        assert path.read_text(encoding="utf-8") == documented.read_text(encoding="utf-8")
        assert yaml.safe_load(path.read_text(encoding="utf-8"))["jobs"]


def test_the_workflow_installs_the_systems_requirements_and_shows_secrets() -> None:
    for name in ("ragguard.yml", "ragguard-matrix.yml"):
        text = (DOCUMENTED_WORKFLOWS / name).read_text(encoding="utf-8")
        jobs = yaml.safe_load(text)["jobs"]
        for job in jobs.values():
            steps = job["steps"]
            uses = [i for i, s in enumerate(steps) if s.get("uses") == "ragguard/ragguard@v1"]
            accepts = "issue_comment" in job.get("if", "")  # runs no system: reads a status
            runs_system = [
                i for i in uses if "parts" not in steps[i].get("with", {}) and not accepts
            ]
            for index in runs_system:
                assert "pip install -r requirements.txt" in steps[index - 1]["run"], name
        assert "#   OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}" in text


def test_an_existing_workflow_is_kept_unless_forced(tmp_path: Path) -> None:
    target = tmp_path / "workflows"
    target.mkdir()
    (target / "ragguard-publish.yml").write_text("mine\n")
    with pytest.raises(InputError, match="already exists; pass --force"):
        write_workflows(target)
    assert not (target / "ragguard.yml").exists(), "a refusal writes nothing"
    write_workflows(target, force=True)
    assert (target / "ragguard-publish.yml").read_text() != "mine\n"


def test_the_starter_suite_is_valid_and_names_the_example(tmp_path: Path) -> None:
    written = write_starter_suite(tmp_path / "ragguard.yml", workflows_dir=None)
    assert [p.relative_to(tmp_path).as_posix() for p in written.paths] == [
        "ragguard.yml",
        "eval/testset.yaml",
        "eval/example_system.py",
    ]
    config = load_config(tmp_path / "ragguard.yml")
    assert config.suite == EXAMPLE_SUITE
    assert config.system.kind == "python"
    assert {"faithfulness", "answer_relevance", "answer_f1"} <= {m.name for m in config.metrics}
    assert "docs/config.md" not in STARTER_CONFIG.replace(f"{DOCS_URL}/config.md", "")
    assert f"{DOCS_URL}/config.md" in STARTER_CONFIG


def test_the_commented_options_of_the_starter_are_valid_when_uncommented(tmp_path: Path) -> None:
    write_starter_suite(tmp_path / "ragguard.yml", workflows_dir=None)
    lines = STARTER_CONFIG.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("# faithfulness: judge"))
    uncommented = [line.removeprefix("# ") for line in lines[start:]]
    text = "\n".join(lines[:start] + uncommented) + "\n"
    (tmp_path / "ragguard.yml").write_text(text, encoding="utf-8")
    config = load_config(tmp_path / "ragguard.yml")
    generation = generation_settings_of(config)
    assert generation.faithfulness_method == "judge"
    assert generation.judge is not None and generation.judge.model == "gpt-4o-mini"
    assert gate_rules_of(config).rule_for("faithfulness").min == 0.9
    assert config.sections["baseline"] == {"rerun": True}


def test_init_refuses_before_writing_anything(tmp_path: Path) -> None:
    (tmp_path / "eval").mkdir()
    (tmp_path / "eval" / "testset.yaml").write_text("mine\n")
    with pytest.raises(InputError, match=r"testset\.yaml: already exists; pass --force"):
        write_starter_suite(tmp_path / "ragguard.yml", workflows_dir=tmp_path / "wf")
    assert not (tmp_path / "ragguard.yml").exists() and not (tmp_path / "wf").exists()
    assert (tmp_path / "eval" / "testset.yaml").read_text() == "mine\n"


def test_gitignore_lines_are_added_once_and_kept_with_the_users(tmp_path: Path) -> None:
    path = tmp_path / ".gitignore"
    path.write_text("node_modules/\nresults.json")  # no final newline, one line already there
    assert add_gitignore_lines(path) == path
    lines = path.read_text().splitlines()
    assert lines[:2] == ["node_modules/", "results.json"]
    assert lines.count("results.json") == 1
    for line in GITIGNORE_LINES[1:]:
        assert line in lines
    before = path.read_text()
    assert add_gitignore_lines(path) is None and path.read_text() == before


def test_init_prints_the_real_status_name_and_links(ragguard_cli, tmp_path: Path) -> None:
    config = tmp_path / "ragguard.yml"
    result = ragguard_cli("init", "-c", config, "--workflows", tmp_path / ".github/workflows")
    assert result.exit_code == 0, result.output
    assert "required status check ragguard/my-rag " in result.output
    assert "<suite>" not in result.output
    assert f"{DOCS_URL}/action.md" in result.output
    assert " docs/action.md" not in result.output and "(docs/" not in result.output
    assert f"added ragguard's result files to {tmp_path / '.gitignore'}" in result.output


def test_init_without_workflows_writes_the_suite_only(
    ragguard_cli, tmp_path: Path, cli_error
) -> None:
    target = tmp_path / "sub" / "ragguard.yml"
    result = ragguard_cli("init", "-c", target, "--no-workflows")
    assert result.exit_code == 0, result.output
    assert target.read_text(encoding="utf-8") == STARTER_CONFIG
    assert (tmp_path / "sub" / "eval" / "example_system.py").exists()
    assert "status check" not in result.output
    cli_error(["init", "-c", target, "--no-workflows"], "already exists", "--force")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


def test_the_first_hour_from_an_empty_repository(ragguard_process, tmp_path: Path) -> None:
    """init, run, compare as a new user types them, in a fresh git repository."""
    repo = tmp_path / "my-project"
    repo.mkdir()
    _git(repo, "init", "-q")
    init = ragguard_process("init", cwd=repo)
    assert init.returncode == 0, init.stderr
    assert "ragguard/my-rag" in init.stdout
    first = ragguard_process("run", cwd=repo)
    assert first.returncode == 0, first.stderr
    assert "3 questions: 3 ok" in first.stdout
    # the result files are ignored, so `git add .` does not commit them by accident
    _git(repo, "add", ".")
    staged = _git(repo, "diff", "--cached", "--name-only").split()
    assert "results.json" not in staged and "results.run.jsonl" not in staged
    assert {"ragguard.yml", "eval/testset.yaml", ".gitignore"} <= set(staged)
    # no baseline yet: a neutral report with what to do
    none = ragguard_process(
        "compare", "baseline.json", "results.json", "--allow-missing-baseline",
        "--markdown", "comment.md", cwd=repo,
    )  # fmt: skip
    assert none.returncode == 0, none.stderr
    comment = (repo / "comment.md").read_text(encoding="utf-8")
    assert "**no baseline yet**" in comment and "✅" not in comment
    # the baseline, then a change that breaks one answer: compare reads ./ragguard.yml
    (repo / "results.json").rename(repo / "baseline.json")
    system = repo / "eval" / "example_system.py"
    system.write_text(
        system.read_text().replace('"answer": CHUNKS[ranked[0]],', '"answer": "Within a year."'),
        encoding="utf-8",
    )
    assert ragguard_process("run", cwd=repo).returncode == 0
    compared = ragguard_process(
        "compare", "baseline.json", "results.json", "--json", "comparison.json", cwd=repo
    )
    data = json.loads((repo / "comparison.json").read_text(encoding="utf-8"))
    assert data["questions"]["newly_failing"] == 3
    assert compared.returncode == 1 and data["verdict"] == "fail", compared.stdout
    assert "critical" in compared.stdout  # return-window is critical in the example


def test_the_starter_suite_has_abstention_on_and_says_why(ragguard_cli, tmp_path: Path) -> None:
    """``ragguard init`` writes ``abstention: {method: lexical, auto: true}`` with a comment;
    a question marked ``answerable: false`` that the example system answers scores 0."""
    config_path = tmp_path / "ragguard.yml"
    write_starter_suite(config_path, workflows_dir=None)
    config = load_config(config_path)
    assert config.sections["abstention"] == {"method": "lexical", "auto": True}
    assert generation_settings_of(config).abstention_auto is True
    comment = STARTER_CONFIG.split("abstention: {method")[0].rsplit("\n\n", 1)[-1]
    assert "`answerable: false`" in comment and "fails the question" in comment
    assert "`auto: false`" in comment
    testset = tmp_path / "eval" / "testset.yaml"
    unanswerable = "- id: ceo-salary\n  question: What is the CEO's salary?\n  answerable: false\n"
    testset.write_text(testset.read_text(encoding="utf-8") + unanswerable, encoding="utf-8")
    out = tmp_path / "results.json"
    result = ragguard_cli("run", "-c", config_path, "--out", out)
    assert result.exit_code == 0, result.output
    scored = json.loads(out.read_text(encoding="utf-8"))
    assert "abstention" in scored["metrics"]
    salary = next(q for q in scored["questions"] if q["id"] == "ceo-salary")
    assert salary["metrics"]["abstention"] == 0.0
