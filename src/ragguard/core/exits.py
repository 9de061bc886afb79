"""The one table of ragguard's exit codes (README.md, docs/config.md, docs/action.md).

Every command, `ragguard ci` and the interrupt handler exit with one of these; nothing else
spells an exit code as a number.
"""

from __future__ import annotations

EXIT_OK = 0  # pass or warn; a run with too few failures to distrust
EXIT_FAIL = 1  # the gate blocks: a regression
EXIT_BAD_INPUT = 2  # bad input or a usage mistake: one line on stderr, no traceback
EXIT_ERROR = 3  # could not evaluate: too many system or judge errors, incomparable, GitHub down
EXIT_SIGINT = 130  # 128 + SIGINT, what a shell reports for a Ctrl-C'd command
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a program killed by a closed pipe
EXIT_SIGTERM = 143  # 128 + SIGTERM
