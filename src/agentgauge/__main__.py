"""``python -m agentgauge`` and the ``agentgauge`` console script (``entry``)."""

import gc


def entry() -> None:
    """The command line, with the garbage collector off from the first import (click's
    included: ``cli.main`` turns it back on once the command's modules are in)."""
    gc.disable()
    from .cli import run

    run()


if __name__ == "__main__":
    entry()
