"""The command line: parse, call the core, map errors to exit codes.

Exit codes: 0 success, 2 bad input or a usage mistake (one line on stderr, no traceback),
130 interrupted by Ctrl-C, 141 stdout's reader went away (a broken pipe), 143 cancelled by
SIGTERM (README.md, docs/config.md).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from ragguard import __version__
from ragguard.cli.commands.baseline import baseline_group
from ragguard.cli.commands.calibrate import calibrate_command
from ragguard.cli.commands.ci import ci_command, publish_command
from ragguard.cli.commands.compare import compare_command, power_command
from ragguard.cli.commands.coverage import coverage_command
from ragguard.cli.commands.demo import demo
from ragguard.cli.commands.gitlab import gitlab_note_command
from ragguard.cli.commands.import_testset import import_command
from ragguard.cli.commands.init import init
from ragguard.cli.commands.results import explain_command, report
from ragguard.cli.commands.run import merge_command, run_command
from ragguard.cli.commands.score import score
from ragguard.cli.commands.testset import testset_group
from ragguard.core import interrupts
from ragguard.core.errors import InputError
from ragguard.core.exits import EXIT_BAD_INPUT, EXIT_BROKEN_PIPE

COMMAND_ORDER = (
    "demo",
    "init",
    "run",
    "score",
    "compare",
    "power",
    "explain",
    "report",
    "baseline",
    "import",
    "coverage",
    "testset",
    "merge",
    "calibrate",
    "ci",
    "publish",
)


class RagguardGroup(click.Group):
    """Turns bad input, usage mistakes and interrupts into one line on stderr and an exit code.

    :class:`InputError` and click's usage errors exit 2; Ctrl-C exits 130 and SIGTERM 143
    (the children the run started are killed first); running out of memory exits 2.
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except InputError as exc:
            click.echo(f"ragguard: error: {exc}", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except BrokenPipeError:  # `ragguard run | head -1`: the reader is gone, nothing to say
            _silence_stdout()
            ctx.exit(EXIT_BROKEN_PIPE)
        except OSError as exc:
            if exc.filename is None:
                raise
            from ragguard.core.sources import bad_path

            error = bad_path(exc.filename, exc)  # e.g. a path too long, a folder not writable
            click.echo(f"ragguard: error: {error}", err=True)
            ctx.exit(EXIT_BAD_INPUT)
        except KeyboardInterrupt:  # past click's handler, which prints a blank line first
            raise _Interrupted from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Commands in the order a user meets them, not alphabetically."""
        known = super().list_commands(ctx)
        ordered = [name for name in COMMAND_ORDER if name in known]
        return ordered + [name for name in known if name not in ordered]

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each command's first sentence whole (wrapped), where click would cut it to fit."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=1000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        try:
            result = super().main(*args, standalone_mode=False, **kwargs)
        except click.ClickException as exc:
            click.echo(f"ragguard: error: {_one_line(exc)}", err=True)
            result = EXIT_BAD_INPUT if isinstance(exc, click.UsageError) else exc.exit_code
        except (_Interrupted, click.Abort, KeyboardInterrupt):
            interrupts.kill_children()
            click.echo(f"ragguard: interrupted ({interrupts.signal_name()})", err=True)
            result = interrupts.exit_code()
        except MemoryError:
            click.echo(
                "ragguard: error: out of memory; give the job more memory or split the input",
                err=True,
            )
            result = EXIT_BAD_INPUT
        code = result if isinstance(result, int) else 0
        if standalone_mode:
            sys.exit(code)
        return result


def _silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's flush at exit cannot fail on
    the closed pipe again (it would print "Exception ignored" and exit 120)."""
    try:
        stdout = sys.stdout.fileno()
    except (OSError, ValueError):  # not a real file (a test runner's): nothing to flush
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, stdout)
    os.close(devnull)


class _Interrupted(Exception):
    """Ctrl-C or SIGTERM, carried past click's own handler to :meth:`RagguardGroup.main`."""


def _one_line(exc: click.ClickException) -> str:
    """A click error as ``PLACE: message; see ragguard CMD --help`` on one line.

    PLACE is the option or argument when click names one, else the command.
    """
    if not isinstance(exc, click.UsageError):
        return " ".join(exc.format_message().split())
    command = exc.ctx.command_path if exc.ctx else "ragguard"
    place = command
    if isinstance(exc, click.NoSuchOption):
        place = exc.option_name
    elif isinstance(exc, (click.BadParameter, click.MissingParameter)) and exc.param is not None:
        param = exc.param
        place = param.opts[0] if isinstance(param, click.Option) else param.human_readable_name
    message = " ".join(exc.format_message().split()).removesuffix(".")  # click's full stop
    return f"{place}: {message}; see {command} --help"


@click.group(cls=RagguardGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ragguard")
def cli() -> None:
    """Evaluate a RAG system, compare it with a baseline, and gate the merge."""


cli.add_command(score)
cli.add_command(report)
cli.add_command(explain_command)
cli.add_command(demo)
cli.add_command(init)
cli.add_command(run_command)
cli.add_command(merge_command)
cli.add_command(compare_command)
cli.add_command(power_command)
cli.add_command(baseline_group)
cli.add_command(calibrate_command)
cli.add_command(import_command)
cli.add_command(coverage_command)
cli.add_command(testset_group)
cli.add_command(ci_command)
cli.add_command(publish_command)
cli.add_command(gitlab_note_command)


def main() -> None:
    interrupts.install()
    cli(prog_name="ragguard")
