"""Adapters for the system under test: python, command, http, and a recorded run.

:func:`build_adapter` turns the ``system:`` section of ragguard.yml into one of them.
"""

from __future__ import annotations

from collections.abc import Callable

from ragguard.config.model import Config
from ragguard.system.base import Adapter, BatchAdapter


def build_adapter(
    config: Config, log: Callable[[str], None] | None = None
) -> Adapter | BatchAdapter:
    """The adapter named by ``config.system``; bad settings raise InputError (exit 2)."""
    system, root = config.system, config.root
    if system.kind == "python":
        from ragguard.system.python import PythonAdapter

        return PythonAdapter.from_config(system, root)
    if system.kind == "http":
        from ragguard.system.http import HttpAdapter

        return HttpAdapter.from_config(system, root)
    if system.kind == "command":
        from ragguard.system.command import command_adapter
        from ragguard.system.command_traces import with_traces

        command = command_adapter(system, root, log) if log else command_adapter(system, root)
        return with_traces(command, system)
    from ragguard.system.recorded import RecordedAdapter

    return RecordedAdapter.from_config(system, root)
