"""The commit status ``ragguard/<suite>``, set within a bounded time when GitHub is down.

With the statuses API failing, each write is retried by PyGithub; a job used to spend
minutes on them and to wait for the ``pending`` one before evaluating. Here:

- the ``pending`` status is set in the background (:meth:`StatusReporter.start`): the
  evaluation does not wait for it;
- every later write first waits for the one before it (so a late ``pending`` can never land
  over the final state), and all writes together get :data:`STATUS_BUDGET_SECONDS`: once
  spent, no more status is attempted and the log says so;
- a write that fails is recorded (:attr:`StatusReporter.failure`), not raised, so the
  comment can say at its top that the status is missing and every output is still written.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ragguard.github import GitHubClient, ReadOnlyTokenError

STATUS_BUDGET_SECONDS = 60.0

Clock = Callable[[], float]


class StatusReporter:
    """Sets the suite's status on one commit; after a 403 it only remembers what it would set."""

    def __init__(
        self,
        github: GitHubClient,
        sha: str,
        suite: str,
        log: Callable[[str], None],
        budget: float = STATUS_BUDGET_SECONDS,
        clock: Clock = time.monotonic,
    ) -> None:
        self.github, self.sha, self.suite, self.log = github, sha, suite, log
        self.budget, self.clock = budget, clock
        self.read_only = False
        self.last: tuple[str, str] | None = None
        self.failure: str | None = None  # why the latest state is not on GitHub, if it is not
        self._deadline: float | None = None
        self._write: threading.Thread | None = None
        self._gave_up = False

    def start(self, state: str, description: str) -> None:
        """Begin setting ``state`` in the background (the ``pending`` one)."""
        self._wait()
        self._begin(state, description)

    def set(self, state: str, description: str) -> bool:
        """Set ``state``, waiting at most for what is left of the budget; True when it is set."""
        self._wait()
        self._begin(state, description)
        self._wait()
        return self.failure is None

    def _begin(self, state: str, description: str) -> None:
        self.last = (state, description)
        if self.read_only:
            self.failure = None
            return
        if self._gave_up:
            self.failure = self._budget_message()
            return
        if self._deadline is None:
            self._deadline = self.clock() + self.budget
        self.failure = f"setting {state} did not finish"
        self._write = threading.Thread(
            target=self._send, args=(state, description), name="ragguard-status", daemon=True
        )
        self._write.start()

    def _send(self, state: str, description: str) -> None:
        try:
            self.github.set_status(self.sha, self.suite, state, description)
        except ReadOnlyTokenError:
            self.read_only = True
            self.failure = None
            self.log(
                "ragguard: the token is read-only (a fork's pull request?): the status and "
                "comment go to publish.json for a workflow_run workflow to post"
            )
        except Exception as exc:  # GitHub down, a network error: recorded, never raised
            self.failure = " ".join(str(exc).split()) or type(exc).__name__
            self.log(f"ragguard: could not set the {state} status: {self.failure}")
        else:
            self.failure = None

    def _wait(self) -> None:
        """Wait for the write in flight, up to the deadline; past it, give up on statuses."""
        if self._write is None or self._deadline is None:
            return
        self._write.join(max(0.0, self._deadline - self.clock()))
        if self._write.is_alive():
            self._gave_up = True
            self.failure = self._budget_message()
            self.log(
                f"ragguard: gave up on the commit status after {self.budget:g} s "
                "(the cap on all status writes): GitHub is not answering"
            )
        self._write = None

    def _budget_message(self) -> str:
        return f"GitHub did not answer the status writes within {self.budget:g} s"
