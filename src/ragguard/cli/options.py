"""Options and small helpers every command shares: -c/--config, --repeat, --metrics, warnings."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ragguard.config.load import DEFAULT_CONFIG_NAME
from ragguard.core.errors import InputError

if TYPE_CHECKING:
    from ragguard.metrics.names import MetricSpec


def config_option(
    help_text: str, default: str | None = None, name: str = "config_path"
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``-c/--config``, the same flag on every command that reads or writes ragguard.yml."""
    return click.option(
        "-c",
        "--config",
        name,
        type=click.Path(path_type=Path),
        default=default,
        show_default=default is not None,
        help=help_text,
    )


def _check_repeat(_ctx: click.Context, _param: click.Parameter, value: int | None) -> int | None:
    from ragguard.config.sections.system import REPEAT_EXPECTED, is_whole_repeat

    if value is not None and not is_whole_repeat(value):
        raise click.BadParameter(f"{REPEAT_EXPECTED}, found {value}")
    return value


repeat_option = click.option(
    "--repeat",
    type=int,
    callback=_check_repeat,
    metavar="N",
    help="Ask every question N times (1-20); overrides system.repeat in the config.",
)

include_drafts_option = click.option(
    "--include-drafts",
    is_flag=True,
    help="Ask and score the drafted questions (status: draft) too; by default they wait "
    "for review and are left out.",
)


def parse_metrics_option(value: str | None) -> tuple[MetricSpec, ...]:
    from ragguard.metrics.names import DEFAULT_METRICS, MetricNameError, parse_metric_list

    try:
        return parse_metric_list(value or ",".join(DEFAULT_METRICS))
    except MetricNameError as exc:
        raise InputError("--metrics", str(exc)) from None


def _warn(line: str) -> None:
    click.echo(f"ragguard: warning: {line}", err=True)


def _judge_config(config_file: Path | None, use_judge: bool) -> Path | None:
    """The ragguard.yml to read generation settings from: --config, or ./ragguard.yml for --judge."""
    if config_file is None and use_judge:
        default = Path(DEFAULT_CONFIG_NAME)
        if not default.exists():
            raise InputError("--judge", "needs a judge: section; pass --config ragguard.yml")
        return default
    return config_file
