"""ragguard's pytest plugin, loaded by pytest through the ``pytest11`` entry point of an
installed ragguard (docs/api.md, "Gating in pytest").

- the ``rag`` marker, registered: ``@pytest.mark.rag`` raises no PytestUnknownMarkWarning,
  and ``-m "not rag"`` leaves out the tests that run the system;
- the ``rag_results`` fixture: the suite's results, once per session, from ``ragguard.yml``
  run as ``ragguard run`` does (``--rag-config`` or the ``rag_config`` ini option name
  another file), or read from ``--rag-results FILE`` (results ``ragguard run`` wrote
  earlier). A test that uses it is marked ``rag``.

It imports nothing of ragguard's until a test asks for the fixture.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ragguard.results.model import Results

MARKER = "rag"
FIXTURE = "rag_results"
MARKER_HELP = (
    f"{MARKER}: evaluates the RAG system with ragguard (runs the system: slow); "
    f"deselect with -m 'not {MARKER}'"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ragguard", "ragguard: the RAG system's quality gate")
    group.addoption(
        "--rag-config",
        metavar="PATH",
        help="ragguard.yml of the suite the rag_results fixture runs (default: rag_config, "
        "else ragguard.yml in the root directory).",
    )
    group.addoption(
        "--rag-results",
        metavar="FILE",
        help="Results file the rag_results fixture reads instead of running the suite.",
    )
    parser.addini("rag_config", "ragguard.yml of the suite rag_results runs.", default="")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that asks for the suite's results runs the system: it is a ``rag`` test."""
    for item in items:
        if FIXTURE in getattr(item, "fixturenames", ()):
            item.add_marker(MARKER)


def suite_config(config: pytest.Config) -> Path:
    """The ragguard.yml the fixture runs: the option, the ini value, or the default, a
    relative path taken from the root directory."""
    chosen = config.getoption("--rag-config") or config.getini("rag_config") or "ragguard.yml"
    path = Path(chosen)
    return path if path.is_absolute() else Path(config.rootpath) / path


@pytest.fixture(scope="session")
def rag_results(pytestconfig: pytest.Config) -> Results:
    """The suite's results, once per session: read from ``--rag-results``, else the suite
    run and scored as ``ragguard run`` does (its progress on stderr)."""
    from ragguard import api

    given = pytestconfig.getoption("--rag-results")
    if given:
        return api.load(given)
    return api.run(suite_config(pytestconfig))
