"""Packaging: the license, the changelog and the version agree; the wheel carries the license,
the typing marker, the classifiers and the project's addresses (docs/releasing.md)."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from importlib.metadata import metadata
from pathlib import Path

import pytest

import ragguard

ROOT = Path(__file__).resolve().parents[1]
# The installed distribution's metadata: what pip and a package index read from pyproject.toml.
META = metadata("ragguard")


def test_the_version_is_the_same_in_pyproject_the_package_and_the_changelog() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", changelog, re.M)
    assert META["Version"] == ragguard.__version__ == released[0]
    assert changelog.index("## [Unreleased]") < changelog.index(f"## [{released[0]}]")


def test_the_license_file_is_the_license_pyproject_declares() -> None:
    assert META["License"] == "MIT"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "License :: OSI Approved :: MIT License" in META.get_all("Classifier")


def test_classifiers_match_the_supported_pythons() -> None:
    minimum = META["Requires-Python"].removeprefix(">=")
    versions = [
        c.rsplit(":: ", 1)[1]
        for c in META.get_all("Classifier")
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    ]
    assert versions and versions[0] == minimum
    urls = {entry.split(",")[0] for entry in META.get_all("Project-URL")}
    assert {"Homepage", "Documentation", "Source", "Issues", "Changelog"} <= urls


@pytest.mark.e2e
def test_the_wheel_carries_license_typing_marker_and_metadata(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-q",
         "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("ragguard-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(f"ragguard-{ragguard.__version__}.dist-info/METADATA").decode()
    assert "ragguard/py.typed" in names
    assert f"ragguard-{ragguard.__version__}.dist-info/licenses/LICENSE" in names
    assert "Classifier: Typing :: Typed" in metadata
    assert "Project-URL: Documentation, https://github.com/ragguard/ragguard" in metadata
