"""Folders shipped inside the wheel, found in the source tree when running from a checkout."""

from __future__ import annotations

from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
SOURCE_ROOT = Path(__file__).resolve().parents[3]


def shipped_dir(package_name: str, source_path: str) -> Path:
    """``ragguard/<package_name>`` in an installed wheel, else ``<source_path>`` in the checkout.

    pyproject.toml force-includes each such folder into the wheel under ``package_name``.
    """
    installed = PACKAGE_ROOT / package_name
    return installed if installed.is_dir() else SOURCE_ROOT / source_path


def templates_dir() -> Path:
    return shipped_dir("templates", "templates")


def workflows_dir() -> Path:
    return shipped_dir("workflows", "docs/workflows")
