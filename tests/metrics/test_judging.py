"""The judge plugs into the metrics through ragguard.metrics.judging: the core never imports it."""

from __future__ import annotations

import ast
from pathlib import Path

import ragguard

PACKAGE = Path(ragguard.__file__).parent


def imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
    return modules


def test_the_metrics_and_scoring_do_not_import_the_judge() -> None:
    core = [*sorted((PACKAGE / "metrics").glob("*.py")), PACKAGE / "scoring" / "score.py"]
    offenders = {
        path.name: sorted(m for m in imported_modules(path) if m.startswith("ragguard.judge"))
        for path in core
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_judge_modules_re_export_the_metrics_types() -> None:
    from ragguard.config.sections import generation as settings
    from ragguard.judge import client, prompts
    from ragguard.metrics import judging
    from ragguard.metrics import settings as core_settings

    assert (client.JudgeItem, client.JudgeOutcome) == (judging.JudgeItem, judging.JudgeOutcome)
    assert (prompts.JudgeVerdict, prompts.SentenceJudgement) == (
        judging.JudgeVerdict,
        judging.SentenceJudgement,
    )
    assert (settings.GenerationSettings, settings.JudgeSettings) == (
        core_settings.GenerationSettings,
        core_settings.JudgeSettings,
    )
