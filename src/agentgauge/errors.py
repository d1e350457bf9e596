"""The one error hierarchy of agentgauge.

```
AgentGaugeError
├── UserError        bad input or flags: the CLI prints its one-line message and exits 2
│   ├── MissingExtraError   an optional dependency is not installed (names the pip command)
│   ├── SuiteCodeRefused    the suite names code the suite-code policy does not let it run
│   │   └── EndpointRefused an endpoint a suite or run directory names would get your credentials
│   ├── PathRefused         a path a run directory names (or a file in it) would write elsewhere
│   └── TranscriptError     a conversation (any vendor format) that cannot be read
├── ProviderError    the agent under test (or a judge) failed: carries status and retry_after
├── ToolError        a simulated tool failed in a way the case did not ask for
├── WorldError       a case's world cannot be built, or its reference actions cannot be written
└── ScorerError      a scorer could not produce a score (recorded on the case, never raised past it)
    └── JudgeError   an LLM judge gave no usable verdict (bad output twice, or its provider failed)

KeyboardInterrupt
└── RunInterrupted   Ctrl-C during a run whose finished cases are kept (names the run directory)
```

Every exception agentgauge raises on purpose is one of these; other packages re-export them
(``agentgauge.judges.JudgeError`` is this class) but never define their own public error classes.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "AgentGaugeError",
    "EndpointRefused",
    "JudgeError",
    "MissingExtraError",
    "PathRefused",
    "ProviderError",
    "RunInterrupted",
    "ScorerError",
    "SuiteCodeRefused",
    "ToolError",
    "TranscriptError",
    "UserError",
    "WorldError",
]


class AgentGaugeError(Exception):
    """Base class of every error agentgauge raises on purpose."""


class UserError(AgentGaugeError):
    """Bad input: a file, a flag or a value the user can fix.

    ``str(err)`` is a single line such as ``suite.yaml:12: cases[3].expect: unknown tool 'foo'``.
    The CLI prints it without a traceback and exits with status 2.
    """

    def __init__(self, message: str, *, problems: list[str] | None = None) -> None:
        super().__init__(message)
        #: every problem found, one line each (``message`` is the first or a summary)
        self.problems: list[str] = problems if problems is not None else [message]


class MissingExtraError(UserError):
    """An optional dependency is missing; the message names the exact install command."""

    def __init__(self, package: str, extra: str, *, command: str | None = None) -> None:
        self.package = package
        self.extra = extra
        #: the install command, when an extra cannot express it (``pip install --no-deps ...``)
        self.command = command or f"pip install 'agentgauge[{extra}]'"
        super().__init__(f"this feature needs the '{package}' package: {self.command}")


class SuiteCodeRefused(UserError):
    """The suite names code the policy does not let it run (one line: what, and why)."""


class EndpointRefused(SuiteCodeRefused):
    """A suite or a run directory names an endpoint that would receive a credential of the
    user's (``OPENAI_API_KEY`` ...) without the user's opt-in (one line: what, and why)."""


class PathRefused(UserError):
    """A path read from a run directory (or a file agentgauge would write in one) leads out of
    it: an absolute path, ``..``, a symlink, a FIFO (one line: which, and why)."""


class TranscriptError(UserError):
    """A conversation that cannot be read (``agentgauge.io.messages_from_data``).

    ``index`` is the bad message's position (None: the whole conversation) and ``detail`` the
    one-line reason; readers of files prefix it with ``file:line: field[index]``.
    """

    def __init__(self, index: int | None, detail: str) -> None:
        super().__init__(detail)
        self.index = index
        self.detail = detail


class ProviderError(AgentGaugeError):
    """A model provider failed.

    ``status`` is the HTTP status when there is one; ``retry_after`` the seconds the server asked
    us to wait; ``transient`` says whether retrying may help (429, 5xx, connection errors and
    timeouts are transient; other 4xx are not).
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        transient: bool | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        if transient is None:
            transient = status is None or status == 429 or status >= 500 or status == 408
        self.transient = transient


class ToolError(AgentGaugeError):
    """A simulated tool raised an unexpected exception."""


class WorldError(AgentGaugeError):
    """A case's world cannot be built (a state that is not a mapping of records, a class whose
    constructor raises) or its reference actions cannot be written down: recorded on that case
    (docs/worlds.md), never stopping the run."""


class ScorerError(AgentGaugeError):
    """A scorer failed; the case is recorded with status ``error``."""


class JudgeError(ScorerError):
    """The judge gave no usable verdict (bad output twice, or the provider failed).

    Judge scorers record it on the score as a judge error, never as a pass or a fail.
    """


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run after it started: every finished case is in ``run_dir``'s journal.

    ``str(err)`` says where the finished cases are and the exact ``--resume`` command; the CLI
    prints it and exits 130. It stays a :class:`KeyboardInterrupt`, so code that handles Ctrl-C
    keeps working.
    """

    def __init__(self, run_dir: Path, message: str) -> None:
        super().__init__(message)
        self.run_dir = run_dir
