"""The README's two opening commands are the ones CI and newcomers run."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", text, re.DOTALL)][:2]


def test_readme_opens_with_the_demo_and_the_test_command() -> None:
    demo, tests = readme_commands()
    assert demo.endswith("ragguard demo")
    assert "pip install '.[test]'" in tests and "pytest" in tests


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert readme_commands()[1] in ci_lines
