"""Ctrl-C and SIGTERM, made reliable.

Python raises a signal's exception wherever the main thread happens to be; where that is a
handler Python runs for itself (the at-fork handlers of logging, a finaliser) the exception is
printed as "Exception ignored" and lost, and a run the user stopped goes on. So a signal is also
recorded: `check()` at the run's safe points raises it again if it was swallowed, and code that
must not be cut (starting workers: a fork) runs inside `deferred()`, which raises on leaving.
"""
from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class Terminated(BaseException):
    """SIGTERM: unwinds like Ctrl-C, so temporary files go and workers are stopped."""


_received: int | None = None
_deferring = 0


def _exception(signum: int) -> BaseException:
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated()


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _received
    _received = signum
    if not _deferring:
        raise _exception(signum)


def install() -> None:
    """The main process's handlers for SIGINT and SIGTERM."""
    global _received
    _received = None
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)


def check() -> None:
    """Raise the signal received, if any: a safe point of the run."""
    if _received is not None and not _deferring:
        raise _exception(_received)


@contextmanager
def deferred() -> Iterator[None]:
    """A signal arriving inside is raised when the block ends, not in the middle of it."""
    global _deferring
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1
    check()
